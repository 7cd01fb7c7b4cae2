import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Pool } from 'pg';
import {
  createPublicClient,
  createWalletClient,
  custom,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  pad,
  parseEther,
  parseEventLogs,
  toHex,
  type Address,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, AnvilNode, TEST_DATABASE_URL } from '@ramp/testing';
import type { Finality } from './chain-settings';
import { HdCustody, evmPath } from './custody';
import { deployPlatformContracts, depositAddressOf, depositSalt, platformContractAddresses, type PlatformContracts } from './deployment';
import { DepositWatcher, depositWatcherMigration, NATIVE_TOKEN, type Deposit } from './deposit-watcher';
import { SendQueue, sendQueueMigration, type ChainLogger, type SendRecord } from './send-queue';
import { Forwarder, ForwarderFactory, TestToken } from './artifacts.generated';

const CHAIN_ID = 84532;

const lines: { level: string; message: string; fields: object }[] = [];
const logger: ChainLogger = {
  info: (fields, message) => lines.push({ level: 'info', message, fields }),
  warn: (fields, message) => lines.push({ level: 'warn', message, fields }),
  error: (fields, message) => lines.push({ level: 'error', message, fields }),
};

describe('evm - contracts, custody, the send queue and the deposit watcher on a real anvil node', () => {
  const schema = `evm_test_${Date.now().toString(36)}`;
  // A state file, so the node stopped and started again (an RPC outage) keeps its chain.
  const node = new AnvilNode({ chainId: CHAIN_ID, statePath: join(mkdtempSync(join(tmpdir(), 'evm-test-')), 'state.json') });
  const faucetAccount = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 });
  const outsider = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 1 });
  const custody = HdCustody.development();
  const hot = custody.signer(evmPath("m/44'/60'/1'/0/0"));
  let pool: Pool;
  let client: PublicClient;
  let contracts: PlatformContracts;
  const spec = {
    tokens: [
      { symbol: 'USDC', name: 'USD Coin', decimals: 6 },
      { symbol: 'CNGN', name: 'Compliant Naira', decimals: 6 },
    ],
    wrappedNative: { symbol: 'WETH', name: 'Wrapped Ether', native: 'ETH' },
    faucet: faucetAccount.address,
    hotWallet: hot.address,
    // Pools are pools.int-spec.ts's subject.
    pools: { provider: faucetAccount.address, hub: 'USDC', pools: [] },
  };
  const credited: Deposit[] = [];
  const reversed: Deposit[] = [];
  const finished: SendRecord[] = [];
  /** Blocks the node seen through `lagging` is behind the real one: a lagging node behind a load balancer. */
  let lag = 0n;

  const wallet = (account = faucetAccount) => createWalletClient({ account, transport: http(node.rpcUrl) });
  const queue = (options: Partial<ConstructorParameters<typeof SendQueue>[0]> = {}) =>
    new SendQueue({
      schema,
      pool,
      chain: 'base',
      chainId: CHAIN_ID,
      client,
      signer: hot,
      confirmations: 1,
      stuckAfterMs: 60_000,
      maxFeePerGas: parseEther('0.001'),
      logger,
      onFinished: async (_tx, send) => void finished.push(send),
      ...options,
    });
  const watcher = (confirmations = 2, through: PublicClient = client, finality: Finality = 'depth') =>
    new DepositWatcher({
      schema,
      pool,
      chain: 'base',
      client: through,
      finality,
      tokens: Object.values(contracts.tokens),
      native: true,
      confirmations,
      startBlock: 1n,
      logger,
      onCredit: async (_tx, deposit) => void credited.push(deposit),
      onReversed: async (_tx, deposit) => void reversed.push(deposit),
    });
  /**
   * The node as a lagging replica behind a load balancer answers: its head `lag` blocks behind, and no block above
   * that (null, as a node answers for a block it does not have).
   */
  const lagging = () =>
    createPublicClient({
      transport: custom({
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          const answer = await node.rpc(method, params ?? []);
          if (lag === 0n) return answer;
          const head = BigInt(await node.rpc('eth_blockNumber', []));
          if (method === 'eth_blockNumber') return toHex(head - lag);
          if (method === 'eth_getBlockByNumber' && typeof params?.[0] === 'string' && params[0].startsWith('0x') && BigInt(params[0]) > head - lag) return null;
          return answer;
        },
      }),
    }) as PublicClient;
  const mint = async (to: Address, amount: bigint, token = contracts.tokens.USDC) => {
    const hash = await wallet().writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'mint', args: [to, amount] });
    return client.waitForTransactionReceipt({ hash });
  };
  const balanceOf = (address: Address, token = contracts.tokens.USDC) =>
    client.readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [address] });
  const mine = (blocks = 1) => node.rpc('anvil_mine', [`0x${blocks.toString(16)}`]);

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({ transport: http(node.rpcUrl) });
    pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 5 });
    for (const statement of [...sendQueueMigration(schema), ...depositWatcherMigration(schema)]) await pool.query(statement);
    contracts = await deployPlatformContracts(client, wallet(), spec, parseEther('10'));
  }, 60_000);

  afterAll(async () => {
    await pool?.query(`drop schema if exists ${schema} cascade`);
    await pool?.end();
    await node.stop();
  });

  it('deploys at the addresses computed beforehand, with the real decimals, and a second run sends nothing', async () => {
    expect(contracts).toEqual(platformContractAddresses(spec));
    expect(await client.readContract({ address: contracts.tokens.USDC, abi: TestToken.abi, functionName: 'decimals' })).toBe(6);
    const nonce = await client.getTransactionCount({ address: faucetAccount.address });
    expect(await deployPlatformContracts(client, wallet(), spec, parseEther('10'))).toEqual(contracts);
    expect(await client.getTransactionCount({ address: faucetAccount.address })).toBe(nonce);
    expect(await client.getBalance({ address: hot.address })).toBeGreaterThanOrEqual(parseEther('10'));
  });

  it('sends once per idempotency key, confirmed with a successful receipt and its gas cost', async () => {
    const q = queue();
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 0n] });
    const first = await q.enqueue(pool, 'tx_1:pay', { to: contracts.tokens.USDC, data });
    const again = await q.enqueue(pool, 'tx_1:pay', { to: contracts.tokens.USDC, data });
    expect(again.id).toBe(first.id);
    const before = await client.getTransactionCount({ address: hot.address });
    await q.tick();
    await q.tick();
    const sent = await q.find('tx_1:pay');
    expect(sent).toMatchObject({ status: 'confirmed', nonce: BigInt(before), attempts: [sent?.txHash] });
    expect(sent?.gasCost).toBeGreaterThan(0n);
    expect((await client.getTransactionReceipt({ hash: sent!.txHash! })).status).toBe('success');
    expect(await client.getTransactionCount({ address: hot.address })).toBe(before + 1);
    expect(finished.filter((send) => send.idempotencyKey === 'tx_1:pay')).toHaveLength(1);
  });

  it('a send that would revert fails with the reason and uses no nonce', async () => {
    const q = queue();
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [hot.address, 1n] });
    await q.enqueue(pool, 'tx_2:mint', { to: contracts.tokens.USDC, data });
    const nonce = await client.getTransactionCount({ address: hot.address });
    await q.tick();
    expect(await q.find('tx_2:mint')).toMatchObject({ status: 'failed', error: `NotMinter(${hot.address})` });
    expect(await client.getTransactionCount({ address: hot.address })).toBe(nonce);
  });

  it('a send the wallet cannot pay for waits without failing and without holding up the sends after it, with one alert saying what to do', async () => {
    const q = queue();
    const balance = await client.getBalance({ address: hot.address });
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 0n] });
    const alerts = () => lines.filter((line) => line.message.startsWith('send waits: the hot wallet')).length;
    const before = alerts();
    await q.enqueue(pool, 'tx_broke:coin', { to: outsider.address, value: balance + parseEther('1') });
    await q.enqueue(pool, 'tx_broke:after', { to: contracts.tokens.USDC, data });
    await q.tick();
    await q.tick();
    await q.tick();
    expect(await q.find('tx_broke:coin')).toMatchObject({ status: 'queued', attempts: [] });
    expect(await q.find('tx_broke:after')).toMatchObject({ status: 'confirmed' });
    // One alert, not one a pass; any replica's caller reads why the send waits.
    expect(alerts()).toBe(before + 1);
    const reason = /^the hot wallet 0x[0-9a-fA-F]{40} cannot pay for its sends on base \(value and gas\): fund it with the chain's native coin$/;
    expect(await q.waiting()).toMatch(reason);
    // The replica running the queue answers from its last pass; any other reads what that replica recorded. Told apart
    // by a record that says something else: the runner does not read it, another replica does.
    const recorded = async () =>
      (await pool.query<{ waiting: string }>(`select waiting from ${schema}.chain_senders where chain = 'base' and address = $1`, [hot.address])).rows[0]!
        .waiting;
    expect(await recorded()).toMatch(reason);
    await pool.query(`update ${schema}.chain_senders set waiting = 'recorded elsewhere' where chain = 'base' and address = $1`, [hot.address]);
    expect(await q.waiting()).toMatch(reason);
    expect(await queue().waiting()).toBe('recorded elsewhere');
    // Once the wallet can pay, it goes.
    await node.rpc('anvil_setBalance', [hot.address, `0x${(balance + parseEther('5')).toString(16)}`]);
    await q.tick();
    await q.tick();
    expect(await q.find('tx_broke:coin')).toMatchObject({ status: 'confirmed' });
  });

  it('a send reverted on chain fails with the reason read from its block', async () => {
    await mint(hot.address, 1_000_000n);
    const q = queue();
    const all = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 1_000_000n] });
    await node.rpc('evm_setAutomine', [false]);
    try {
      await q.enqueue(pool, 'tx_3:all', { to: contracts.tokens.USDC, data: all });
      await q.tick(); // estimated on a balance that is there, signed, broadcast
      // The balance goes before the block is mined (OpenZeppelin's ERC20 keeps balances in slot 0).
      const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [hot.address, 0n]));
      await node.rpc('anvil_setStorageAt', [contracts.tokens.USDC, slot, pad('0x0')]);
      await mine();
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    await q.tick();
    const sent = await q.find('tx_3:all');
    expect(sent).toMatchObject({ status: 'failed', error: `ERC20InsufficientBalance(${hot.address}, 0, 1000000)` });
    expect((await client.getTransactionReceipt({ hash: sent!.txHash! })).status).toBe('reverted');
    expect(sent?.gasCost).toBeGreaterThan(0n);
    expect(finished.filter((send) => send.idempotencyKey === 'tx_3:all')).toHaveLength(1);
  });

  it('a recorded send the node never got (the process died before broadcasting) is broadcast again and mined once', async () => {
    const q = queue();
    await node.rpc('evm_setAutomine', [false]);
    try {
      await q.enqueue(pool, 'tx_4:lost', { to: outsider.address, value: 1n });
      await q.tick();
      const pending = await q.find('tx_4:lost');
      await node.rpc('anvil_dropTransaction', [pending!.txHash]);
      expect(await client.getTransaction({ hash: pending!.txHash! }).catch(() => null)).toBeNull();
      await q.tick();
      await mine();
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    await q.tick();
    const sent = await q.find('tx_4:lost');
    expect(sent).toMatchObject({ status: 'confirmed', attempts: [sent?.txHash] });
  });

  it('halts on a nonce the chain and the queue disagree on (another signer of the key): nothing signed, one alert with the reason, until they agree', async () => {
    const q = queue();
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 0n] });
    await q.enqueue(pool, 'tx_nonce:before', { to: contracts.tokens.USDC, data });
    await q.tick();
    await q.tick();
    expect(q.haltedReason).toBeUndefined();
    // Someone else signs with the hot wallet's key, outside the queue: the chain's nonce moves past the queue's.
    const fees = await client.estimateFeesPerGas();
    const nonce = await client.getTransactionCount({ address: hot.address, blockTag: 'pending' });
    const foreign = await hot.signTransaction({ chainId: CHAIN_ID, type: 'eip1559', nonce, to: outsider.address, value: 1n, gas: 21_000n, ...fees });
    await client.waitForTransactionReceipt({ hash: await client.sendRawTransaction({ serializedTransaction: foreign }) });
    const alerts = () => lines.filter((line) => line.level === 'error' && line.message === "send queue halted: its nonce and the chain's disagree").length;
    const before = alerts();
    await q.enqueue(pool, 'tx_nonce:after', { to: contracts.tokens.USDC, data });
    await q.tick();
    await q.tick();
    expect(q.haltedReason).toMatch(/^the chain has mined \d+ transactions of 0x[0-9a-fA-F]{40} and the queue has signed \d+: another signer uses this key/);
    expect(await q.find('tx_nonce:after')).toMatchObject({ status: 'queued' });
    expect(alerts()).toBe(before + 1);
    // An operator makes them agree (here: the queue takes the chain's count): sending resumes.
    await pool.query(`update ${schema}.chain_senders set next_nonce = $2 where chain = 'base' and address = $1`, [hot.address, nonce + 1]);
    await q.tick();
    await q.tick();
    expect(q.haltedReason).toBeUndefined();
    expect(await q.find('tx_nonce:after')).toMatchObject({ status: 'confirmed' });
  });

  it("a chain's open-sends read carries each sender's recorded next nonce, and a pass given it checks the chain against it", async () => {
    const q = queue();
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 0n] });
    await q.tick();
    const mined = BigInt(await client.getTransactionCount({ address: hot.address }));
    // Nothing open: the sender is there with its nonce.
    expect((await SendQueue.openSends(pool, schema, 'base')).get(hot.address)).toEqual({ queued: false, pending: false, nextNonce: mined });
    await q.enqueue(pool, 'tx_open:1', { to: contracts.tokens.USDC, data });
    const open = (await SendQueue.openSends(pool, schema, 'base')).get(hot.address)!;
    expect(open).toEqual({ queued: true, pending: false, nextNonce: mined });
    // The pass compares the chain with the nonce it was given, not with one it reads: given one behind the chain, it halts.
    await q.tick({ ...open, nextNonce: mined - 1n });
    expect(q.haltedReason).toMatch(/^the chain has mined \d+ transactions of 0x[0-9a-fA-F]{40} and the queue has signed \d+/);
    expect(await q.find('tx_open:1')).toMatchObject({ status: 'queued' });
    await q.tick(open);
    await q.tick();
    expect(q.haltedReason).toBeUndefined();
    expect(await q.find('tx_open:1')).toMatchObject({ status: 'confirmed', nonce: mined });
    expect((await SendQueue.openSends(pool, schema, 'base')).get(hot.address)).toEqual({ queued: false, pending: false, nextNonce: mined + 1n });
  });

  it('a final send that a reorganisation took out of the chain is noticed, broadcast again and mined again, reported once', async () => {
    const q = queue();
    const data = encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [outsider.address, 0n] });
    await q.enqueue(pool, 'tx_reorged:pay', { to: contracts.tokens.USDC, data });
    await q.tick();
    await q.tick();
    const sent = (await q.find('tx_reorged:pay'))!;
    expect(sent.status).toBe('confirmed');
    await node.rpc('anvil_reorg', [Number((await client.getBlockNumber({ cacheTime: 0 })) - sent.blockNumber!) + 1, []]);
    await expect(client.getTransactionReceipt({ hash: sent.txHash! })).rejects.toThrow();
    // An idle queue compares its nonce with the chain's once a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await q.tick();
    await q.tick();
    const reported = lines.filter(
      (line) => line.message === 'a send recorded as final was reorganised out of the chain: broadcast again; an operator must check what it moved',
    );
    expect(reported.map((line) => (line.fields as { key: string }).key)).toEqual(['tx_reorged:pay']);
    expect((await client.waitForTransactionReceipt({ hash: sent.txHash! })).status).toBe('success');
    expect(q.haltedReason).toBeUndefined();
    // Mined again: the next send goes on at the next nonce.
    await q.enqueue(pool, 'tx_reorged:next', { to: contracts.tokens.USDC, data });
    await q.tick();
    await q.tick();
    expect(await q.find('tx_reorged:next')).toMatchObject({ status: 'confirmed', nonce: sent.nonce! + 1n });
  });

  it('keeps at most maxPending sends signed and not mined; mined ones waiting for their depth do not count', async () => {
    const q = queue({ maxPending: 2, confirmations: 3 });
    const keys = [0, 1, 2, 3, 4].map((i) => `tx_lane:${i}`);
    await node.rpc('evm_setAutomine', [false]);
    try {
      for (const key of keys) await q.enqueue(pool, key, { to: outsider.address, value: 1n });
      await q.tick();
      await q.tick();
      const statuses = async () => Promise.all(keys.map(async (key) => (await q.find(key))!.status));
      // Two in flight, the rest queued in order, however many passes.
      expect(await statuses()).toEqual(['pending', 'pending', 'queued', 'queued', 'queued']);
      // Mined, not yet at the depth of 3: no longer in flight (seen at the pass after), so two more go.
      await mine();
      await q.tick();
      await q.tick();
      expect(await statuses()).toEqual(['pending', 'pending', 'pending', 'pending', 'queued']);
      await mine();
      await q.tick();
      await q.tick();
      expect(await statuses()).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);
      await mine(3);
      await q.tick();
      expect(await statuses()).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed', 'confirmed']);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
  });

  it('settles the sends a pass finds final in one database transaction; when one cannot be settled, the sends before it are, and it and the rest wait', async () => {
    const keys = [0, 1, 2, 3].map((i) => `tx_settle:${i}`);
    const settledIn = new Map<string, string>();
    let refuse: string | undefined = keys[2];
    const q = queue({
      confirmations: 2,
      onFinished: async (tx, send) => {
        if (send.idempotencyKey === refuse) throw new Error('its books cannot be written yet');
        settledIn.set(send.idempotencyKey, (await tx.query<{ xid: string }>(`select pg_current_xact_id()::text as xid`)).rows[0]!.xid);
      },
    });
    for (const key of keys) await q.enqueue(pool, key, { to: outsider.address, value: 1n });
    // Signed and broadcast by one pass, mined together and at their depth before the next looks.
    await node.rpc('evm_setAutomine', [false]);
    try {
      await q.tick();
      await mine(2);
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    // One pass finds all four final: the first two are settled, each on its own after the pass's transaction failed.
    const together = () => lines.filter((line) => line.message.startsWith('settling final sends together failed')).length;
    const failedBefore = together();
    await expect(q.tick()).rejects.toThrow('its books cannot be written yet');
    expect(together()).toBe(failedBefore + 1);
    const statuses = async () => Promise.all(keys.map(async (key) => (await q.find(key))!.status));
    expect(await statuses()).toEqual(['confirmed', 'confirmed', 'pending', 'pending']);
    refuse = undefined;
    settledIn.clear();
    await q.tick();
    expect(await statuses()).toEqual(['confirmed', 'confirmed', 'confirmed', 'confirmed']);
    expect([...settledIn.keys()]).toEqual(keys.slice(2));
    expect(new Set(settledIn.values()).size).toBe(1);
  });

  it('a stuck send is replaced with higher fees at the same nonce and confirmed once', async () => {
    const q = queue({ stuckAfterMs: 0 });
    await node.rpc('evm_setAutomine', [false]);
    try {
      await q.enqueue(pool, 'tx_5:stuck', { to: outsider.address, value: 2n });
      await q.tick(); // signed and broadcast, not mined
      await q.tick(); // stuck: replaced
      await mine();
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    await queue().tick();
    const sent = await q.find('tx_5:stuck');
    expect(sent?.status).toBe('confirmed');
    expect(sent?.attempts.length).toBeGreaterThanOrEqual(2);
    expect(sent?.txHash).toBe(sent?.attempts.at(-1));
    const mined = await client.getTransaction({ hash: sent!.txHash! });
    expect(BigInt(mined.nonce)).toBe(sent?.nonce);
    await expect(client.getTransactionReceipt({ hash: sent!.attempts[0] })).rejects.toThrow();
    expect(lines.some((line) => line.message === 'stuck send replaced with higher fees')).toBe(true);
  });

  it('credits a deposit by an outside wallet once, after the confirmation depth; native coin too', async () => {
    const w = watcher(2);
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_outside');
    await w.watch(pool, address, 'wal_outside');
    await mint(outsider.address, 5_000_000n);
    // Both in one block: one confirmation each.
    await node.rpc('evm_setAutomine', [false]);
    let sent: `0x${string}`;
    let native: `0x${string}`;
    try {
      sent = await wallet(outsider).writeContract({
        chain: null,
        address: contracts.tokens.USDC,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [address, 2_500_000n],
      });
      native = await wallet(outsider).sendTransaction({ chain: null, to: address, value: 7n });
      await mine();
    } finally {
      await node.rpc('evm_setAutomine', [true]);
    }
    await w.tick();
    expect((await w.deposits(address)).map((deposit) => deposit.status)).toEqual(['seen', 'seen']);
    expect(credited.filter((deposit) => deposit.to === address.toLowerCase())).toHaveLength(0);
    await mine();
    await w.tick();
    await w.tick();
    const arrived = credited.filter((deposit) => deposit.to === address.toLowerCase());
    expect(arrived).toHaveLength(2);
    expect(arrived.map((deposit) => [deposit.txHash, deposit.amount, deposit.token])).toEqual(
      expect.arrayContaining([
        [sent, 2_500_000n, contracts.tokens.USDC.toLowerCase()],
        [native, 7n, NATIVE_TOKEN.toLowerCase()],
      ]),
    );
  });

  it("on a chain counted at its finality, a deposit is credited only once the node's safe block reaches it, whatever its depth", async () => {
    // anvil's safe block is 32 below its head.
    const w = watcher(1, client, 'safe');
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_safe');
    await w.watch(pool, address, 'wal_safe');
    await w.tick();
    const receipt = await mint(address, 6_000n);
    await mine(10);
    await w.tick();
    expect((await w.deposits(address))[0]).toMatchObject({ txHash: receipt.transactionHash, status: 'seen', credited: false });
    await mine(32);
    await w.tick();
    expect((await w.deposits(address))[0]).toMatchObject({ status: 'confirmed', credited: true });
    expect(credited.filter((deposit) => deposit.txHash === receipt.transactionHash)).toHaveLength(1);
  });

  it('a reorg that removes an unconfirmed deposit credits nothing; one that removes a credited deposit reverses its credit, once', async () => {
    const w = watcher(3);
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_reorg');
    await w.watch(pool, address, 'wal_reorg');
    await w.tick();
    const receipt = await mint(address, 1_000n);
    await w.tick();
    expect((await w.deposits(address))[0]).toMatchObject({ status: 'seen', txHash: receipt.transactionHash });
    // Replace the last block (holding the mint) by an empty one: the deposit never happened.
    await node.rpc('anvil_reorg', [1, []]);
    await w.tick();
    expect((await w.deposits(address))[0]).toMatchObject({ status: 'dropped', credited: false });
    await mine(3);
    await w.tick();
    expect(credited.filter((deposit) => deposit.to === address.toLowerCase())).toHaveLength(0);

    const second = await mint(address, 2_000n);
    await mine(3);
    await w.tick();
    expect(credited.filter((deposit) => deposit.txHash === second.transactionHash)).toHaveLength(1);
    const depth = Number((await client.getBlockNumber({ cacheTime: 0 })) - second.blockNumber) + 1;
    await node.rpc('anvil_reorg', [depth, []]);
    await mine(3);
    await w.tick();
    await w.tick();
    const gone = (await w.deposits(address)).find((deposit) => deposit.txHash === second.transactionHash);
    expect(gone).toMatchObject({ status: 'reversed', credited: false });
    expect(lines.some((line) => line.level === 'error' && line.message === 'a reorganisation removed a credited deposit')).toBe(true);
    expect(reversed.filter((deposit) => deposit.txHash === second.transactionHash)).toHaveLength(1);
    expect(credited.filter((deposit) => deposit.txHash === second.transactionHash)).toHaveLength(1);
  });

  it('a node behind the last block scanned is not a reorg: nothing is reversed, and the watch goes on once it caught up', async () => {
    const w = watcher(1, lagging());
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_lagging');
    await w.watch(pool, address, 'wal_lagging');
    await w.tick();
    const receipt = await mint(address, 3_000n);
    await mine(2);
    await w.tick();
    expect((await w.deposits(address))[0]).toMatchObject({ txHash: receipt.transactionHash, status: 'confirmed', credited: true });
    const checkpoint = await w.checkpoint();
    // The load balancer now sends the watcher to a node 4 blocks behind: below the deposit's block and the checkpoint.
    lag = 4n;
    try {
      await w.tick();
      await w.tick();
      expect((await w.deposits(address))[0]).toMatchObject({ status: 'confirmed', credited: true });
      expect(reversed.filter((deposit) => deposit.txHash === receipt.transactionHash)).toHaveLength(0);
      expect(await w.checkpoint()).toBe(checkpoint);
      expect(lines.some((line) => line.message === 'the node is behind the last block scanned: waiting for it to catch up')).toBe(true);
    } finally {
      lag = 0n;
    }
    const later = await mint(address, 4_000n);
    await mine(1);
    await w.tick();
    expect((await w.deposits(address)).map((deposit) => [deposit.txHash, deposit.status])).toEqual([
      [receipt.transactionHash, 'confirmed'],
      [later.transactionHash, 'confirmed'],
    ]);
    expect(credited.filter((deposit) => deposit.txHash === receipt.transactionHash)).toHaveLength(1);
  });

  it('the same transfer back in another block at another log index is the same deposit: its credit reversed, then credited again once', async () => {
    const w = watcher(2);
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_moved');
    await w.watch(pool, address, 'wal_moved');
    await mint(outsider.address, 10n);
    await w.tick();
    const faucetWallet = wallet();
    const ours = await faucetWallet.signTransaction({
      ...(await faucetWallet.prepareTransactionRequest({
        chain: null,
        to: contracts.tokens.USDC,
        data: encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [address, 5_000n] }),
      })),
    } as never);
    const hash = await client.sendRawTransaction({ serializedTransaction: ours });
    const receipt = await client.waitForTransactionReceipt({ hash });
    await mine(1);
    await w.tick();
    expect(credited.filter((deposit) => deposit.txHash === hash)).toHaveLength(1);
    expect((await w.deposits(address))[0]).toMatchObject({ logIndex: 0, status: 'confirmed' });
    // The new chain holds the same transaction after another that logs a Transfer first: its log index is now 1.
    const before = await wallet(outsider).signTransaction({
      ...(await wallet(outsider).prepareTransactionRequest({
        chain: null,
        to: contracts.tokens.USDC,
        data: encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [faucetAccount.address, 1n] }),
      })),
    } as never);
    const depth = Number((await client.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber) + 1;
    await node.rpc('anvil_reorg', [
      depth,
      [
        [before, 0],
        [ours, 0],
      ],
    ]);
    await mine(2);
    await w.tick();
    await w.tick();
    const rows = await w.deposits(address);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ txHash: hash, logIndex: 1, status: 'confirmed', credited: true });
    expect((await client.getTransactionReceipt({ hash })).logs[0].logIndex).toBe(1);
    // Reversed when its block went, credited again when the new chain confirmed it: held once.
    expect(reversed.filter((deposit) => deposit.txHash === hash)).toHaveLength(1);
    expect(credited.filter((deposit) => deposit.txHash === hash)).toHaveLength(2);
  });

  it('resumes from its checkpoint after a restart and after the node was down', async () => {
    const address = depositAddressOf(contracts.forwarderFactory, 'wal_resume');
    const first = watcher(1);
    await first.watch(pool, address, 'wal_resume');
    await first.tick();
    const checkpoint = await first.checkpoint();
    await node.stop();
    await expect(first.tick()).rejects.toThrow();
    expect(await first.checkpoint()).toBe(checkpoint);
    await node.start();
    const receipt = await mint(address, 3_000n);
    const restarted = watcher(1);
    await restarted.tick();
    expect(await restarted.checkpoint()).toBe(await client.getBlockNumber({ cacheTime: 0 }));
    expect(credited.filter((deposit) => deposit.txHash === receipt.transactionHash)).toHaveLength(1);
  });

  it('a broken token in a sweep (its calls revert) never blocks the others: they are flushed, it is reported and left', async () => {
    const key = 'wal_broken';
    const address = depositAddressOf(contracts.forwarderFactory, key);
    await mint(address, 7_000n);
    const before = await balanceOf(hot.address);
    const q = queue();
    // An address with no code as a "token": its balanceOf reverts, as a paused or self-destructed token's would.
    const broken = outsider.address;
    const data = encodeFunctionData({ abi: ForwarderFactory.abi, functionName: 'sweep', args: [depositSalt(key), [broken, contracts.tokens.USDC]] });
    await q.enqueue(pool, `${key}:sweep:1`, { to: contracts.forwarderFactory, data });
    await q.tick();
    await q.tick();
    const swept = (await q.find(`${key}:sweep:1`))!;
    expect(swept).toMatchObject({ status: 'confirmed' });
    expect(await balanceOf(address)).toBe(0n);
    expect(await balanceOf(hot.address)).toBe(before + 7_000n);
    const receipt = await client.getTransactionReceipt({ hash: swept.txHash! });
    const failed = parseEventLogs({ abi: Forwarder.abi, eventName: 'FlushFailed', logs: receipt.logs });
    expect(failed.map((log) => getAddress(log.args.token))).toEqual([getAddress(broken)]);
  });

  it('sweeps a deposit address: the forwarder is deployed and flushed to the hot wallet by one queued send', async () => {
    const key = 'wal_sweep';
    const address = depositAddressOf(contracts.forwarderFactory, key);
    await mint(address, 4_000n);
    const before = await balanceOf(hot.address);
    const q = queue();
    const data = encodeFunctionData({
      abi: ForwarderFactory.abi,
      functionName: 'sweep',
      args: [depositSalt(key), [contracts.tokens.USDC, contracts.tokens.CNGN]],
    });
    await q.enqueue(pool, `${key}:sweep:1`, { to: contracts.forwarderFactory, data });
    await q.tick();
    await q.tick();
    expect(await q.find(`${key}:sweep:1`)).toMatchObject({ status: 'confirmed' });
    expect(await balanceOf(address)).toBe(0n);
    expect(await balanceOf(hot.address)).toBe(before + 4_000n);
    expect(await client.getCode({ address })).toBeTruthy();
  });
});
