import type { ChainList } from '@ramp/contracts';

export const CHAIN_NAMES = ['base', 'bsc', 'ethereum', 'polygon', 'arbitrum', 'avalanche', 'solana'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

/** Where managed wallets operate, and the only source chains of swaps, transfers and off-ramps. */
export const PRIMARY_CHAINS = ['base', 'bsc'] as const;
export type PrimaryChainName = (typeof PRIMARY_CHAINS)[number];

/** The tokens the spec lets a business sell for Naira (an off-ramp's tokenSymbol), on a primary chain that lists it. */
export const OFFRAMP_TOKENS = ['CNGN', 'USDC', 'ETH', 'cbBTC', 'BNB', 'USDT'] as const;
export type OfframpToken = (typeof OFFRAMP_TOKENS)[number];

export type ChainDescriptor = ChainList.ChainDescriptor;
export type TokenDescriptor = ChainList.TokenDescriptor;

/** The conventional stand-in address of an EVM chain's native coin (ETH, BNB, POL, AVAX), as aggregators use it. */
export const EVM_NATIVE_ADDRESS = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

const TRUSTWALLET_LOGOS = 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains';

interface TokenRow {
  symbol: string;
  name: string;
  address: string;
  decimals: number;
  /** The chain's own coin: its logo is the chain's, not an asset's. */
  native?: true;
}

const token = (symbol: string, name: string, address: string, decimals: number): TokenRow => ({ symbol, name, address, decimals });
const native = (symbol: string, name: string, decimals: number, address = EVM_NATIVE_ADDRESS): TokenRow => ({
  symbol,
  name,
  address,
  decimals,
  native: true,
});

interface ChainRow {
  chain: ChainName;
  chainId: number;
  name: string;
  explorerUrl: string;
  /** The chain's folder in trustwallet/assets, where the logos live. */
  logoFolder: string;
  tokens: TokenRow[];
}

function describeChain(row: ChainRow): ChainDescriptor {
  const type = (PRIMARY_CHAINS as readonly string[]).includes(row.chain) ? 'primary' : 'secondary';
  const tokens = row.tokens.map((t) =>
    Object.freeze({
      symbol: t.symbol,
      name: t.name,
      contractAddress: t.address,
      decimals: t.decimals,
      chain: row.chain,
      logoUrl: t.native ? `${TRUSTWALLET_LOGOS}/${row.logoFolder}/info/logo.png` : `${TRUSTWALLET_LOGOS}/${row.logoFolder}/assets/${t.address}/logo.png`,
    }),
  );
  return Object.freeze({
    chain: row.chain,
    chainId: row.chainId,
    name: row.name,
    type,
    explorerUrl: row.explorerUrl,
    tokens: Object.freeze(tokens) as TokenDescriptor[],
  });
}

const CHAIN_ROWS: readonly ChainRow[] = [
  {
    chain: 'base',
    chainId: 8453,
    name: 'Base',
    explorerUrl: 'https://basescan.org',
    logoFolder: 'base',
    tokens: [
      token('CNGN', 'Compliant Naira', '0x46C85152bFe9f96829aA94755D9f915F9B10EF5F', 6),
      token('USDC', 'USD Coin', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 6),
      token('USDT', 'Tether USD', '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2', 6),
      native('ETH', 'Ether', 18),
      token('cbBTC', 'Coinbase Wrapped BTC', '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', 8),
    ],
  },
  {
    chain: 'bsc',
    chainId: 56,
    name: 'BNB Smart Chain',
    explorerUrl: 'https://bscscan.com',
    logoFolder: 'smartchain',
    tokens: [
      token('CNGN', 'Compliant Naira', '0xa8AEA66B361a8d53e8865c62D142167Af28Af058', 6),
      token('USDT', 'Tether USD', '0x55d398326f99059fF775485246999027B3197955', 18),
      token('USDC', 'USD Coin', '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', 18),
      native('BNB', 'BNB', 18),
      token('ETH', 'Binance-Peg Ether', '0x2170Ed0880ac9A755fd29B2688956BD959F933F8', 18),
    ],
  },
  {
    chain: 'ethereum',
    chainId: 1,
    name: 'Ethereum',
    explorerUrl: 'https://etherscan.io',
    logoFolder: 'ethereum',
    tokens: [
      token('USDC', 'USD Coin', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 6),
      token('USDT', 'Tether USD', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 6),
      native('ETH', 'Ether', 18),
      token('cbBTC', 'Coinbase Wrapped BTC', '0xcbB7C0000aB88B473b1f5aFd9ef808440eed33Bf', 8),
    ],
  },
  {
    chain: 'polygon',
    chainId: 137,
    name: 'Polygon PoS',
    explorerUrl: 'https://polygonscan.com',
    logoFolder: 'polygon',
    tokens: [
      token('USDC', 'USD Coin', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 6),
      token('USDT', 'Tether USD', '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', 6),
      native('POL', 'Polygon Ecosystem Token', 18),
      token('ETH', 'Wrapped Ether', '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619', 18),
    ],
  },
  {
    chain: 'arbitrum',
    chainId: 42161,
    name: 'Arbitrum One',
    explorerUrl: 'https://arbiscan.io',
    logoFolder: 'arbitrum',
    tokens: [
      token('USDC', 'USD Coin', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 6),
      token('USDT', 'Tether USD', '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', 6),
      native('ETH', 'Ether', 18),
    ],
  },
  {
    chain: 'avalanche',
    chainId: 43114,
    name: 'Avalanche C-Chain',
    explorerUrl: 'https://snowtrace.io',
    logoFolder: 'avalanchec',
    tokens: [
      token('USDC', 'USD Coin', '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', 6),
      token('USDT', 'Tether USD', '0x9702230A8Ea53601f5cD2dc00fDBc13d4dF4A8c7', 6),
      native('AVAX', 'Avalanche', 18),
    ],
  },
  {
    chain: 'solana',
    /** Solana has no EVM chain id; 101 is the mainnet-beta id of the Solana token-list convention. */
    chainId: 101,
    name: 'Solana',
    explorerUrl: 'https://solscan.io',
    logoFolder: 'solana',
    tokens: [
      token('USDC', 'USD Coin', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 6),
      token('USDT', 'Tether USD', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 6),
      // SOL is identified by the wrapped-SOL mint, the address wallets and aggregators use for native SOL.
      native('SOL', 'Solana', 9, 'So11111111111111111111111111111111111111112'),
    ],
  },
];

/**
 * The seven chains of the spec with their real chain ids, explorers and mainnet token contracts.
 * A token is listed on a chain only where its canonical contract there is known; decimals differ by chain
 * (USDC and USDT have 18 on BNB Smart Chain, 6 elsewhere). Solana, which has no EVM chain id, carries 101 as the
 * Solana token-list convention does. Descriptors are frozen: every caller shares them.
 */
export const CHAINS: readonly ChainDescriptor[] = Object.freeze(CHAIN_ROWS.map(describeChain));

const CHAINS_BY_NAME: ReadonlyMap<string, ChainDescriptor> = new Map(CHAINS.map((descriptor) => [descriptor.chain, descriptor]));

export function isChainName(value: unknown): value is ChainName {
  return typeof value === 'string' && (CHAIN_NAMES as readonly string[]).includes(value);
}

export function getChain(name: ChainName): ChainDescriptor {
  const descriptor = CHAINS_BY_NAME.get(name);
  if (!descriptor) throw new Error(`unknown chain "${name}"`);
  return descriptor;
}

/** The token with exactly this symbol on the chain: symbols are case-sensitive as the spec writes them (`cbBTC`, `CNGN`). */
export function findToken(chain: ChainName, symbol: string): TokenDescriptor | undefined {
  return getChain(chain).tokens.find((t) => t.symbol === symbol);
}

/** EVM tokens' usual precision, for a token a chain does not list (an intermediate token of a route). */
export const DEFAULT_TOKEN_DECIMALS = 18;

/**
 * The decimals of a token on the first of `chains` that lists it (a bridged token may be listed on only one side),
 * else {@link DEFAULT_TOKEN_DECIMALS}. Accepts any chain name; unknown ones list nothing.
 */
export function tokenDecimals(symbol: string, ...chains: string[]): number {
  for (const chain of chains) {
    const token = CHAINS_BY_NAME.has(chain as ChainName) ? findToken(chain as ChainName, symbol) : undefined;
    if (token) return token.decimals;
  }
  return DEFAULT_TOKEN_DECIMALS;
}

export function chainFamily(chain: ChainName): 'evm' | 'solana' {
  return chain === 'solana' ? 'solana' : 'evm';
}
