import { execFileSync } from 'child_process';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther, parseUnits, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { Pool } from 'pg';
import { dec } from '@ramp/money';
import { Config } from '@ramp/config';
import { AppError, ChainNetworks, ChainSwap, ChainTransfer, DepositAddressWatch, FaucetSend, newId, platformTenant } from '@ramp/contracts';
import {
  accountOfSigner,
  accountOwnerPath,
  accountSalt,
  CANONICAL_ACCOUNT_FACTORY,
  CANONICAL_ENTRY_POINT,
  DEVELOPMENT_MNEMONIC,
  EntryPoint,
  HdCustody,
  lanePath,
  PAYMASTER_OWNER_PATH,
  PAYMASTER_SIGNER_PATH,
  resolveChains,
  simpleAccount,
  sponsorship,
  UserOperations,
  VerifyingPaymaster,
  type SmartAccountContracts,
} from '@ramp/evm';
import { connectNats, NatsRpcClient, RpcClient } from '@ramp/messaging';
import {
  ANVIL_MNEMONIC,
  ApiClient,
  createKey,
  endUserWith,
  eventually,
  expectError,
  ledgerCheck,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ServiceProcess,
  type TestKey,
} from '@ramp/testing';

/**
 * The chain side through the API, on the local test chains that `npm test` starts: wallets whose addresses receive
 * real deposits, sandbox funding and the faucet as real transfers, and the chains list of each environment.
 */
describe('chain service - real deposits, faucet and chains list through the API', () => {
  /** The sweeps of an address (its one sweep's send key and status), once there is one and all are final. */
  const finalSweeps = async (chain: string, address: string) => {
    const pool = new Pool({ connectionString: TEST_DATABASE_URL });
    try {
      const found = await eventually(
        () =>
          pool.query(
            `select w.send_key, s.status from chain.sweeps w join chain.chain_sends s on s.chain = w.chain and s.idempotency_key = w.send_key where w.chain = $1 and w.address = $2`,
            [chain, address.toLowerCase()],
          ),
        ({ rows }) => rows.length > 0 && rows.every((row) => row.status === 'confirmed'),
        30_000,
      );
      return found.rows;
    } finally {
      await pool.end();
    }
  };
  const base = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === 'base')!;
  const client = createPublicClient({ transport: http(base.rpcUrl) });
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let key: TestKey;
  let usdc: Address;

  beforeAll(async () => {
    services = await startServices(['quote', 'ledger', 'gateway'], {
      CHAIN_RECONCILE_INTERVAL_MS: '300',
      // One mark the test chain's hot wallet is far below, one it is above, and one for a token it does not carry.
      TREASURY_LOW_WATER_MARKS: JSON.stringify({ 'test-bsc': { USDT: '1000000000', BNB: '0', NOPE: '1' } }),
      CHAIN_OUTFLOW_LIMITS: JSON.stringify({ 'test-base': { ETH: { perSend: '0.006', perHour: '0.01', perOrganizationPerHour: '0.006' } } }),
    });
    key = await createKey();
    api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    const chains = (await api.get('/transfer/chains')).body.data;
    usdc = getAddress(chains.find((chain: any) => chain.chain === 'base').tokens.find((token: any) => token.symbol === 'USDC').contractAddress);
  }, 60_000);

  afterAll(async () => {
    await stopAll(services.values());
  });

  /** The chain service's requests over NATS as another service makes them, with the test database beside. */
  const withChainRpc = async (name: string, test: (rpc: RpcClient, pool: Pool) => Promise<void>) => {
    const nc = await connectNats({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }, name);
    const pool = new Pool({ connectionString: TEST_DATABASE_URL });
    try {
      await test(new RpcClient(new NatsRpcClient(nc, process.env.EVENTS_NAMESPACE), 10_000), pool);
    } finally {
      await nc.drain();
      await pool.end();
    }
  };
  const balanceOf = (wallet: any, symbol: string) => wallet.balances.find((balance: any) => balance.tokenSymbol === symbol);
  // Waited for: a loaded machine's anvil may mine a moment after it accepted the transaction.
  const succeeded = async (hash: Hex) => (await client.waitForTransactionReceipt({ hash })).status;

  /** An integrator's end user: a fresh key with test ETH and USDC from the faucet. */
  const endUser = (usdcAmount: string) => endUserWith(api, 'base', base.rpcUrl, { ETH: '1', USDC: usdcAmount });

  it('lists the test chains with their chain ids and deployed contracts for a test key, mainnets for a live key', async () => {
    const chains = (await api.get('/transfer/chains')).body.data;
    const byName = Object.fromEntries(chains.map((chain: any) => [chain.chain, chain]));
    expect(byName.base).toMatchObject({ chainId: 84532, settlement: 'onchain', confirmations: base.confirmations });
    expect(byName.bsc).toMatchObject({ chainId: 97, settlement: 'onchain' });
    expect(byName.arbitrum).toMatchObject({ chainId: 421614, settlement: 'onchain' });
    expect(byName.solana).toMatchObject({ settlement: 'simulated' });
    expect(byName.solana).not.toHaveProperty('confirmations');
    // The token contracts are on the chain, with the registry's decimals.
    for (const token of byName.base.tokens.filter((candidate: any) => candidate.symbol !== 'ETH')) {
      expect(await client.getCode({ address: token.contractAddress })).toMatch(/^0x[0-9a-f]{10,}/);
      expect(await client.readContract({ address: token.contractAddress, abi: erc20Abi, functionName: 'decimals' })).toBe(token.decimals);
    }
    const live = new ApiClient(api.baseUrl, (await createKey({ env: 'live' })).apiKey);
    const liveBase = (await live.get('/transfer/chains')).body.data.find((chain: any) => chain.chain === 'base');
    expect(liveBase).toMatchObject({ chainId: 8453, settlement: 'simulated' });
    expect(liveBase.tokens.find((token: any) => token.symbol === 'USDC').contractAddress).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
  });

  it("runs base's and bsc's smart-account parts: EntryPoint and factory at their canonical addresses, the environment's paymaster with a deposit, a bundler that lands its sponsored operations; arbitrum has none", async () => {
    await withChainRpc('chain-smart-accounts', async (rpc) => {
      const { networks } = await rpc.call(ChainNetworks.contract, platformTenant('test', 'ramp'), { environment: 'test' });
      const custody = HdCustody.development();
      const byName = Object.fromEntries(networks.map((network) => [network.chain, network]));
      expect(byName.arbitrum!.contracts.smartAccounts).toBeUndefined();
      const settings = resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS');
      for (const name of ['base', 'bsc']) {
        const chain = settings.find((candidate) => candidate.chain === name)!;
        const contracts = byName[name]!.contracts.smartAccounts as SmartAccountContracts;
        expect(contracts).toMatchObject({ entryPoint: CANONICAL_ENTRY_POINT, accountFactory: CANONICAL_ACCOUNT_FACTORY });
        const onChain = createPublicClient({
          chain: { id: chain.chainId, name, nativeCurrency: { name: 'coin', symbol: 'COIN', decimals: 18 }, rpcUrls: { default: { http: [chain.rpcUrl] } } },
          transport: http(chain.rpcUrl),
        });
        const paymaster = { address: contracts.paymaster, abi: VerifyingPaymaster.abi } as const;
        expect(await onChain.readContract({ ...paymaster, functionName: 'owner' })).toBe(custody.signer(PAYMASTER_OWNER_PATH).address);
        expect(await onChain.readContract({ ...paymaster, functionName: 'verifyingSigner' })).toBe(custody.signer(PAYMASTER_SIGNER_PATH).address);
        const deposit = await onChain.readContract({
          address: contracts.entryPoint as Address,
          abi: EntryPoint.abi,
          functionName: 'balanceOf',
          args: [contracts.paymaster as Address],
        });
        expect(deposit).toBeGreaterThanOrEqual(parseEther('1'));

        // A sponsored operation from a new account, through the chain's own bundler, signed as the chain service signs.
        const operations = new UserOperations(
          onChain as never,
          chain.bundlerUrl!,
          contracts,
          sponsorship({
            paymaster: contracts.paymaster as Address,
            signer: custody.signer(PAYMASTER_SIGNER_PATH),
            chainId: chain.chainId,
            validForSeconds: 600,
          }),
        );
        const walletId = newId('wal');
        const account = await simpleAccount({
          client: onChain as never,
          contracts,
          chainId: chain.chainId,
          owner: custody.derived(accountOwnerPath(walletId)),
          salt: accountSalt(walletId),
        });
        const fromBlock = await onChain.getBlockNumber();
        const { hash, operation } = await operations.prepare(account, [{ to: await account.getAddress(), data: '0x' }], `${walletId}:first`);
        await operations.submit(operation);
        const landed = await eventually(
          () => operations.landed(hash, fromBlock),
          (found) => found !== undefined,
          30_000,
        );
        expect(landed).toMatchObject({ success: true, sender: await account.getAddress(), paymaster: contracts.paymaster });
        expect(await onChain.getBalance({ address: await account.getAddress() })).toBe(0n);
      }

      // The deposit watched: its owner withdraws base's below paymasterMinDeposit, the gauge counts the chain, a top-up clears it.
      const lowDeposits = async () =>
        Number((/^ramp_chain_paymaster_deposits_low(?:\{[^}]*\})? (\S+)$/m.exec(await (await fetch(`${services.get('chain')!.url}/metrics`)).text()) ?? [])[1]);
      expect(await lowDeposits()).toBe(0);
      const chain = settings.find((candidate) => candidate.chain === 'base')!;
      const contracts = byName.base!.contracts.smartAccounts as SmartAccountContracts;
      const owner = createWalletClient({ account: accountOfSigner(custody.signer(PAYMASTER_OWNER_PATH)), transport: http(chain.rpcUrl) });
      const held = await client.readContract({ address: contracts.entryPoint, abi: EntryPoint.abi, functionName: 'balanceOf', args: [contracts.paymaster] });
      const keep = parseEther('0.5');
      const outsider = privateKeyToAccount(generatePrivateKey()).address;
      await client.waitForTransactionReceipt({
        hash: await owner.writeContract({
          chain: null,
          address: contracts.paymaster,
          abi: VerifyingPaymaster.abi,
          functionName: 'withdrawTo',
          args: [outsider, held - keep],
        }),
      });
      expect(await eventually(lowDeposits, (low) => low === 1, 10_000)).toBe(1);
      const funder = createWalletClient({ account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 7 }), transport: http(chain.rpcUrl) });
      await client.waitForTransactionReceipt({
        hash: await funder.writeContract({
          chain: null,
          address: contracts.entryPoint,
          abi: EntryPoint.abi,
          functionName: 'depositTo',
          args: [contracts.paymaster],
          value: held - keep,
        }),
      });
      expect(await eventually(lowDeposits, (low) => low === 0, 10_000)).toBe(0);
    });
  }, 90_000);

  it("credits an outside wallet's ERC-20 and native deposits to a wallet's address once, and sweeps them to the hot wallet", async () => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const user = await endUser('300');
    const hotBefore = await client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [HdCustody.development().signer(base.hotWalletPath).address],
    });
    const first = await user.wallet.writeContract({
      chain: null,
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet.address, parseUnits('120.5', 6)],
    });
    const second = await user.wallet.writeContract({
      chain: null,
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet.address, parseUnits('79.5', 6)],
    });
    const native = await user.wallet.sendTransaction({ chain: null, to: wallet.address, value: parseEther('0.25') });
    for (const hash of [first, second, native]) expect(await succeeded(hash)).toBe('success');

    const credited = await eventually(
      async () => (await api.get(`/wallets/${wallet.walletId}`)).body.data,
      (view) => balanceOf(view, 'USDC').available === '200' && balanceOf(view, 'ETH').available === '0.25',
    );
    expect(balanceOf(credited, 'USDC')).toEqual({ tokenSymbol: 'USDC', available: '200', held: '0' });
    // Swept: the address is emptied into the hot wallet by the forwarder, deployed on the way.
    await eventually(
      () => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address] }),
      (left) => left === 0n,
    );
    await eventually(
      () => client.getBalance({ address: wallet.address }),
      (left) => left === 0n,
    );
    expect(await client.getCode({ address: wallet.address })).toMatch(/^0x[0-9a-f]+/);
    // One sweep for the three deposits, not one each: the address is swept shortly after its first credit, with what
    // arrived meanwhile.
    // Mined already (the address is empty); final once its block is at the depth.
    expect(await finalSweeps('test-base', wallet.address)).toEqual([{ send_key: `sweep:test:base:${wallet.address.toLowerCase()}:0`, status: 'confirmed' }]);
    const hotAfter = await client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [HdCustody.development().signer(base.hotWalletPath).address],
    });
    expect(hotAfter - hotBefore).toBeGreaterThanOrEqual(parseUnits('200', 6));
    // Credited once: more blocks, more passes, the same balance.
    await user.wallet.sendTransaction({ chain: null, to: user.account.address, value: 1n });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC').available).toBe('200');
  }, 60_000);

  it('dust sprayed at many addresses moves nothing: no credit, no sweep, no gas of the platform', async () => {
    const wallets = await Promise.all(Array.from({ length: 6 }, async () => (await api.post('/wallets', { chain: 'base' })).body.data));
    const user = await endUser('1');
    const pool = new Pool({ connectionString: TEST_DATABASE_URL });
    try {
      const hot = HdCustody.development().signer(base.hotWalletPath).address;
      const sent = async () =>
        Number((await pool.query(`select count(*) from chain.chain_sends where chain = 'test-base' and sender = $1`, [hot])).rows[0].count);
      const before = await sent();
      // Below the minimums (USDC 0.01, ETH 0.000003): a cent's worth would cost more gas to move than it is worth.
      for (const wallet of wallets) {
        expect(
          await succeeded(
            await user.wallet.writeContract({
              chain: null,
              address: usdc,
              abi: erc20Abi,
              functionName: 'transfer',
              args: [wallet.address, parseUnits('0.009', 6)],
            }),
          ),
        ).toBe('success');
        expect(await succeeded(await user.wallet.sendTransaction({ chain: null, to: wallet.address, value: parseEther('0.000002') }))).toBe('success');
      }
      const addresses = wallets.map((wallet) => wallet.address.toLowerCase());
      await eventually(
        async () =>
          Number(
            (await pool.query(`select count(*) from chain.chain_deposits where chain = 'test-base' and to_address = any($1) and credited`, [addresses])).rows[0]
              .count,
          ),
        (count) => count === 12,
      );
      await new Promise((resolve) => setTimeout(resolve, 4000)); // past CHAIN_SWEEP_DELAY_MS: a sweep would be queued by now
      for (const wallet of wallets) {
        const view = (await api.get(`/wallets/${wallet.walletId}`)).body.data;
        for (const symbol of ['USDC', 'ETH']) expect(balanceOf(view, symbol)?.available ?? '0').toBe('0');
      }
      expect(
        (
          await pool.query(
            `select address from chain.sweeps_due where chain = 'test-base' and address = any($1) union all select address from chain.sweeps where chain = 'test-base' and address = any($1)`,
            [addresses],
          )
        ).rows,
      ).toEqual([]);
      expect(await sent()).toBe(before);
    } finally {
      await pool.end();
    }
  }, 90_000);

  it('funds a wallet with a real faucet transfer, answering once credited with its hash', async () => {
    const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
    const funded = await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: '42.25' });
    expect(funded.status).toBe(200);
    expect(balanceOf(funded.body.data, 'USDC').available).toBe('42.25');
    expect(funded.body.data.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await succeeded(funded.body.data.transactionHash)).toBe('success');
    const receipt = await client.getTransactionReceipt({ hash: funded.body.data.transactionHash });
    expect(getAddress(receipt.to!)).toBe(usdc);
    expectError(await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDC', amount: '2000000' }), 400, 'INVALID_REQUEST', 'amount');
  }, 60_000);

  it('the faucet sends to any address, once per Idempotency-Key, within its limits, for test keys only', async () => {
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const first = await api.post('/sandbox/faucet', { chain: 'base', address, tokenSymbol: 'USDC', amount: '15' }, { 'Idempotency-Key': `faucet-${address}` });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ chain: 'base', address, tokenSymbol: 'USDC', amount: '15' });
    const again = await api.post('/sandbox/faucet', { chain: 'base', address, tokenSymbol: 'USDC', amount: '15' }, { 'Idempotency-Key': `faucet-${address}` });
    expect(again.body.data.transactionHash).toBe(first.body.data.transactionHash);
    await client.waitForTransactionReceipt({ hash: first.body.data.transactionHash });
    expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })).toBe(parseUnits('15', 6));

    const refused = (body: object) => api.post('/sandbox/faucet', { chain: 'base', address, tokenSymbol: 'USDC', amount: '1', ...body });
    expect((await refused({ amount: '1000001' })).body.error).toMatchObject({ reason: 'AMOUNT_TOO_LARGE', field: 'amount' });
    expect((await refused({ address: '0x1234' })).body.error).toMatchObject({ reason: 'INVALID_ADDRESS', field: 'address' });
    expect((await refused({ tokenSymbol: 'DOGE' })).body.error).toMatchObject({ reason: 'UNSUPPORTED_TOKEN', field: 'tokenSymbol' });
    expect((await refused({ chain: 'ethereum' })).body.error).toMatchObject({ reason: 'UNSUPPORTED_CHAIN', field: 'chain' });
    expect((await refused({ amount: '1.0000001' })).body.error).toMatchObject({ reason: 'INVALID_FIELD', field: 'amount' });
    // The wait for the signature is the platform's own (a step that must not hold its slot): not a field of the API.
    expect((await refused({ waitMs: 0 })).body.error).toMatchObject({ reason: 'INVALID_FIELD', field: 'waitMs' });
    const live = new ApiClient(api.baseUrl, (await createKey({ env: 'live' })).apiKey);
    expectError(await live.post('/sandbox/faucet', { chain: 'base', address, tokenSymbol: 'USDC', amount: '1' }), 404, 'NOT_FOUND');
  }, 60_000);

  it('answers a faucet request that does not wait (waitMs 0) at once: queued until signed, then its hash, one transfer per key', async () => {
    await withChainRpc('chain-faucet-nowait', async (rpc) => {
      const ramp = platformTenant('test', 'ramp');
      const address = privateKeyToAccount(generatePrivateKey()).address;
      const request = { chain: 'base', address, tokenSymbol: 'CNGN', amount: '1000', idempotencyKey: `onramp:${newId('txn')}:mint`, waitMs: 0 };
      const answers: (FaucetSend.Response | FaucetSend.Queued)[] = [];
      const signed = await eventually(
        async () => {
          const answer = await rpc.call(FaucetSend.contract, ramp, request);
          answers.push(answer);
          return answer;
        },
        (answer) => !('queued' in answer),
        20_000,
        100,
      );
      // Every answer before the faucet's queue signed (it signs on its tick) is queued, with no hash.
      for (const early of answers.slice(0, -1)) expect(early).toEqual({ chain: 'base', address, tokenSymbol: 'CNGN', amount: '1000', queued: true });
      expect(signed).toMatchObject({ chain: 'base', address, tokenSymbol: 'CNGN', amount: '1000', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(await rpc.call(FaucetSend.contract, ramp, request)).toEqual(signed);
      await client.waitForTransactionReceipt({ hash: (signed as FaucetSend.Response).transactionHash as `0x${string}` });
      expect(FaucetSend.signed(await rpc.call(FaucetSend.contract, ramp, { ...request, waitMs: undefined }))).toEqual(signed);
      await expect(rpc.call(FaucetSend.contract, ramp, { ...request, waitMs: 99_999 })).rejects.toMatchObject({ field: 'waitMs' });
    });
  }, 60_000);

  it("gives back an off-ramp's deposit only as it arrived: its token, its amount, to its sender, once; every term of a repeated request compared; never a swap without a minimum", async () => {
    await withChainRpc('chain-refund-test', async (rpc, pool) => {
      const ramp = platformTenant('test', 'ramp');
      const owner = `offramp:${newId('txn')}`;
      const { address } = await rpc.call(DepositAddressWatch.contract, ramp, { environment: 'test', chain: 'base', owner });
      const user = await endUser('50');
      const paid = await user.wallet.writeContract({
        chain: null,
        address: usdc,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [address as Address, parseUnits('20', 6)],
      });
      expect(await succeeded(paid)).toBe('success');
      const deposit = await eventually(
        async () => (await pool.query(`select log_index, status from chain.chain_deposits where chain = 'test-base' and tx_hash = $1`, [paid])).rows[0],
        (row) => row?.status === 'confirmed',
      );
      const refundOf = `test:base:${paid}:${deposit.log_index}`;
      const refund = (terms: Partial<ChainTransfer.Request>) =>
        rpc.call(ChainTransfer.contract, ramp, {
          environment: 'test',
          chain: 'base',
          idempotencyKey: `refund:${refundOf}`,
          to: user.account.address,
          tokenSymbol: 'USDC',
          amount: '20',
          account: 'offramp-deposits',
          refundOf,
          ...terms,
        });
      const refused = async (terms: Partial<ChainTransfer.Request>, reason: string, field?: string) => {
        const error = await refund(terms).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect(error).toBeInstanceOf(AppError);
        expect(error).toMatchObject({ reason, ...(field && { field }) });
      };
      // Never another token, never more (nor less) than arrived, never to someone else, never a deposit that is not one.
      await refused({ tokenSymbol: 'cbBTC', amount: '20', idempotencyKey: 'refund-test:token' }, 'INVALID_FIELD', 'refundOf');
      await refused({ amount: '20.000001', idempotencyKey: 'refund-test:more' }, 'INVALID_FIELD', 'refundOf');
      await refused({ amount: '19', idempotencyKey: 'refund-test:less' }, 'INVALID_FIELD', 'refundOf');
      await refused({ to: privateKeyToAccount(generatePrivateKey()).address, idempotencyKey: 'refund-test:to' }, 'INVALID_FIELD', 'refundOf');
      await refused({ refundOf: `test:base:${paid}:${deposit.log_index + 7}`, idempotencyKey: 'refund-test:none' }, 'INVALID_FIELD', 'refundOf');
      const sent = await refund({});
      expect(['queued', 'pending']).toContain(sent.status);
      // The same key with any other term is another request: refused, not answered with the first one's send.
      await refused({ account: 'route-execution' }, 'IDEMPOTENCY_KEY_REUSED');
      // Given back once, whatever the key.
      await refused({ idempotencyKey: 'refund-test:again' }, 'INVALID_FIELD', 'refundOf');
      const done = await eventually(
        () => refund({}),
        (answer) => answer.status === 'confirmed',
      );
      expect(await succeeded(done.transactionHash as Hex)).toBe('success');
      await eventually(
        () => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [user.account.address] }),
        (held) => held === parseUnits('50', 6),
      );

      // A managed wallet's deposit is the wallet's: never given back by a refund.
      const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
      const toWallet = await user.wallet.writeContract({
        chain: null,
        address: usdc,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [wallet.address, parseUnits('5', 6)],
      });
      expect(await succeeded(toWallet)).toBe('success');
      const credited = await eventually(
        async () => (await pool.query(`select log_index, status from chain.chain_deposits where chain = 'test-base' and tx_hash = $1`, [toWallet])).rows[0],
        (row) => row?.status === 'confirmed',
      );
      await refused(
        { refundOf: `test:base:${toWallet}:${credited.log_index}`, amount: '5', idempotencyKey: 'refund-test:wallet' },
        'INVALID_FIELD',
        'refundOf',
      );

      // Never a swap without a minimum: whoever moved the pool first would take the difference.
      for (const minimumOut of ['0', '0.0']) {
        const swap = await rpc
          .call(ChainSwap.contract, ramp, {
            environment: 'test',
            chain: 'base',
            idempotencyKey: `swap-test:${minimumOut}`,
            fromToken: 'USDC',
            toToken: 'CNGN',
            amountIn: '1',
            minimumOut,
            account: 'route-execution',
            paysOut: 'swap-test',
          })
          .then(
            () => undefined,
            (failure: unknown) => failure,
          );
        expect(swap).toMatchObject({ reason: 'INVALID_FIELD', field: 'minimumOut' });
      }
    });
  }, 90_000);

  it('moves nothing it cannot tie to the books, and nothing beyond the outflow limits of its chain and of an organization', async () => {
    await withChainRpc('chain-outflow-test', async (rpc, pool) => {
      const ramp = platformTenant('test', 'ramp');
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const run = newId('txn');
      const send = (key: string, amount: string, organizationId: string, paysOut: string | undefined = `${run}:${key}`) =>
        rpc.call(ChainTransfer.contract, ramp, {
          environment: 'test',
          chain: 'base',
          idempotencyKey: `${run}:${key}`,
          to,
          tokenSymbol: 'ETH',
          amount,
          account: 'offramp-provider',
          organizationId,
          ...(paysOut !== undefined && { paysOut }),
        });
      const refusal = (key: string, amount: string, organizationId: string, paysOut?: string) =>
        send(key, amount, organizationId, paysOut).then(
          () => undefined,
          (failure: unknown) => failure,
        );
      // CHAIN_OUTFLOW_LIMITS of this suite: ETH on test-base, 0.006 a send, 0.01 an hour, 0.006 an hour for one organization.
      expect(await refusal('untied', '0.001', 'org_a', '')).toMatchObject({ reason: 'INVALID_FIELD', field: 'paysOut' });
      expect(await refusal('large', '0.0061', 'org_a')).toMatchObject({ reason: 'AMOUNT_TOO_LARGE', field: 'amount' });
      const first = await send('a1', '0.004', 'org_a');
      expect(await refusal('a2', '0.003', 'org_a')).toMatchObject({
        reason: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/^outflow limit: the organization's transactions/),
      });
      const second = await send('b1', '0.005', 'org_b');
      expect(await refusal('b2', '0.002', 'org_b')).toMatchObject({
        reason: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/^outflow limit: base's hot wallet has sent out its limit of 0.01 ETH/),
      });
      // The same request again is the same send, not another outflow.
      expect((await send('a1', '0.004', 'org_a')).status).not.toBe('failed');
      for (const sent of [first, second]) expect(['queued', 'pending', 'confirmed']).toContain(sent.status);
      await eventually(
        () => client.getBalance({ address: to }),
        (balance) => balance === parseEther('0.009'),
        30_000,
      );
      // Each send recorded with the transaction it pays out; the refused ones are nowhere.
      const { rows } = await pool.query(
        `select send_key, amount::text, organization_id, pays_out, counted from chain.outflows where chain = 'test-base' and pays_out like $1 order by send_key`,
        [`${run}:%`],
      );
      expect(rows).toEqual([
        { send_key: `transfer:${run}:a1`, amount: '0.004', organization_id: 'org_a', pays_out: `${run}:a1`, counted: true },
        { send_key: `transfer:${run}:b1`, amount: '0.005', organization_id: 'org_b', pays_out: `${run}:b1`, counted: true },
      ]);
      const refusals = (await (await fetch(`${services.get('chain')!.url}/metrics`)).text()).match(/^ramp_chain_outflow_refusals(?:\{[^}]*\})? (\S+)$/gm) ?? [];
      expect(refusals.reduce((sum, line) => sum + Number(line.split(' ').pop()), 0)).toBe(3);
    });
  }, 60_000);

  it("sends a chain's token transfers through its lanes at once: each lane's transferFrom moves the hot wallet's tokens, its gas is the hot wallet's, and the books still equal the chain", async () => {
    await withChainRpc('chain-lanes-test', async (rpc, pool) => {
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const run = newId('txn');
      const custody = HdCustody.development();
      const hot = custody.signer(base.hotWalletPath).address;
      const lanes = Array.from({ length: base.lanes }, (_, lane) => custody.signer(lanePath(base.hotWalletPath, lane)).address);
      expect(base.lanes).toBe(4);
      const hotUsdcBefore = await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [hot] });
      const count = 24;
      // Asked all at once, as a burst of off-ramp settlements would.
      const answers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          rpc.call(ChainTransfer.contract, platformTenant('test', 'ramp'), {
            environment: 'test',
            chain: 'base',
            idempotencyKey: `${run}:${i}`,
            to,
            tokenSymbol: 'USDC',
            amount: '1.5',
            account: 'offramp-provider',
            paysOut: `${run}:${i}`,
          }),
        ),
      );
      for (const answer of answers) expect(answer.status).not.toBe('failed');
      await eventually(
        () => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [to] }),
        (balance) => balance === parseUnits('36', 6),
        30_000,
      );
      const { rows } = await eventually(
        () =>
          pool.query<{ sender: string; data: string; status: string; tx_hash: string }>(
            `select sender, data, status, tx_hash from chain.chain_sends where chain = 'test-base' and idempotency_key like $1`,
            [`transfer:${run}:%`],
          ),
        (found) => found.rows.length === count && found.rows.every((row) => row.status === 'confirmed'),
        30_000,
      );
      // Every send by one of the chain's lanes, more than one of them used; a lane's call is the hot wallet's tokens'
      // transferFrom, mined with a Transfer from the hot wallet (what made it confirmed rather than failed).
      const senders = new Set(rows.map((row) => row.sender));
      for (const sender of senders) expect(lanes).toContain(sender);
      expect(senders.size).toBeGreaterThan(1);
      for (const row of rows.filter((candidate) => candidate.sender !== hot)) {
        expect(row.data.slice(0, 10)).toBe('0x23b872dd');
        const receipt = await client.getTransactionReceipt({ hash: row.tx_hash as Hex });
        expect(getAddress(receipt.from)).toBe(getAddress(row.sender));
      }
      expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [hot] })).toBe(hotUsdcBefore - parseUnits('36', 6));
      // A lane holds no tokens, only its gas, which the hot wallet topped up to the chain's laneGas.
      for (const lane of lanes.slice(1)) {
        // (The last lane is where the outsider below sends tokens, which a rerun on the same chain would find.)
        if (lane !== lanes[3]) expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [lane] })).toBe(0n);
        const gas = await client.getBalance({ address: lane });
        expect(gas > 0n && gas <= parseEther(base.laneGas)).toBe(true);
      }
      // Tokens an outsider sends a lane are nobody's deposit: left out of the holdings, they cannot make the chain drift
      // (and pause its sends). The lanes' gas is booked like the hot wallet's: the books equal the chain, to the base unit.
      const outsider = await endUser('5');
      const sent = await outsider.wallet.writeContract({
        chain: null,
        address: usdc,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [lanes[3]!, parseUnits('5', 6)],
      });
      expect(await succeeded(sent)).toBe('success');
      expect(await ledgerCheck()).toMatchObject({ ok: true, negative: [] });
    });
  }, 90_000);

  it('nets the settlements asked within CHAIN_SETTLEMENT_NET_MS into one transfer of their sum, each answered with its hash and booked as its own share', async () => {
    await withChainRpc('chain-netting-test', async (rpc, pool) => {
      const provider = privateKeyToAccount(generatePrivateKey()).address;
      const run = newId('txn');
      const amounts = ['1.25', '2', '0.000001', '10.5'];
      const settle = (i: number, amount = amounts[i]!) =>
        rpc.call(ChainTransfer.contract, platformTenant('test', 'ramp'), {
          environment: 'test',
          chain: 'base',
          idempotencyKey: `${run}:${i}:settle`,
          to: provider,
          tokenSymbol: 'USDC',
          amount,
          account: 'offramp-provider',
          paysOut: `${run}:${i}`,
          net: true,
        });
      const first = await Promise.all(amounts.map((_, i) => settle(i)));
      for (const answer of first)
        expect(answer).toMatchObject({ status: 'queued', waiting: expect.stringMatching(/^netted: sent with the other settlements/) });
      // Each is one settlement whatever happens to it: another amount under its key is refused, a refund is never netted.
      await expect(settle(0, '1.26')).rejects.toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' });
      await expect(
        rpc.call(ChainTransfer.contract, platformTenant('test', 'ramp'), {
          environment: 'test',
          chain: 'base',
          idempotencyKey: `${run}:refund`,
          to: provider,
          tokenSymbol: 'USDC',
          amount: '1',
          account: 'offramp-deposits',
          refundOf: 'test:base:0xabc:0',
          net: true,
        }),
      ).rejects.toMatchObject({ reason: 'INVALID_FIELD', field: 'net' });
      // One transfer of their sum, which every one of them answers with.
      const answers = await eventually(
        () => Promise.all(amounts.map((_, i) => settle(i))),
        (all) => all.every((answer) => answer.status === 'confirmed'),
        30_000,
      );
      const hashes = new Set(answers.map((answer) => answer.transactionHash));
      expect(hashes.size).toBe(1);
      expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [provider] })).toBe(parseUnits('13.750001', 6));
      const { rows: sends } = await pool.query<{ id: string; idempotency_key: string }>(
        `select id, idempotency_key from chain.chain_sends where chain = 'test-base' and tx_hash = $1`,
        [[...hashes][0]],
      );
      expect(sends).toEqual([{ id: expect.any(String), idempotency_key: expect.stringMatching(/^net:[0-9a-f]{24}$/) }]);
      // Each settlement is its own outflow, tied to what it pays out, and its own entry in the books.
      const { rows: outflows } = await pool.query(
        `select pays_out, amount::text from chain.outflows where chain = 'test-base' and pays_out like $1 order by pays_out`,
        [`${run}:%`],
      );
      expect(outflows).toEqual(amounts.map((amount, i) => ({ pays_out: `${run}:${i}`, amount })));
      const entries = await eventually(
        () =>
          pool.query<{ id: string; amount: string }>(
            `select e.id, p.amount::text from ledger.entries e join ledger.postings p on p.entry_id = e.id
            where e.id like $1 and p.account like 'external:chain-%' order by e.id`,
            [`send:test-base:${sends[0]!.id}:%`],
          ),
        ({ rows }) => rows.length === amounts.length,
        20_000,
      );
      // What left for the provider, each share in its own entry: the chain's account takes it back (it is minus what is held).
      expect(entries.rows).toEqual(amounts.map((amount, i) => ({ id: `send:test-base:${sends[0]!.id}:${run}:${i}:settle`, amount })));
      expect(await ledgerCheck()).toMatchObject({ ok: true, negative: [] });
    });
  }, 90_000);

  it('the books of every chain equal the chain to the base unit, gas included, and a change nobody booked is reported', async () => {
    const wallet = (await api.post('/wallets', { chain: 'bsc' })).body.data;
    await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'USDT', amount: '12.000000000000000001' });
    await api.post(`/sandbox/wallets/${wallet.walletId}/fund`, { tokenSymbol: 'BNB', amount: '0.3' });
    // The address is swept a few seconds after its credit: wait for that sweep to be final, so that its gas is not on its
    // way to the books while the exact check below runs.
    await finalSweeps('test-bsc', wallet.address);
    const check = await ledgerCheck();
    expect(check).toMatchObject({ ok: true, unbalancedAssets: [], negative: [] });
    const test = check.chains.find((environment) => environment.environment === 'test')!;
    expect(test.chains.map((chain) => chain.chain)).toEqual(['base', 'bsc', 'arbitrum']);
    expect(test.drifts).toEqual([]);
    const drift = async () =>
      Number((/^ramp_ledger_chain_drift_assets(?:\{[^}]*\})? (\S+)$/m.exec(await (await fetch(`${services.get('ledger')!.url}/metrics`)).text()) ?? [])[1]);
    await eventually(drift, (value) => value === 0);
    // What the platform holds beyond the wallets' balances: ledger:check shows it to the unit, the metrics against the marks.
    const usdt = test.inventory.find((entry) => entry.chain === 'bsc' && entry.tokenSymbol === 'USDT')!;
    expect(dec(usdt.free).eq(dec(usdt.held).sub(usdt.owed))).toBe(true);
    expect(dec(usdt.owed).gte('12.000000000000000001')).toBe(true);
    const treasury = async () => await (await fetch(`${services.get('ledger')!.url}/metrics`)).text();
    const series = (text: string, name: string, token: string) =>
      new RegExp(`^${name}\\{[^}]*environment="test",chain="bsc",token="${token}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1];
    const metrics = await eventually(treasury, (text) => series(text, 'ramp_treasury_inventory_low', 'USDT') !== undefined);
    expect([series(metrics, 'ramp_treasury_inventory_low', 'USDT'), series(metrics, 'ramp_treasury_inventory_low', 'BNB')]).toEqual(['1', '0']);
    expect(series(metrics, 'ramp_treasury_inventory_low', 'NOPE')).toBe('1');
    expect(series(metrics, 'ramp_treasury_inventory_low', 'USDC')).toBeUndefined();
    expect(Number(series(metrics, 'ramp_treasury_inventory', 'BNB'))).toBeGreaterThan(0);

    // Ether nobody booked appears in the hot wallet: reported, to the wei, until it is gone again.
    const hot = HdCustody.development().signer(base.hotWalletPath).address;
    const before = await client.getBalance({ address: hot });
    await client.request({ method: 'anvil_setBalance' as any, params: [hot, `0x${(before + 7n).toString(16)}`] as any });
    try {
      const drifted = await ledgerCheck(0);
      expect(drifted.ok).toBe(false);
      expect(drifted.chains.find((environment) => environment.environment === 'test')!.drifts).toEqual([
        { chain: 'base', tokenSymbol: 'ETH', books: expect.any(String), onchain: expect.any(String), drift: '0.000000000000000007' },
      ]);
      await eventually(drift, (value) => value === 1);
    } finally {
      await client.request({ method: 'anvil_setBalance' as any, params: [hot, `0x${before.toString(16)}`] as any });
    }
    expect((await ledgerCheck()).ok).toBe(true);
  }, 90_000);

  it('a chain whose books and holdings drift apart beyond noise has its outbound sends paused until it reconciles again', async () => {
    const pool = new Pool({ connectionString: TEST_DATABASE_URL });
    const hot = HdCustody.development().signer(base.hotWalletPath).address;
    const before = await client.getBalance({ address: hot });
    const metric = async (name: string) =>
      Number(
        (new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(
          await (await fetch(`${services.get(name.startsWith('ramp_chain') ? 'chain' : 'ledger')!.url}/metrics`)).text(),
        ) ?? [])[1],
      );
    try {
      // Half the hot wallet's ether gone without a send of the platform's: a drift far beyond the gas of any send.
      await client.request({ method: 'anvil_setBalance' as any, params: [hot, `0x${(before / 2n).toString(16)}`] as any });
      await eventually(
        async () => (await pool.query(`select reason from chain.send_pauses where chain = 'test-base'`)).rows[0]?.reason,
        (reason) => /ETH books/.test(reason ?? ''),
        30_000,
      );
      await eventually(
        () => metric('ramp_chain_sends_paused'),
        (value) => value === 1,
        30_000,
      );
      // Nothing new leaves the paused hot wallet: a deposit is credited, its sweep waits.
      const wallet = (await api.post('/wallets', { chain: 'base' })).body.data;
      const user = await endUser('10');
      const paid = await user.wallet.writeContract({
        chain: null,
        address: usdc,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [wallet.address as Address, parseUnits('10', 6)],
      });
      expect(await succeeded(paid)).toBe('success');
      await eventually(
        async () => balanceOf((await api.get(`/wallets/${wallet.walletId}`)).body.data, 'USDC').available,
        (available) => available === '10',
      );
      const sweep = async () =>
        (
          await pool.query(`select status from chain.chain_sends where chain = 'test-base' and kind = 'sweep' and idempotency_key = $1`, [
            `sweep:test:base:${wallet.address.toLowerCase()}:0`,
          ])
        ).rows[0]?.status;
      await eventually(sweep, (status) => status !== undefined, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await sweep()).toBe('queued');
    } finally {
      await client.request({ method: 'anvil_setBalance' as any, params: [hot, `0x${before.toString(16)}`] as any });
    }
    // Reconciled again: the pause is lifted and the sweep goes out.
    await eventually(
      async () => (await pool.query(`select 1 from chain.send_pauses where chain = 'test-base'`)).rowCount,
      (count) => count === 0,
      30_000,
    );
    await eventually(
      async () => (await pool.query(`select status from chain.chain_sends where chain = 'test-base' and kind = 'sweep' and status = 'queued'`)).rowCount,
      (count) => count === 0,
      30_000,
    );
    await pool.end();
  }, 120_000);

  it('no key or seed in the logs, the answers or a dump of the database', async () => {
    const custody = HdCustody.development();
    const words = DEVELOPMENT_MNEMONIC.split(' ');
    // The hot wallet's private key, derived here as an attacker with the seed would: it must be nowhere either.
    const hotKey = toHex(mnemonicToAccount(DEVELOPMENT_MNEMONIC, { path: base.hotWalletPath }).getHdKey().privateKey!).slice(2);
    const secrets = [DEVELOPMENT_MNEMONIC, words.slice(0, 4).join(' '), hotKey];
    const logs = [...services.values()].map((service) => service.logs).join('\n');
    const answers = JSON.stringify([(await api.get('/transfer/chains')).body, (await api.get('/wallets')).body]);
    const dump = execFileSync('pg_dump', ['--data-only', '--schema=chain', '--schema=ledger', TEST_DATABASE_URL], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    expect(dump).toContain(custody.signer(base.hotWalletPath).address); // the dump is of the right database
    for (const text of [logs, answers, dump]) for (const secret of secrets) expect(text).not.toContain(secret);
    expect(JSON.stringify(custody)).toBe('"[HdCustody]"');
  });
});
