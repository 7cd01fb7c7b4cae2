import type { NatsConnection } from 'nats';
import { Pool } from 'pg';
import { createPublicClient, erc20Abi, getAddress, http, parseEventLogs, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { Config } from '@ramp/config';
import { AppError, ChainBridge, ChainNetworks, newId, platformTenant, RelayerPause, type ChainNetwork } from '@ramp/contracts';
import { HdCustody, IntentPool, resolveChains } from '@ramp/evm';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import { eventually, ledgerCheck, startServices, stopAll, TEST_DATABASE_URL, type ServiceProcess } from '@ramp/testing';

/** Seconds a deposit has to be filled in this suite: short, so that the unfilled one is refunded soon. */
const FILL_SECONDS = 10;

/**
 * The intent bridge between two local test chains (base and bsc), relayed by the chain service: a deposit into base's
 * pool from its hot wallet, filled on bsc from bsc's hot wallet (the hash on bsc), the relayer repaid on base; with the
 * organization's relayer paused, the deposit's deadline passes unfilled and it is refunded on base. The books of both
 * chains equal the chains after each.
 */
describe('chain service - bridging by intents between the local chains, as relayer', () => {
  const settings = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS');
  const clientOf = (chain: string) => createPublicClient({ transport: http(settings.find((candidate) => candidate.chain === chain)!.rpcUrl) }) as PublicClient;
  const [base, bsc] = [clientOf('base'), clientOf('bsc')];
  const custody = HdCustody.development();
  const hotOf = (chain: string) => custody.signer(settings.find((candidate) => candidate.chain === chain)!.hotWalletPath).address;
  const pool = new Pool({ connectionString: TEST_DATABASE_URL });
  const tenant = platformTenant('test', 'bridge-tests');
  const organizationId = `org_${newId('org').slice(4)}`;
  let services: Map<string, ServiceProcess>;
  let nc: NatsConnection;
  let rpc: RpcClient;
  let networks: Record<string, ChainNetwork>;

  beforeAll(async () => {
    services = await startServices(['ledger'], { CHAIN_BRIDGE_FILL_SECONDS: String(FILL_SECONDS) });
    nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }, 'bridge-test');
    rpc = new RpcClient(new NatsRpcClient(nc, process.env.EVENTS_NAMESPACE), 10_000);
    const listed = await rpc.call(ChainNetworks.contract, tenant, { environment: 'test' });
    networks = Object.fromEntries(listed.networks.map((network) => [network.chain, network]));
  }, 90_000);

  afterAll(async () => {
    await nc.drain();
    await pool.end();
    await stopAll(services.values());
  });

  const usdcOn = (chain: string) => getAddress(networks[chain]!.contracts.tokens.USDC!);
  const balance = (client: PublicClient, token: Address, holder: Address) =>
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const bridge = (request: Partial<ChainBridge.Request> & { idempotencyKey: string }) =>
    rpc.call(ChainBridge.contract, tenant, {
      environment: 'test',
      fromChain: 'base',
      toChain: 'bsc',
      token: 'USDC',
      amountIn: '25',
      amountOut: '25',
      account: 'route-execution',
      organizationId,
      paysOut: request.idempotencyKey,
      ...request,
    });
  const until = (key: string, request: Partial<ChainBridge.Request>, status: ChainBridge.Response['status'], timeoutMs: number) =>
    eventually(
      () => bridge({ idempotencyKey: key, ...request }),
      (answer) => answer.status === status,
      timeoutMs,
    );
  const rowOf = async (key: string) =>
    (await pool.query<{ status: string; deposit_id: string }>(`select status, deposit_id::text from chain.bridges where key = $1`, [key])).rows[0];

  it("lists an intent pool on each local chain, its relayer the chain's hot wallet", async () => {
    for (const chain of ['base', 'bsc', 'arbitrum']) {
      const intents = networks[chain]!.contracts.bridge!;
      expect(intents.name).toBe('Ramp Intents');
      const client = clientOf(chain);
      expect(await client.readContract({ address: intents.pool as Address, abi: IntentPool.abi, functionName: 'relayer' })).toBe(hotOf(chain));
    }
    expect(networks.solana).toBeUndefined();
  });

  it('fills a deposit on the destination chain (its hash there, the recipient paid), repays the relayer on the source, and the books equal both chains', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const key = `bridge-test:${newId('txn')}:filled`;
    const request = { recipient, amountIn: '25', amountOut: '24.5' };
    const first = await bridge({ idempotencyKey: key, ...request });
    expect(first.status).toBe('pending');
    expect(first.fillDeadline).toBeGreaterThan(Math.floor(Date.now() / 1000));
    const filled = await until(key, request, 'filled', 60_000);

    // The deposit is base's: its Deposited event names bsc, the output and the recipient.
    const depositLogs = parseEventLogs({
      abi: IntentPool.abi,
      eventName: 'Deposited',
      logs: (await base.getTransactionReceipt({ hash: filled.depositHash as Hex })).logs,
    });
    expect(depositLogs).toHaveLength(1);
    expect(depositLogs[0]!.args).toMatchObject({
      depositor: hotOf('base'),
      inputAmount: parseUnits('25', 6),
      destinationChainId: 97n,
      outputAmount: parseUnits('24.5', 18),
      recipient,
      fillDeadline: filled.fillDeadline,
    });
    // The fill is bsc's: a transaction there, its Filled event for base's deposit; the recipient holds the output.
    const fillReceipt = await bsc.getTransactionReceipt({ hash: filled.fillHash as Hex });
    expect(fillReceipt.status).toBe('success');
    const fills = parseEventLogs({ abi: IntentPool.abi, eventName: 'Filled', logs: fillReceipt.logs });
    expect(fills.map((log) => log.args)).toEqual([
      { originChainId: 84532n, depositId: depositLogs[0]!.args.depositId, outputToken: usdcOn('bsc'), outputAmount: parseUnits('24.5', 18), recipient },
    ]);
    expect(await balance(bsc, usdcOn('bsc'), recipient)).toBe(parseUnits('24.5', 18));
    await expect(base.getTransactionReceipt({ hash: filled.fillHash as Hex })).rejects.toThrow();
    expect(filled.refundHash).toBeUndefined();

    // The relayer takes the deposit back on base: the pool keeps nothing of it.
    const settled = await eventually(
      () => rowOf(key),
      (row) => row?.status === 'settled',
      30_000,
    );
    const onPool = await base.readContract({
      address: networks.base!.contracts.bridge!.pool as Address,
      abi: IntentPool.abi,
      functionName: 'deposits',
      args: [BigInt(settled!.deposit_id)],
    });
    expect(onPool[4]).toBe(2); // Status.Settled

    // Asked again, the same bridge; asked with other terms, refused.
    expect(await bridge({ idempotencyKey: key, ...request })).toEqual(filled);
    await expect(bridge({ idempotencyKey: key, ...request, amountOut: '24' })).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
    expect((await ledgerCheck()).ok).toBe(true);
  }, 120_000);

  it('with the relayer paused for the organization, the deposit is not filled, and is refunded on the source chain after its deadline', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const key = `bridge-test:${newId('txn')}:unfilled`;
    expect(await rpc.call(RelayerPause.contract, platformTenant('test', 'gateway'), { environment: 'test', organizationId, paused: true })).toEqual({
      paused: true,
    });
    try {
      const hotBefore = await balance(base, usdcOn('base'), hotOf('base'));
      const request = { recipient, amountIn: '10', amountOut: '10' };
      const refunded = await until(key, request, 'refunded', (FILL_SECONDS + 45) * 1000);
      expect(refunded.fillHash).toBeUndefined();
      expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(refunded.fillDeadline);
      const refunds = parseEventLogs({
        abi: IntentPool.abi,
        eventName: 'Refunded',
        logs: (await base.getTransactionReceipt({ hash: refunded.refundHash as Hex })).logs,
      });
      expect(refunds.map((log) => log.args)).toEqual([{ depositId: expect.any(BigInt), depositor: hotOf('base'), amount: parseUnits('10', 6) }]);
      // Nothing was sent on bsc for it, the recipient has nothing, and base's hot wallet has the deposit back.
      expect((await pool.query(`select 1 from chain.chain_sends where idempotency_key = $1`, [`bridge:${key}:fill`])).rowCount).toBe(0);
      expect(await balance(bsc, usdcOn('bsc'), recipient)).toBe(0n);
      expect(await balance(base, usdcOn('base'), hotOf('base'))).toBeGreaterThanOrEqual(hotBefore);
    } finally {
      await rpc.call(RelayerPause.contract, platformTenant('test', 'gateway'), { environment: 'test', organizationId, paused: false });
    }
    expect((await ledgerCheck()).ok).toBe(true);
  }, 120_000);

  it('kill -9 of the chain service while the fill is in flight: filled once, repaid once, booked once', async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const key = `bridge-test:${newId('txn')}:killed`;
    const request = { recipient, amountIn: '40', amountOut: '40' };
    const chain = services.get('chain')!;
    const anvil = (method: string, params: unknown[] = []) => bsc.request({ method: method as any, params: params as any });
    await anvil('evm_setAutomine', [false]);
    try {
      await bridge({ idempotencyKey: key, ...request });
      // The fill is signed and broadcast on bsc, not mined: the relayer dies with it in flight.
      await eventually(
        async () =>
          (await pool.query<{ tx_hash: string | null }>(`select tx_hash from chain.chain_sends where idempotency_key = $1`, [`bridge:${key}:fill`])).rows[0],
        (row) => row?.tx_hash != null,
        30_000,
      );
      await chain.kill();
      await anvil('evm_mine');
    } finally {
      await anvil('evm_setAutomine', [true]);
    }
    await chain.start();
    const filled = await until(key, request, 'filled', 60_000);
    await eventually(
      () => rowOf(key),
      (row) => row?.status === 'settled',
      30_000,
    );
    // One deposit, one fill (the one that was in flight), one repayment: nothing sent twice.
    const sends = (
      await pool.query<{ idempotency_key: string; status: string; kind: string }>(
        `select idempotency_key, status, kind from chain.chain_sends where idempotency_key like $1 order by id`,
        [`bridge:${key}:%`],
      )
    ).rows;
    expect(sends).toEqual(['deposit', 'fill', 'settle'].map((role) => ({ idempotency_key: `bridge:${key}:${role}`, status: 'confirmed', kind: 'bridge' })));
    const fills = parseEventLogs({ abi: IntentPool.abi, eventName: 'Filled', logs: (await bsc.getTransactionReceipt({ hash: filled.fillHash as Hex })).logs });
    expect(fills).toHaveLength(1);
    expect(await balance(bsc, usdcOn('bsc'), recipient)).toBe(parseUnits('40', 18));
    expect((await ledgerCheck()).ok).toBe(true);
  }, 150_000);

  it('refuses what it cannot bridge, naming the field', async () => {
    const refusal = (request: Partial<ChainBridge.Request>) =>
      bridge({ idempotencyKey: `bridge-test:${newId('txn')}:refused`, ...request }).then(
        () => undefined,
        (error: AppError) => ({ reason: error.reason, field: error.field }),
      );
    expect(await refusal({ toChain: 'solana' })).toEqual({ reason: 'UNSUPPORTED_CHAIN', field: 'toChain' });
    expect(await refusal({ toChain: 'base' })).toEqual({ reason: 'INVALID_FIELD', field: 'toChain' });
    expect(await refusal({ token: 'ETH' })).toEqual({ reason: 'UNSUPPORTED_TOKEN', field: 'token' });
    expect(await refusal({ amountIn: '-1' })).toMatchObject({ field: 'amountIn' });
    expect(await refusal({ recipient: 'nope' })).toMatchObject({ field: 'recipient' });
    await expect(
      rpc.call(RelayerPause.contract, platformTenant('live', 'gateway'), { environment: 'live', organizationId, paused: true }),
    ).rejects.toMatchObject({ reason: 'SANDBOX_ONLY' });
  });
});
