import { createPublicClient, createWalletClient, custom, http, parseEther, type Address, type PublicClient } from 'viem';
import { mnemonicToAccount, privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { ANVIL_MNEMONIC, AnvilNode } from '@ramp/testing';
import { TestToken } from './artifacts.generated';
import { ALONE_AT_ONCE, BALANCES_PER_CALL, balancesAt } from './balances';
import { CREATE2_DEPLOYER } from './deployment';
import { NATIVE_TOKEN } from './deposit-watcher';

describe('balancesAt - many holders read in a few eth_calls, exactly as one at a time', () => {
  const node = new AnvilNode({ chainId: 84532 });
  const minter = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
  /** JSON-RPC methods sent, one entry per call (a batch counts each of its calls). */
  const methods: string[] = [];
  let client: PublicClient;
  let token: Address;
  // More holders than one eth_call takes, most of them holding nothing.
  const holders: Address[] = Array.from({ length: BALANCES_PER_CALL + 100 }, () => privateKeyToAccount(generatePrivateKey()).address);
  const funded = [0, 1, 70, BALANCES_PER_CALL - 1, BALANCES_PER_CALL, BALANCES_PER_CALL + 99];
  let before: bigint;
  let after: bigint;

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({
      transport: http(node.rpcUrl, {
        onFetchRequest: async (request) => {
          const body = (await request.clone().json()) as { method: string } | { method: string }[];
          methods.push(...(Array.isArray(body) ? body : [body]).map((call) => call.method));
        },
      }),
    }) as PublicClient;
    const wallet = createWalletClient({ account: minter, transport: http(node.rpcUrl) });
    const deployed = await wallet.deployContract({
      abi: TestToken.abi,
      bytecode: TestToken.bytecode,
      args: ['USD Coin', 'USDC', 6, minter.address, minter.address, 0n],
      chain: null,
    });
    token = (await client.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    before = await client.getBlockNumber({ cacheTime: 0 });
    for (const [n, index] of funded.entries()) {
      const hash = await wallet.writeContract({
        address: token,
        abi: TestToken.abi,
        functionName: 'mint',
        args: [holders[index]!, BigInt(n + 1) * 1_000_000n],
        chain: null,
      });
      await client.waitForTransactionReceipt({ hash });
      const sent = await wallet.sendTransaction({ to: holders[index]!, value: parseEther(String(n + 1)), chain: null });
      await client.waitForTransactionReceipt({ hash: sent });
    }
    after = await client.getBlockNumber({ cacheTime: 0 });
  }, 60_000);

  afterAll(async () => {
    await node.stop();
  });

  const oneByOne = (address: Address, blockNumber: bigint) =>
    Promise.all(holders.map((holder) => client.readContract({ address, abi: TestToken.abi, functionName: 'balanceOf', args: [holder], blockNumber })));

  it("reads a token's balances of every holder at a block in two eth_calls (the multicall, run deployless), equal to reading each", async () => {
    methods.length = 0;
    const read = await balancesAt(client, token, holders, after);
    expect(methods.filter((method) => method === 'eth_call')).toHaveLength(2);
    expect(read).toEqual(await oneByOne(token, after));
    expect(funded.map((index) => read[index])).toEqual(funded.map((_, n) => BigInt(n + 1) * 1_000_000n));
    expect(read.filter((units) => units > 0n)).toHaveLength(funded.length);
    // At a block before the mints: what they held then.
    expect(await balancesAt(client, token, holders, before)).toEqual(holders.map(() => 0n));
  });

  it('reads the native coin by eth_getBalance, a token not deployed at the block as nothing, and one holder without the multicall', async () => {
    const native = await balancesAt(client, NATIVE_TOKEN, holders, after);
    expect(funded.map((index) => native[index])).toEqual(funded.map((_, n) => parseEther(String(n + 1))));
    expect(native.filter((units) => units > 0n)).toHaveLength(funded.length);
    expect(await balancesAt(client, token, holders.slice(0, 3), before - 1n)).toEqual([0n, 0n, 0n]);
    methods.length = 0;
    expect(await balancesAt(client, token, [holders[0]!], after)).toEqual([1_000_000n]);
    expect(methods).toEqual(['eth_getCode', 'eth_call']);
    expect(await balancesAt(client, token, [], after)).toEqual([]);
  });

  it('asks each holder alone, a few at a time, when the node refuses the multicall: the same balances, never a burst', async () => {
    // A node that takes no eth_call without `to` (a deployless call is one), as some providers do.
    let inFlight = 0;
    let most = 0;
    let refused = 0;
    const refusing = createPublicClient({
      transport: custom(
        {
          async request({ method, params }) {
            if (method === 'eth_call' && !(params as [{ to?: string }])[0].to) {
              refused += 1;
              throw new Error('eth_call: a call without `to` is not served here');
            }
            inFlight += 1;
            most = Math.max(most, inFlight);
            try {
              return await node.rpc(method, params as unknown[]);
            } finally {
              inFlight -= 1;
            }
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
    expect(await balancesAt(refusing, token, holders, after)).toEqual(await oneByOne(token, after));
    expect(refused).toBe(2);
    // Before, all 250 at once.
    expect(most).toBeLessThanOrEqual(ALONE_AT_ONCE);
  });

  it('fails, never answers 0, when a contract cannot say a balance', async () => {
    // The deterministic deployment proxy has code but no balanceOf.
    await expect(balancesAt(client, CREATE2_DEPLOYER, holders.slice(0, 3), after)).rejects.toThrow();
  });
});
