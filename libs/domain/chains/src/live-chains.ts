import type { PrimaryChainName } from './registry';

/**
 * The live configuration of the primary chains, committed as data (LIVE.md section 3, issue 28): every third-party
 * contract a live key's money can touch, each beside the page where its issuer or protocol publishes that address.
 * A token whose address no primary source confirms is not here, and so is never offered to live keys (`withheld` says
 * why): a guessed address loses funds. Checked by live-chains.spec.ts (checksums, sources, decimals, no test-chain
 * address).
 */

/** A contract of a live chain and where its address is published (its issuer's or protocol's own page). */
export interface LiveContract {
  /** EIP-55 checksummed. */
  address: string;
  source: string;
}

export interface LiveToken extends LiveContract {
  symbol: string;
  decimals: number;
}

export interface LiveChainData {
  chain: PrimaryChainName;
  chainId: number;
  explorerUrl: string;
  /** The chain's own coin (no contract). */
  native: { symbol: string; decimals: number };
  /** The ERC-20 wrapping of the native coin, the DEX's route for it; absent where no primary source confirms it. */
  wrappedNative?: LiveToken;
  /** The tokens live keys may use on the chain, native coin aside. */
  tokens: readonly LiveToken[];
  /**
   * The chain's DEX: a Uniswap V2 interface (the router's `swapExactTokensForTokens` family, the factory's `getPair`).
   * Its pools are not listed: the chain service asks the factory for the pair of each offered token with the hub (one
   * of `tokens`, the stablecoin every route passes through) when it takes the chain up, and a token without one is not
   * swapped there.
   */
  dex: { name: string; factory: LiveContract; router: LiveContract; hub: string };
  /** ERC-4337 EntryPoint v0.7, the smart accounts' (CHAIN.md section 5). */
  entryPoint: LiveContract;
  /** What the registry lists (or the chain would need) that is not offered live, and why. */
  withheld: readonly { symbol: string; reason: string }[];
}

/**
 * The publishers whose own pages may confirm an address here: the issuers (Circle, the cNGN issuer WrappedCBDC, BNB
 * Chain for the Binance-Peg tokens it lists), the chains (Base, the OP Stack's specification) and the DEXes (Uniswap,
 * PancakeSwap). A third party's list, an explorer or an aggregator never is.
 */
export const PRIMARY_PUBLISHERS = [
  'https://developers.circle.com/',
  'https://github.com/wrappedcbdc/stablecoin-cngn',
  'https://github.com/bnb-chain/opbnb-bridge-tokens',
  'https://docs.base.org/',
  'https://specs.optimism.io/',
  'https://docs.uniswap.org/',
  'https://developer.pancakeswap.finance/',
] as const;

/** Circle's table of USDC's contracts, the Base row. */
const CIRCLE_USDC = 'https://developers.circle.com/stablecoins/usdc-contract-addresses';
/** The cNGN issuer's repository, its README's "Mainnets" table (BASE, BNBCHAIN); `Cngn.sol` returns 6 decimals. */
const CNGN = 'https://github.com/wrappedcbdc/stablecoin-cngn';
/** BNB Chain's token data for the Binance-Peg tokens (`data/<symbol>/data.json`, address and decimals). */
const BNB_CHAIN_TOKENS = 'https://github.com/bnb-chain/opbnb-bridge-tokens';
/**
 * The OP Stack's preinstalls, "ERC-4337 v0.7.0 EntryPoint": the same address on every chain, since it is deployed by
 * the deterministic deployment proxy from the published v0.7.0 code (CREATE2), as the local chains deploy it.
 */
const ENTRY_POINT_V07 = 'https://specs.optimism.io/protocol/preinstalls.html';

export const LIVE_CHAINS: readonly LiveChainData[] = Object.freeze([
  {
    chain: 'base',
    chainId: 8453,
    explorerUrl: 'https://basescan.org',
    native: { symbol: 'ETH', decimals: 18 },
    // Base's predeploys table, "WETH9".
    wrappedNative: {
      symbol: 'WETH',
      decimals: 18,
      address: '0x4200000000000000000000000000000000000006',
      source: 'https://docs.base.org/base-chain/specs/protocol/execution/evm/predeploys',
    },
    tokens: [
      { symbol: 'CNGN', decimals: 6, address: '0x46C85152bFe9f96829aA94755D9f915F9B10EF5F', source: CNGN },
      { symbol: 'USDC', decimals: 6, address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', source: CIRCLE_USDC },
    ],
    // Uniswap's v2 deployments table, the Base row (written there in lower case).
    dex: {
      name: 'Uniswap V2',
      hub: 'USDC',
      factory: {
        address: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
        source: 'https://docs.uniswap.org/contracts/v2/reference/smart-contracts/v2-deployments',
      },
      router: {
        address: '0x4752ba5DBc23f44D87826276BF6Fd6b1C372aD24',
        source: 'https://docs.uniswap.org/contracts/v2/reference/smart-contracts/v2-deployments',
      },
    },
    entryPoint: { address: '0x0000000071727De22E5E9d8BAf0edAc6f37da032', source: ENTRY_POINT_V07 },
    withheld: [
      { symbol: 'USDT', reason: "Tether's own list of supported networks has no Base; the USDT on Base is a bridged token no issuer publishes" },
      { symbol: 'cbBTC', reason: 'no page of Coinbase giving its address on Base was found; third-party lists are not a source' },
    ],
  },
  {
    chain: 'bsc',
    chainId: 56,
    explorerUrl: 'https://bscscan.com',
    native: { symbol: 'BNB', decimals: 18 },
    tokens: [
      { symbol: 'CNGN', decimals: 6, address: '0xa8AEA66B361a8d53e8865c62D142167Af28Af058', source: CNGN },
      // Binance-Peg BSC-USD: issued by Binance, not Tether (Tether lists no BNB Smart Chain). 18 decimals.
      { symbol: 'USDT', decimals: 18, address: '0x55d398326f99059fF775485246999027B3197955', source: BNB_CHAIN_TOKENS },
      // Binance-Peg Ether.
      { symbol: 'ETH', decimals: 18, address: '0x2170Ed0880ac9A755fd29B2688956BD959F933F8', source: BNB_CHAIN_TOKENS },
    ],
    // PancakeSwap's v2 addresses, the BSC rows.
    dex: {
      name: 'PancakeSwap V2',
      // Circle issues no USDC here: the Binance-Peg BSC-USD is the stablecoin the routes pass through.
      hub: 'USDT',
      factory: { address: '0xcA143Ce32Fe78f1f7019d7d551a6402fC5350c73', source: 'https://developer.pancakeswap.finance/contracts/v2/addresses' },
      router: { address: '0x10ED43C718714eb63d5aA57B78B54704E256024E', source: 'https://developer.pancakeswap.finance/contracts/v2/addresses' },
    },
    entryPoint: { address: '0x0000000071727De22E5E9d8BAf0edAc6f37da032', source: ENTRY_POINT_V07 },
    withheld: [
      { symbol: 'USDC', reason: 'Circle issues no USDC on BNB Smart Chain, and no page of Binance giving the Binance-Peg USDC address was found' },
      {
        symbol: 'WBNB',
        reason: "no page of BNB Chain or Binance giving its address was found: the DEX's router names it (WETH()), to be read from the router on chain",
      },
    ],
  },
] satisfies LiveChainData[]);

/** The live configuration of `chain`, or undefined for a chain that is not run live. */
export function liveChainData(chain: string): LiveChainData | undefined {
  return LIVE_CHAINS.find((data) => data.chain === chain);
}
