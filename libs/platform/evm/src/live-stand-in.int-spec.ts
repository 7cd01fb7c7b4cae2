import { createPublicClient, createWalletClient, getAddress, http, parseUnits, zeroAddress, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { liveChainData } from '@ramp/chains';
import { ANVIL_MNEMONIC, AnvilNode } from '@ramp/testing';
import { TestToken, UniswapV2Factory, UniswapV2Router02 } from './artifacts.generated';
import { REHEARSAL_END_USER, REHEARSAL_FUNDING, standInLiveChain } from './live-stand-in';

/**
 * The live rehearsal's chains (LIVE.md section 4): an anvil node given the live configuration's chain id carries its
 * third-party contracts at their mainnet addresses, the DEX's pools seeded at the sandbox prices, and the end user's
 * tokens; stood in again, it sends nothing.
 */
describe('live stand-in - a local node carrying a live chain at its mainnet addresses', () => {
  const operator = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 });
  const endUser = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 7 });
  const nodes: AnvilNode[] = [];

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  });

  it.each([
    ['base', 8453, undefined, 'USDC', 'ETH'],
    ['bsc', 56, getAddress('0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c'), 'USDT', 'BNB'],
  ] as const)(
    'stands in for %s: the router prices at the sandbox prices through pairs its factory names, and the end user holds every token',
    async (chain, chainId, wrappedNative, hub, native) => {
      const node = new AnvilNode({ chainId });
      nodes.push(node);
      await node.start();
      const client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
      const data = liveChainData(chain)!;
      const options = {
        operator: createWalletClient({ account: operator, transport: http(node.rpcUrl) }),
        rpc: (method: string, params: unknown[]) => node.rpc(method, params),
        wrappedNative,
        funded: [REHEARSAL_FUNDING],
      };
      // The end user starts with none of the coin (anvil gives its accounts 10,000): the stand-in gives it its 10.
      expect(endUser.address).toBe(REHEARSAL_END_USER);
      await node.rpc('anvil_setBalance', [REHEARSAL_END_USER, '0x0']);
      const stoodIn = await standInLiveChain(client, data, options);
      const token = (symbol: string) => getAddress(data.tokens.find((candidate) => candidate.symbol === symbol)!.address);
      const decimals = (symbol: string) => data.tokens.find((candidate) => candidate.symbol === symbol)!.decimals;

      expect(stoodIn.wrappedNative).toBe(getAddress(data.wrappedNative?.address ?? wrappedNative!));
      expect(await client.readContract({ address: getAddress(data.dex.router.address), abi: UniswapV2Router02.abi, functionName: 'WETH' })).toBe(
        stoodIn.wrappedNative,
      );
      // The factory names each pool's pair (as the chain service asks it), and 1,000 of the hub buys what the sandbox
      // prices say, less the pool's 0.3% and a thousandth of price impact.
      for (const symbol of [...data.tokens.map((candidate) => candidate.symbol).filter((symbol) => symbol !== hub), native]) {
        const address = symbol === native ? stoodIn.wrappedNative : token(symbol);
        const pair = await client.readContract({
          address: getAddress(data.dex.factory.address),
          abi: UniswapV2Factory.abi,
          functionName: 'getPair',
          args: [address, token(hub)],
        });
        expect(pair).not.toBe(zeroAddress);
        expect(getAddress(pair)).toBe(stoodIn.dex.pairs[symbol]);
      }
      const out = await client.readContract({
        address: getAddress(data.dex.router.address),
        abi: UniswapV2Router02.abi,
        functionName: 'getAmountsOut',
        args: [parseUnits('1000', decimals(hub)), [token(hub), token('CNGN')]],
      });
      // 1,000 dollars at 1,500 NGN each, less 0.3%, less the impact of a two-thousandth of the pool.
      const fair = (1_500_000n * 10n ** 6n * 997n) / 1000n;
      expect(out[1]).toBeLessThan(fair);
      expect(out[1]).toBeGreaterThan((fair * 999n) / 1000n);

      for (const { symbol, decimals: places } of data.tokens) {
        expect(await client.readContract({ address: token(symbol), abi: TestToken.abi, functionName: 'balanceOf', args: [REHEARSAL_END_USER] })).toBe(
          parseUnits('100000', places),
        );
      }
      expect(await client.getBalance({ address: REHEARSAL_END_USER })).toBe(parseUnits('10', 18));

      // Again, on the same node: nothing is sent, nothing changes.
      const nonce = await client.getTransactionCount({ address: operator.address });
      expect(await standInLiveChain(client, data, options)).toEqual(stoodIn);
      expect(await client.getTransactionCount({ address: operator.address })).toBe(nonce);

      // The end user spends 1,000 CNGN: the next run mints it exactly that back, in one transaction, and seeds nothing.
      const spent = await createWalletClient({ account: endUser, transport: http(node.rpcUrl) }).writeContract({
        chain: null,
        address: token('CNGN'),
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [operator.address, parseUnits('1000', decimals('CNGN'))],
      });
      expect((await client.waitForTransactionReceipt({ hash: spent })).status).toBe('success');
      await standInLiveChain(client, data, options);
      expect(await client.getTransactionCount({ address: operator.address })).toBe(nonce + 1);
      expect(await client.readContract({ address: token('CNGN'), abi: TestToken.abi, functionName: 'balanceOf', args: [REHEARSAL_END_USER] })).toBe(
        parseUnits('100000', decimals('CNGN')),
      );
    },
  );
});
