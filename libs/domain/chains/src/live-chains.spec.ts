import { toChecksumAddress } from './addresses';
import { LIVE_CHAINS, liveChainData, PRIMARY_PUBLISHERS, type LiveContract } from './live-chains';
import { EVM_NATIVE_ADDRESS, getChain, PRIMARY_CHAINS } from './registry';

/** Every contract of a chain's live data, by what it is for. */
function contractsOf(chain: (typeof LIVE_CHAINS)[number]): [string, LiveContract][] {
  return [
    ...chain.tokens.map((token): [string, LiveContract] => [`tokens.${token.symbol}`, token]),
    ...(chain.wrappedNative ? [['wrappedNative', chain.wrappedNative] as [string, LiveContract]] : []),
    ['dex.factory', chain.dex.factory],
    ['dex.router', chain.dex.router],
    ['entryPoint', chain.entryPoint],
  ];
}

describe('live chains - the committed configuration of base and bsc', () => {
  it('covers exactly the primary chains, at their mainnet chain ids', () => {
    expect(LIVE_CHAINS.map((chain) => [chain.chain, chain.chainId])).toEqual([
      ['base', 8453],
      ['bsc', 56],
    ]);
    expect(LIVE_CHAINS.map((chain) => chain.chain)).toEqual([...PRIMARY_CHAINS]);
    expect(liveChainData('bsc')?.chainId).toBe(56);
    expect(liveChainData('ethereum')).toBeUndefined();
  });

  it('writes every address checksummed (EIP-55), and none is the zero address or the native stand-in', () => {
    for (const chain of LIVE_CHAINS)
      for (const [name, contract] of contractsOf(chain)) {
        expect([`${chain.chain} ${name}`, contract.address]).toEqual([`${chain.chain} ${name}`, toChecksumAddress(contract.address)]);
        expect(contract.address).not.toMatch(/^0x0{40}$/);
        expect(contract.address.toLowerCase()).not.toBe(EVM_NATIVE_ADDRESS.toLowerCase());
      }
  });

  it("names beside every address its issuer's or protocol's own page, over https, from a publisher listed as primary", () => {
    for (const chain of LIVE_CHAINS)
      for (const [name, contract] of contractsOf(chain)) {
        const url = new URL(contract.source);
        expect([`${chain.chain} ${name}`, url.protocol]).toEqual([`${chain.chain} ${name}`, 'https:']);
        const publisher = PRIMARY_PUBLISHERS.find((prefix) => contract.source.startsWith(prefix));
        expect([`${chain.chain} ${name}`, publisher]).toEqual([`${chain.chain} ${name}`, expect.any(String)]);
      }
  });

  it('gives each token once, with the decimals of its contract (USDC and USDT have 18 on bsc)', () => {
    for (const chain of LIVE_CHAINS) {
      const symbols = chain.tokens.map((token) => token.symbol);
      expect(new Set(symbols).size).toBe(symbols.length);
      expect(symbols).not.toContain(chain.native.symbol);
      for (const token of chain.tokens) expect(Number.isInteger(token.decimals) && token.decimals >= 0 && token.decimals <= 36).toBe(true);
    }
    const decimals = (chain: string, symbol: string) => liveChainData(chain)?.tokens.find((token) => token.symbol === symbol)?.decimals;
    expect(decimals('base', 'USDC')).toBe(6);
    for (const symbol of ['USDC', 'USDT']) if (decimals('bsc', symbol) !== undefined) expect(decimals('bsc', symbol)).toBe(18);
    expect(liveChainData('base')!.native).toEqual({ symbol: 'ETH', decimals: 18 });
    expect(liveChainData('bsc')!.native).toEqual({ symbol: 'BNB', decimals: 18 });
  });

  it("routes each chain's swaps through a stablecoin it offers (the DEX's hub)", () => {
    for (const chain of LIVE_CHAINS) expect([chain.chain, chain.tokens.some((token) => token.symbol === chain.dex.hub)]).toEqual([chain.chain, true]);
    expect(LIVE_CHAINS.map((chain) => chain.dex.hub)).toEqual(['USDC', 'USDT']);
  });

  it("agrees with the chains list: a token offered live is at the registry's address and decimals; one the registry lists and live data does not is withheld with a reason", () => {
    for (const chain of LIVE_CHAINS) {
      const listed = getChain(chain.chain).tokens.filter((token) => token.contractAddress !== EVM_NATIVE_ADDRESS);
      for (const token of chain.tokens) {
        const entry = listed.find((candidate) => candidate.symbol === token.symbol);
        expect([chain.chain, token.symbol, entry?.contractAddress, entry?.decimals]).toEqual([chain.chain, token.symbol, token.address, token.decimals]);
      }
      const offered = new Set(chain.tokens.map((token) => token.symbol));
      const withheld = new Set(chain.withheld.map((entry) => entry.symbol));
      expect(chain.wrappedNative !== undefined).toBe(!withheld.has(`W${chain.native.symbol}`));
      for (const token of listed)
        expect([chain.chain, token.symbol, offered.has(token.symbol) !== withheld.has(token.symbol)]).toEqual([chain.chain, token.symbol, true]);
      for (const entry of chain.withheld) expect(entry.reason.length).toBeGreaterThan(20);
    }
  });
});
