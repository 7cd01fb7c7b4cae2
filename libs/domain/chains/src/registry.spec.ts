import { isValidSolanaAddress, toChecksumAddress } from './addresses';
import { CHAIN_NAMES, CHAINS, chainFamily, EVM_NATIVE_ADDRESS, findToken, getChain, isChainName, PRIMARY_CHAINS } from './registry';

const LOGOS = 'https://raw.githubusercontent.com/trustwallet/assets/master/blockchains';

describe('the chain registry', () => {
  it('lists the seven chains of the spec in order, with their real chain ids and explorers', () => {
    expect(CHAINS.map((c) => [c.chain, c.chainId, c.explorerUrl])).toEqual([
      ['base', 8453, 'https://basescan.org'],
      ['bsc', 56, 'https://bscscan.com'],
      ['ethereum', 1, 'https://etherscan.io'],
      ['polygon', 137, 'https://polygonscan.com'],
      ['arbitrum', 42161, 'https://arbiscan.io'],
      ['avalanche', 43114, 'https://snowtrace.io'],
      ['solana', 101, 'https://solscan.io'],
    ]);
    expect(CHAINS.map((c) => c.chain)).toEqual([...CHAIN_NAMES]);
  });

  it('marks base and bsc primary and the others secondary', () => {
    expect(CHAINS.filter((c) => c.type === 'primary').map((c) => c.chain)).toEqual([...PRIMARY_CHAINS]);
    expect(CHAINS.filter((c) => c.type === 'secondary')).toHaveLength(5);
  });

  it.each([
    ['base', ['CNGN', 'USDC', 'USDT', 'ETH', 'cbBTC']],
    ['bsc', ['CNGN', 'USDT', 'USDC', 'BNB', 'ETH']],
    ['ethereum', ['USDC', 'USDT', 'ETH', 'cbBTC']],
    ['polygon', ['USDC', 'USDT', 'POL', 'ETH']],
    ['arbitrum', ['USDC', 'USDT', 'ETH']],
    ['avalanche', ['USDC', 'USDT', 'AVAX']],
    ['solana', ['USDC', 'USDT', 'SOL']],
  ] as const)('offers on %s the tokens %j', (chain, symbols) => {
    expect(getChain(chain).tokens.map((t) => t.symbol)).toEqual(symbols);
  });

  it('offers every off-ramp token of the spec on a primary chain', () => {
    for (const symbol of ['CNGN', 'USDC', 'ETH', 'cbBTC', 'BNB', 'USDT']) {
      expect(PRIMARY_CHAINS.filter((chain) => findToken(chain, symbol))).not.toHaveLength(0);
    }
  });

  it('gives each token its chain, an EIP-55 checksummed contract or a valid Solana mint', () => {
    for (const descriptor of CHAINS) {
      for (const t of descriptor.tokens) {
        expect(t.chain).toBe(descriptor.chain);
        if (descriptor.chain === 'solana') expect(isValidSolanaAddress(t.contractAddress)).toBe(true);
        else expect(toChecksumAddress(t.contractAddress)).toBe(t.contractAddress);
      }
    }
  });

  it('uses the conventional address and the chain logo for EVM native coins', () => {
    for (const [chain, symbol, folder] of [
      ['base', 'ETH', 'base'],
      ['bsc', 'BNB', 'smartchain'],
      ['ethereum', 'ETH', 'ethereum'],
      ['polygon', 'POL', 'polygon'],
      ['arbitrum', 'ETH', 'arbitrum'],
      ['avalanche', 'AVAX', 'avalanchec'],
    ] as const) {
      expect(findToken(chain, symbol)).toMatchObject({
        contractAddress: EVM_NATIVE_ADDRESS,
        decimals: 18,
        logoUrl: `${LOGOS}/${folder}/info/logo.png`,
      });
    }
    expect(findToken('solana', 'SOL')).toMatchObject({
      contractAddress: 'So11111111111111111111111111111111111111112',
      decimals: 9,
      logoUrl: `${LOGOS}/solana/info/logo.png`,
    });
  });

  it('points token logos at the asset folder of their contract', () => {
    expect(findToken('bsc', 'USDT')?.logoUrl).toBe(`${LOGOS}/smartchain/assets/0x55d398326f99059fF775485246999027B3197955/logo.png`);
    expect(findToken('solana', 'USDC')?.logoUrl).toBe(`${LOGOS}/solana/assets/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/logo.png`);
  });

  it.each([
    ['base', 'USDC', 6],
    ['bsc', 'USDC', 18],
    ['bsc', 'USDT', 18],
    ['base', 'CNGN', 6],
    ['bsc', 'CNGN', 6],
    ['base', 'cbBTC', 8],
    ['ethereum', 'USDT', 6],
    ['solana', 'USDT', 6],
  ] as const)('knows %s %s has %i decimals', (chain, symbol, decimals) => {
    expect(findToken(chain, symbol)?.decimals).toBe(decimals);
  });

  it('finds tokens by their exact symbol only', () => {
    expect(findToken('base', 'cbBTC')?.name).toBe('Coinbase Wrapped BTC');
    expect(findToken('base', 'CBBTC')).toBeUndefined();
    expect(findToken('base', 'cngn')).toBeUndefined();
    expect(findToken('base', 'BNB')).toBeUndefined();
  });

  it('refuses changes, since every caller shares the descriptors', () => {
    expect(() => getChain('base').tokens.push(getChain('bsc').tokens[0])).toThrow(TypeError);
    expect(() => {
      getChain('base').tokens[0].decimals = 18;
    }).toThrow(TypeError);
  });
});

describe('chain names', () => {
  it.each(['base', 'bsc', 'solana'])('recognises %s', (name) => {
    expect(isChainName(name)).toBe(true);
  });

  it.each(['Base', 'BSC', 'bnb', 'tron', '', 8453, null, undefined])('does not recognise %p', (value) => {
    expect(isChainName(value)).toBe(false);
  });

  it('puts solana alone in its family', () => {
    expect(CHAIN_NAMES.filter((chain) => chainFamily(chain) === 'solana')).toEqual(['solana']);
  });
});

describe('tokenDecimals', () => {
  const { tokenDecimals } = jest.requireActual('./registry') as typeof import('./registry');

  it('reads the first chain that lists the token, else 18', () => {
    expect(tokenDecimals('USDC', 'base')).toBe(6);
    expect(tokenDecimals('USDC', 'bsc')).toBe(18);
    // CNGN is not listed on arbitrum: the source chain's listing decides.
    expect(tokenDecimals('CNGN', 'arbitrum', 'base')).toBe(6);
    expect(tokenDecimals('NOPE', 'base', 'tron')).toBe(18);
  });
});
