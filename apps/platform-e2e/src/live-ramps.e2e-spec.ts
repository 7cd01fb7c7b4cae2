import { randomBytes } from 'crypto';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client, Pool } from 'pg';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  formatUnits,
  getAddress,
  http,
  parseEther,
  parseEventLogs,
  parseUnits,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { english, generateMnemonic, mnemonicToAccount } from 'viem/accounts';
import { makeNuban, payoutReference } from '@ramp/banking';
import { liveChainData } from '@ramp/chains';
import { HdCustody, LIVE_DEPLOYER_PATH, REHEARSAL_END_USER, REHEARSAL_FUNDING, standInLiveChain, TestToken, UniswapV2Pair, UniswapV2Router02 } from '@ramp/evm';
import { SecretBox } from '@ramp/keys';
import { dec, ROUND_DOWN, type Decimal } from '@ramp/money';
import { SandboxPriceFeed } from '@ramp/providers';
import {
  ANVIL_MNEMONIC,
  AnvilNode,
  ApiClient,
  eventually,
  expectError,
  freshStack,
  operatorCommand,
  PARTNER_CONTRACTS,
  PaystackEmulator,
  PrismProxy,
  runCompiled,
  startServices,
  stopAll,
  TEST_DATABASE_URL,
  type ApiResponse,
  type ServiceProcess,
} from '@ramp/testing';

/** The account the Naira is paid to (GTBank), as Paystack's name enquiry knows it. */
const ACCOUNT = makeNuban('058', '012345678');
const ACCOUNT_NAME = 'ADA OBI';
const HOT_WALLET_PATH = "m/44'/60'/1'/0/0";

/**
 * Live ramps end to end, with nothing leaving the machine (LIVE.md section 4): an anvil node standing in for Base
 * (chain id 8453; standInLiveChain puts USDC, CNGN and Uniswap V2 at their mainnet addresses and seeds the pools at the
 * sandbox prices), the platform's contracts deployed and pinned by `npm run chain:deploy` as an operator does, a live
 * custody seed of the run's own, the platform's real services on a database and events namespace of their own, and
 * Paystack's emulator behind Prism (its published contract checks every request and answer). A live key's quote is
 * priced from the live chain's own pool, and only once the chain service has watched it for a span (refused before,
 * PRICE_DEVIATION); the end user's USDC arrives at the deposit address by a real transfer, is swept to the hot wallet and
 * swapped to CNGN through the pool on chain, and Paystack pays the Naira. When every payout attempt fails after that
 * swap, the off-ramp is held for an operator (`offramp.payout_held`, `npm run ops -- held`) and nothing is sent back.
 * A live on-ramp is priced from the same pool the other way (its Naira after the fees, as CNGN one for one, swapped to
 * USDC), and only while the treasury's free CNGN on the chain (what the hot wallet holds, from the off-ramps' swaps, less
 * what customers are owed) covers it (503 INSUFFICIENT_LIQUIDITY otherwise); once its Naira arrives at Paystack (the
 * payer's dedicated account), the hot wallet's CNGN is swapped to USDC through the pool on chain, nothing is minted, and
 * the quoted USDC is sent from the hot wallet to the end user.
 */
describe('live ramps - priced from the live pool, swapped on chain, paid and collected through Paystack', () => {
  const node = new AnvilNode({ chainId: 8453 });
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = '/ramp_live_ramps_test';
  const databaseUrl = url.toString();
  const namespace = 'liveramps';
  // The live custody: a seed of this run's own (never the development or the test seed), sealed with a key of its own.
  const sealingKey = randomBytes(32).toString('base64');
  const box = new SecretBox(sealingKey, false);
  const sealedSeed = box.seal(generateMnemonic(english));
  const custody = HdCustody.sealed(sealedSeed, box);
  const hotWallet = custody.signer(HOT_WALLET_PATH).address;
  const live = liveChainData('base')!;
  const tokenOf = (symbol: string) => getAddress(live.tokens.find((token) => token.symbol === symbol)!.address);
  const usdc = tokenOf('USDC');
  const cngn = tokenOf('CNGN');
  const router = getAddress(live.dex.router.address);
  /** The rehearsal's end user: anvil's account 7, holding 100,000 USDC on the stand-in. */
  const endUser = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 7 });
  const paystack = new PaystackEmulator(`sk_live_${randomBytes(12).toString('hex')}`);
  /** The operator's screening denylist: an unrelated address to begin with; a case adds a sender of its own. */
  const screeningDir = mkdtempSync(join(tmpdir(), 'live-ramps-screening-'));
  const denylist = join(screeningDir, 'denylist.txt');
  writeFileSync(denylist, '# EVM addresses to hold\n0x7F367cC41522cE07553e823bf3be79A889DEbe1B\n');
  /** The chain service's settings, which `chain:deploy` runs with too (once the node has its port). */
  const chainEnv = () => ({
    DATABASE_URL: databaseUrl,
    EVENTS_NAMESPACE: namespace,
    // The live chain alone: no test chain shares this stack's database.
    TEST_CHAINS: JSON.stringify({ base: null, bsc: null, arbitrum: null }),
    // Final at a depth of 12 blocks, the least a live chain counting by depth may have.
    LIVE_CHAINS: JSON.stringify({ base: { chainId: 8453, rpcUrl: node.rpcUrl, hotWalletPath: HOT_WALLET_PATH, finality: 'depth', confirmations: 12 } }),
    CUSTODY_SEED: sealedSeed,
    CUSTODY_SEALING_KEY: sealingKey,
  });
  let prism: PrismProxy;
  let services: Map<string, ServiceProcess>;
  let api: ApiClient;
  let client: PublicClient;
  let pool: Pool;
  let cngnPair: Address;
  let paystackWebhook: string;
  let mining = false;

  beforeAll(async () => {
    await node.start();
    client = createPublicClient({ transport: http(node.rpcUrl) }) as PublicClient;
    const stoodIn = await standInLiveChain(client, live, {
      operator: createWalletClient({ account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 }), transport: http(node.rpcUrl) }),
      rpc: (method, params) => node.rpc(method, params),
      funded: [REHEARSAL_FUNDING],
    });
    cngnPair = stoodIn.dex.pairs.CNGN!;
    // The deployer pays the forwarder factory's deployment, the hot wallet its sweeps' and swaps' gas: the operator funds both.
    await node.rpc('anvil_setBalance', [custody.signer(LIVE_DEPLOYER_PATH).address, toHex(parseEther('1'))]);
    await node.rpc('anvil_setBalance', [hotWallet, toHex(parseEther('10'))]);
    await freshStack(databaseUrl, namespace);
    const deployed = await runCompiled('dist/apps/chain/src/cli/deploy.js', ['--env', 'live', '--chain', 'base', '--operator', 'e2e'], chainEnv());
    if (deployed.code !== 0) throw new Error(`chain:deploy failed (${deployed.code}): ${deployed.stderr}`);

    await paystack.start();
    paystack.openAccount('058', ACCOUNT, ACCOUNT_NAME);
    prism = await PrismProxy.start(PARTNER_CONTRACTS.paystack, paystack.url);
    // The node mines nothing until the first case asks for a quote (a block per transaction meanwhile): the chain
    // service's readings of the pools all stand at one block, so none can be averaged yet.
    services = await startServices(['quote', 'ledger', 'ramp', 'gateway'], {
      ...chainEnv(),
      LIVE_PROVIDERS_ENABLED: 'true',
      PAYSTACK_SECRET_KEY: paystack.secretKey,
      PAYSTACK_BASE_URL: prism.url,
      NAME_ENQUIRY_PROVIDERS: 'paystack',
      PAYOUT_PROVIDERS: 'paystack',
      // Live on-ramps' Naira: collected into the payer's dedicated account at Paystack.
      COLLECTION_PROVIDERS: 'paystack',
      SCREENING_DENYLIST_FILE: denylist,
      // Moved on by Paystack's events, not by looking: a minute between two looks at a transfer.
      PAYOUT_VERIFY_MS: '60000',
      // The pools averaged over 10 s (the chain service), and a live quote taking an average that short (the quote service).
      POOL_AVERAGE_SECONDS: '10',
      LIVE_POOL_MIN_AVERAGE_SECONDS: '10',
    });
    const key = await runCompiled(
      'dist/apps/gateway/src/cli/keys.js',
      ['create', '--org', `Live ramps ${Date.now()}`, '--env', 'live', '--plan', 'enterprise'],
      {
        DATABASE_URL: databaseUrl,
      },
    );
    if (key.code !== 0) throw new Error(`keys create failed: ${key.stderr}`);
    const gateway = services.get('gateway')!;
    api = new ApiClient(`${gateway.url}/v1`, JSON.parse(key.stdout).apiKey);
    paystackWebhook = `${gateway.url}/partners/paystack/webhook`;
    pool = new Pool({ connectionString: databaseUrl, max: 2 });
  }, 180_000);

  afterAll(async () => {
    await pool?.end();
    await stopAll(services?.values() ?? []);
    await prism?.stop();
    await paystack.stop();
    await node.stop();
    rmSync(screeningDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('drop database if exists ramp_live_ramps_test with (force)');
    await admin.end();
  });

  afterEach(() => expect(prism.violations).toEqual([]));

  /** From now on a block a second, as on Base (12 of them make a deposit or a send final: about 12 s). */
  const mineEverySecond = async () => {
    if (mining) return;
    await node.rpc('evm_setIntervalMining', [1]);
    mining = true;
  };
  const usdcOf = (holder: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const cngnOf = (holder: Address) => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'balanceOf', args: [holder] });
  const quote = () => api.post('/offramp/quote', { amount: '100', tokenSymbol: 'USDC', chain: 'base', bankCode: '058', accountNumber: ACCOUNT });
  /** A quote, once the pool has an average to judge it by (503 PRICE_DEVIATION until then). */
  const priced = async () => (await eventually(quote, (answer: ApiResponse) => answer.status === 200, 60_000, 500)).body.data;
  /** What 100 USDC buys of CNGN through the pool now, as its router says. */
  const poolPrice = async () => {
    const [, out] = await client.readContract({
      address: router,
      abi: UniswapV2Router02.abi,
      functionName: 'getAmountsOut',
      args: [parseUnits('100', 6), [usdc, cngn]],
    });
    return dec(formatUnits(out!, 6));
  };
  /**
   * The hot wallet's swap `hash` on the live router, through the CNGN pair alone: exactly `amountIn` of `tokenIn` paid
   * into the pair, and the one transfer of `tokenOut` it got back (its amount, with the receipt).
   */
  const hotWalletSwap = async (hash: Hex, tokenIn: Address, amountIn: bigint, tokenOut: Address) => {
    const swap = await client.getTransactionReceipt({ hash });
    expect(swap.status).toBe('success');
    expect(getAddress(swap.from)).toBe(hotWallet);
    expect(getAddress(swap.to!)).toBe(router);
    expect(parseEventLogs({ abi: UniswapV2Pair.abi, eventName: 'Swap', logs: swap.logs }).map((log) => getAddress(log.address))).toEqual([cngnPair]);
    const moved = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: swap.logs });
    const paidIn = moved.filter((log) => getAddress(log.address) === tokenIn && getAddress(log.args.from) === hotWallet);
    expect(paidIn.map((log) => [getAddress(log.args.to), log.args.value])).toEqual([[cngnPair, amountIn]]);
    const out = moved.filter((log) => getAddress(log.address) === tokenOut && getAddress(log.args.to) === hotWallet);
    expect(out).toHaveLength(1);
    return { swap, out: out[0]!.args.value };
  };
  const offrampOf = async (transactionId: string) => (await api.get(`/offramp/${transactionId}`)).body.data;
  /**
   * Once the ledger booked the off-ramp's deposit spent (paid out, or held after its swap): what the off-ramp deposits
   * account still holds of USDC on the chain, owed to customers (the treasury's inventory counts it as not its own).
   */
  const owedOnceSpent = async (transactionId: string) => {
    const spent = await eventually(
      async () =>
        (await pool.query(`select account, amount::text from ledger.postings where entry_id = $1 order by amount`, [`offramp:${transactionId}:deposit-spent`]))
          .rows,
      (rows) => rows.length > 0,
      30_000,
    );
    expect(spent).toEqual([
      { account: 'external:offramp-deposits-live-base', amount: '-100' },
      { account: 'external:offramp-provider-live-base', amount: '100' },
    ]);
    const { rows } = await pool.query(`select amount::text from ledger.balances where account = 'external:offramp-deposits-live-base' and asset = 'base:USDC'`);
    return rows[0]?.amount as string;
  };

  /** A live on-ramp's quote: `amount` Naira of USDC on base. */
  const onrampQuote = (amount: string) => api.post('/onramp/quote', { amount, tokenSymbol: 'USDC', chain: 'base' });
  const onrampOf = async (transactionId: string) => (await api.get(`/onramp/${transactionId}`)).body.data;
  /** The on-ramp quotes the quote service stored (a refused quote stores none). */
  const onrampQuotesStored = async () => (await pool.query(`select count(*)::int as n from quote.quotes where kind = 'onramp'`)).rows[0].n as number;
  /** An on-ramp to the end user initiated from each quote, each with a payer of its own: its id and dedicated account. */
  const initiateOnramps = (quotes: ApiResponse[]) =>
    Promise.all(
      quotes.map(async (asked) => {
        const customer = { email: `payer.${randomBytes(4).toString('hex')}@example.com`, firstName: 'Ada', lastName: 'Obi', phone: '08031234567' };
        const initiated = await api.post('/onramp/initiate', { quoteId: asked.body.data.quoteId, destinationAddress: REHEARSAL_END_USER, customer });
        expect(initiated.status).toBe(201);
        return { transactionId: initiated.body.data.id as string, account: initiated.body.data.paymentInstructions.accountNumber as string };
      }),
    );
  /**
   * Every on-ramp of `started` paid at once through Paystack (`amount` Naira each: their steps are due together), and
   * each one's view once it ended; of two the treasury covers only one of, one completed and one failed.
   */
  const paidAtOnce = async (started: { transactionId: string; account: string }[], amount: string) => {
    const payments = await Promise.all(started.map(({ account }) => paystack.payInto(account, Number(dec(amount).mul(100).toFixed(0)), paystackWebhook)));
    const ended = await Promise.all(
      started.map(({ transactionId }) =>
        eventually(
          () => onrampOf(transactionId),
          (read) => read.status !== 'pending',
          120_000,
        ),
      ),
    );
    expect(ended.map((read) => read.status).sort()).toEqual(['completed', 'failed']);
    const refusedIndex = ended.findIndex((read) => read.status === 'failed');
    return { payments, ended, refusedIndex, refused: ended[refusedIndex]!, done: ended[1 - refusedIndex]! };
  };
  /** The treasury's reservations of these ids (TreasuryReserve), once every one of them was released. */
  const releasedReservations = (ids: string[]) =>
    eventually(
      async () =>
        (
          await pool.query(
            `select reservation_id, amount::text, released_at is not null as released from ledger.treasury_reservations where reservation_id = any($1)`,
            [ids],
          )
        ).rows,
      (rows) => rows.every((row) => row.released),
      30_000,
    );
  /** What `cngnAmount` CNGN buys of USDC through the pool now, as its router says. */
  const usdcForCngn = async (cngnAmount: Decimal) => {
    const [, out] = await client.readContract({
      address: router,
      abi: UniswapV2Router02.abi,
      functionName: 'getAmountsOut',
      args: [parseUnits(cngnAmount.toFixed(), 6), [cngn, usdc]],
    });
    return dec(formatUnits(out!, 6));
  };
  const cngnSupply = () => client.readContract({ address: cngn, abi: erc20Abi, functionName: 'totalSupply' });

  /** `payer`'s transfer of `amount` USDC to `to`, mined and successful: its hash. */
  const payUsdc = async (payer: typeof endUser, to: Address, amount: string) => {
    const hash = await createWalletClient({ account: payer, transport: http(node.rpcUrl) }).writeContract({
      chain: null,
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, parseUnits(amount, 6)],
    });
    expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success');
    return hash;
  };
  /**
   * The off-ramp of `quoted` initiated from `payer`'s address (the end user's by default), and the payer's transfer of
   * exactly its amount to the deposit address (after `beforePaying`, given the transaction id).
   */
  const depositFor = async (
    quoted: { quoteId: string; cryptoAmount: string },
    payer = endUser,
    beforePaying?: (transactionId: string) => Promise<void> | void,
  ) => {
    const started = await api.post('/offramp/initiate', { quoteId: quoted.quoteId, sourceAddress: payer.address });
    expect(started.status).toBe(201);
    const { transactionId, depositAddress } = started.body.data as { transactionId: string; depositAddress: Address };
    expect(depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await beforePaying?.(transactionId);
    const paid = await payUsdc(payer, depositAddress, quoted.cryptoAmount);
    return { transactionId, depositAddress: getAddress(depositAddress), paid };
  };

  /** The off-ramp once its swap to CNGN ran on chain, and the swap's hash. */
  const swappedOf = async (transactionId: string) => {
    const view = await eventually(
      () => offrampOf(transactionId),
      (read) => read.status !== 'pending' || Boolean(read.hashes?.some((hash: { step: string }) => hash.step === 'swap')),
      90_000,
      250,
    );
    expect(view.status).toBe('pending');
    const swap = view.hashes.find((hash: { step: string }) => hash.step === 'swap') as { transactionHash: Hex; settlement: string };
    expect(swap.settlement).toBe('onchain');
    return { view, swapHash: swap.transactionHash };
  };

  /** The payout attempt `attempt` of the off-ramp, once asked of Paystack under its reference (one transfer, pending). */
  const transferAsked = async (transactionId: string, attempt: number) => {
    const reference = payoutReference(transactionId, attempt);
    const transfer = await eventually(
      async () => paystack.transfers.get(reference),
      (asked) => asked?.status === 'pending',
      30_000,
      100,
    );
    expect(paystack.calls('/transfer').filter((call) => (call.body as { reference?: string }).reference === reference)).toHaveLength(1);
    return { reference, transfer: transfer! };
  };

  it("quotes a live off-ramp from the live chain's own pool, runs its deposit, sweep and swap on chain, and pays the Naira through Paystack", async () => {
    // Before the chain service has watched the pool for a span, its price is not trusted: no quote.
    const early = await quote();
    expectError(early, 503, 'SERVICE_UNAVAILABLE', undefined, 'PRICE_DEVIATION');
    expect(early.text).not.toContain('quoteId');
    await mineEverySecond();

    const quoted = await priced();
    expect(quoted).toMatchObject({
      cryptoAmount: '100',
      tokenSymbol: 'USDC',
      chain: 'base',
      fiatCurrency: 'NGN',
      bankAccount: { bankCode: '058', accountNumber: ACCOUNT, accountName: ACCOUNT_NAME },
    });
    // Priced by the pool (1,500 CNGN to the dollar less its 0.3% and the trade's impact), not by the sandbox's feed
    // (1,492.50 NGN a USDC on the sell side: 149,250.00), though within a few percent of it.
    const fiat = dec(quoted.fiatAmount);
    const fromPool = await poolPrice();
    expect(fiat.sub(fromPool).abs().lte(fromPool.mul('0.001'))).toBe(true);
    const feed = dec(100).mul(await new SandboxPriceFeed().ngnRate('USDC', 'sell'));
    expect(fiat.sub(feed).abs().div(feed).lt('0.03')).toBe(true);
    expect(fiat.eq(feed)).toBe(false);
    expect(dec(quoted.payoutAmount).lt(fiat)).toBe(true);

    // The pool is trusted now, but the hot wallet holds no CNGN yet: a live on-ramp, whose USDC comes from swapping the
    // treasury's CNGN, cannot be quoted at all.
    expect(await cngnOf(hotWallet)).toBe(0n);
    const uncovered = await onrampQuote('50000');
    expectError(uncovered, 503, 'SERVICE_UNAVAILABLE', undefined, 'INSUFFICIENT_LIQUIDITY');
    expect(uncovered.text).not.toContain('quoteId');

    const held = await usdcOf(REHEARSAL_END_USER);
    const { transactionId, depositAddress, paid } = await depositFor(quoted);
    const { view, swapHash } = await swappedOf(transactionId);
    expect(view).toMatchObject({ depositAddress, sourceAddress: REHEARSAL_END_USER, depositTransactionHash: paid });

    // The deposit was swept into the hot wallet (the address is its forwarder now, holding nothing), and the hot wallet
    // swapped exactly the quoted USDC for CNGN through the live pool's pair, at least the quote's Naira less 1%.
    expect(await usdcOf(depositAddress)).toBe(0n);
    expect(await client.getCode({ address: depositAddress })).toMatch(/^0x[0-9a-f]+/);
    const { out: cngnOut } = await hotWalletSwap(swapHash, usdc, parseUnits('100', 6), cngn);
    expect(dec(formatUnits(cngnOut, 6)).gte(fiat.mul('0.99'))).toBe(true);

    // Paystack is asked for one transfer of the payout, in kobo, to the quoted account; its success completes the off-ramp.
    const { reference, transfer } = await transferAsked(transactionId, 1);
    expect(String(transfer.amount)).toBe(dec(quoted.payoutAmount).mul(100).toFixed(0));
    expect(transfer.recipient).toMatchObject({ account_number: ACCOUNT, bank_code: paystack.paystackCodeOf('058') });
    expect((await paystack.settle(reference, 'success', paystackWebhook))!.status).toBe(200);
    const done = await eventually(
      () => offrampOf(transactionId),
      (read) => read.status !== 'pending',
      30_000,
      100,
    );
    expect(done).toMatchObject({ status: 'completed', depositTransactionHash: paid });
    expect(done).not.toHaveProperty('refundTransactionHash');
    expect(done.hashes).toEqual([
      { step: 'deposit', transactionHash: paid, settlement: 'onchain' },
      { step: 'swap', transactionHash: swapHash, settlement: 'onchain' },
    ]);
    expect([...paystack.transfers.keys()].filter((key) => key.startsWith(transactionId.toLowerCase()))).toEqual([reference]);
    // The end user paid the quoted USDC once; the CNGN stays in the hot wallet (the bank partner paid from its balance).
    expect(await usdcOf(REHEARSAL_END_USER)).toBe(held - parseUnits('100', 6));
    expect(await cngnOf(hotWallet)).toBe(cngnOut);
    // Its deposit is spent: owed to no one now (credited 100, moved to the provider's account), so the treasury's
    // inventory does not count it as customers' forever.
    expect(await owedOnceSpent(transactionId)).toBe('0');
  }, 180_000);

  it('holds a live off-ramp whose payout fails after its swap for an operator, and sends nothing back', async () => {
    await mineEverySecond();
    const quoted = await priced();
    const { transactionId, paid } = await depositFor(quoted);
    const afterDeposit = await usdcOf(REHEARSAL_END_USER);
    const { swapHash } = await swappedOf(transactionId);

    // Each of its payout's attempts (at most 3, all at Paystack: the only partner) fails at the bank as it is asked.
    const references: string[] = [];
    for (const attempt of [1, 2, 3]) {
      const { reference } = await transferAsked(transactionId, attempt);
      references.push(reference);
      expect((await paystack.settle(reference, 'failed', paystackWebhook))!.status).toBe(200);
    }

    // Held for an operator: the domain event is recorded, and no step was scheduled from it on (a job decided earlier,
    // such as the deposit's expiry, is stale: it finds nothing to do and is removed).
    const stream = `offramp-${transactionId}`;
    const heldEvents = await eventually(
      async () => (await pool.query(`select type, data, stream_version from ramp.events where stream_id = $1 and type = 'offramp.payout_held'`, [stream])).rows,
      (rows) => rows.length > 0,
      30_000,
      100,
    );
    expect(heldEvents).toEqual([
      {
        type: 'offramp.payout_held',
        data: expect.objectContaining({ errorMessage: expect.any(String), at: expect.any(String) }),
        stream_version: expect.any(Number),
      },
    ]);
    const due = await pool.query(`select step from ramp.jobs where stream_id = $1 and decided_at_version >= $2`, [stream, heldEvents[0].stream_version]);
    expect(due.rows).toEqual([]);
    const held = await offrampOf(transactionId);
    expect(held.status).toBe('pending');
    expect(held).not.toHaveProperty('refundTransactionHash');
    expect(held.hashes).toEqual([
      { step: 'deposit', transactionHash: paid, settlement: 'onchain' },
      { step: 'swap', transactionHash: swapHash, settlement: 'onchain' },
    ]);
    // Nothing went back to the end user, and the chain service was never asked to send it anything.
    expect(await usdcOf(REHEARSAL_END_USER)).toBe(afterDeposit);
    const sent = await pool.query(`select send_key from chain.transfers where chain = 'live-base' and lower(to_address) = lower($1)`, [REHEARSAL_END_USER]);
    expect(sent.rows).toEqual([]);
    // Three transfers asked, each failed; no other.
    expect([...paystack.transfers.keys()].filter((key) => key.startsWith(transactionId.toLowerCase()))).toEqual(references);
    expect(references.map((reference) => paystack.transfers.get(reference)!.status)).toEqual(['failed', 'failed', 'failed']);

    // The operator finds it among what is held.
    const listed = await operatorCommand<{ heldPayouts?: { transactionId: string }[] }>('dist/apps/ramp/src/cli/ops.js', ['held'], {
      DATABASE_URL: databaseUrl,
    });
    expect(listed.heldPayouts).toEqual([expect.objectContaining({ transactionId })]);
    // Its deposit was swapped and is not given back: spent, what it owes is Naira.
    expect(await owedOnceSpent(transactionId)).toBe('0');
  }, 150_000);

  it("refuses a live on-ramp the treasury's CNGN cannot cover (INSUFFICIENT_LIQUIDITY)", async () => {
    await mineEverySecond();
    // The hot wallet holds only the CNGN the two off-ramps' swaps gave (about 299,000): 5,000,000 NGN (well within an
    // on-ramp's limits, 1,000 to 50,000,000 NGN, and about 3,300 USDC) would need about 4,999,780 of it.
    const held = await cngnOf(hotWallet);
    expect(held).toBeGreaterThan(parseUnits('100000', 6));
    expect(held).toBeLessThan(parseUnits('1000000', 6));
    const stored = await onrampQuotesStored();
    const refused = await onrampQuote('5000000');
    expectError(refused, 503, 'SERVICE_UNAVAILABLE', undefined, 'INSUFFICIENT_LIQUIDITY');
    expect(refused.text).not.toContain('quoteId');
    expect(await onrampQuotesStored()).toBe(stored);
  });

  it("quotes a live on-ramp from the live pool, and once its Naira arrives at Paystack swaps the treasury's CNGN to USDC on chain and delivers it", async () => {
    await mineEverySecond();
    const asked = await onrampQuote('50000');
    expect(asked.status).toBe(200);
    const quoted = asked.body.data;
    expect(quoted).toMatchObject({
      quoteId: expect.any(String),
      fiatAmount: '50000.00',
      fiatCurrency: 'NGN',
      tokenSymbol: 'USDC',
      chain: 'base',
      // The spec's rules: 20 platform, 0.1% processing (50) and the stamp duty (50), and 20 for the swap.
      fees: { platformFee: '20.00', providerFee: '100.00', swapFee: '20.00', totalFee: '140.00' },
    });
    // Priced by the pool: the Naira less the fees, as CNGN one for one, swapped to USDC through the CNGN pool (1,500 CNGN
    // to the dollar plus its 0.3% and the trade's impact), not by the sandbox's feed (1,507.50 NGN a USDC on the buy
    // side), though within a few percent of it.
    const crypto = dec(quoted.cryptoAmount);
    const net = dec(quoted.fiatAmount).sub(quoted.fees.totalFee);
    const fromPool = await usdcForCngn(net);
    expect(crypto.sub(fromPool).abs().lte(fromPool.mul('0.001'))).toBe(true);
    const feed = net.div(await new SandboxPriceFeed().ngnRate('USDC', 'buy')).toDecimalPlaces(6, ROUND_DOWN);
    expect(crypto.sub(feed).abs().div(feed).lt('0.03')).toBe(true);
    expect(crypto.eq(feed)).toBe(false);

    // Initiated to the end user's address: the payer's dedicated account at Paystack is where the Naira goes.
    const customer = { email: `ada.${randomBytes(4).toString('hex')}@example.com`, firstName: 'Ada', lastName: 'Obi', phone: '08031234567' };
    const reference = `live-onramp-${randomBytes(4).toString('hex')}`;
    const started = await api.post('/onramp/initiate', { quoteId: quoted.quoteId, destinationAddress: REHEARSAL_END_USER, reference, customer });
    expect(started.status).toBe(201);
    const transactionId = started.body.data.id as string;
    expect(started.body.data).toMatchObject({ status: 'pending', reference });
    const instructions = started.body.data.paymentInstructions;
    expect(instructions).toMatchObject({ bankCode: '035', accountNumber: paystack.customers.get(customer.email)!.account, amount: '50000.00' });

    const usdcBefore = await usdcOf(REHEARSAL_END_USER);
    const cngnBefore = await cngnOf(hotWallet);
    const supplyBefore = await cngnSupply();
    // The payer pays the Naira into the account; Paystack tells the gateway (charge.success).
    const payment = await paystack.payInto(instructions.accountNumber, Number(dec(quoted.fiatAmount).mul(100).toFixed(0)), paystackWebhook);
    expect(payment.answer.status).toBe(200);
    const done = await eventually(
      () => onrampOf(transactionId),
      (read) => read.status !== 'pending',
      120_000,
      250,
    );
    expect(done).toMatchObject({ status: 'completed', destinationAddress: REHEARSAL_END_USER });
    // No mint: the treasury's CNGN was swapped (a transaction on chain), then the USDC delivered (another).
    expect(done.hashes).toEqual([
      { step: 'swap', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), settlement: 'onchain' },
      { step: 'delivery', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), settlement: 'onchain' },
    ]);
    const [swapHash, deliveryHash] = (done.hashes as { transactionHash: Hex }[]).map((hash) => hash.transactionHash) as [Hex, Hex];
    expect(done.transactionHash).toBe(deliveryHash);

    // The hot wallet swapped exactly the Naira after the fees, as CNGN, through the live pool's pair, for at least the
    // quoted USDC less 1%.
    const { swap, out: usdcOut } = await hotWalletSwap(swapHash, cngn, parseUnits(net.toFixed(), 6), usdc);
    expect(dec(formatUnits(usdcOut, 6)).gte(crypto.mul('0.99'))).toBe(true);

    // Then exactly the quoted USDC, from the hot wallet to the end user.
    const delivery = await client.getTransactionReceipt({ hash: deliveryHash });
    expect(delivery.status).toBe('success');
    expect(getAddress(delivery.from)).toBe(hotWallet);
    expect(delivery.blockNumber >= swap.blockNumber).toBe(true);
    const delivered = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: delivery.logs });
    expect(delivered.map((log) => [getAddress(log.address), getAddress(log.args.from), getAddress(log.args.to), log.args.value])).toEqual([
      [usdc, hotWallet, REHEARSAL_END_USER, parseUnits(quoted.cryptoAmount, 6)],
    ]);
    expect(await usdcOf(REHEARSAL_END_USER)).toBe(usdcBefore + parseUnits(quoted.cryptoAmount, 6));
    // The CNGN came from the hot wallet, and none was minted.
    expect(await cngnOf(hotWallet)).toBe(cngnBefore - parseUnits(net.toFixed(), 6));
    expect(await cngnSupply()).toBe(supplyBefore);
    // The payment paid this on-ramp, and nothing of it went back.
    const paid = await pool.query(`select matched, transaction_id from ramp.collection_payments where provider = 'paystack' and reference = $1`, [
      payment.reference,
    ]);
    expect(paid.rows).toEqual([{ matched: 'onramp', transaction_id: transactionId }]);
    expect(paystack.charges.get(payment.reference)!.refunded).toBe(0);
  }, 180_000);

  it("reserves the treasury's CNGN before each swap: of two on-ramps its free CNGN covers only one of, the other is refunded and spends nothing", async () => {
    await mineEverySecond();
    // Two quotes that each fit what the treasury has free now, but not both: the quote checks; the swap reserves.
    const free = dec(formatUnits(await cngnOf(hotWallet), 6));
    const amount = free.mul('0.6').toDecimalPlaces(0, ROUND_DOWN).toFixed();
    const quotes = await Promise.all([onrampQuote(amount), onrampQuote(amount)]);
    for (const asked of quotes) expect(asked.status).toBe(200);
    const net = dec(quotes[0]!.body.data.fiatAmount).sub(quotes[0]!.body.data.fees.totalFee);
    expect(net.lte(free) && net.mul(2).gt(free)).toBe(true);
    const started = await initiateOnramps(quotes);
    const cngnBefore = await cngnOf(hotWallet);
    // Both paid at once: both swaps are due together, and ask the ledger for the same CNGN.
    const { payments, refused, refusedIndex } = await paidAtOnce(started, amount);
    expect(refused).toMatchObject({
      failureReason: 'INSUFFICIENT_LIQUIDITY',
      errorMessage: expect.stringMatching(/^The treasury's free CNGN on base .* no longer covers the .* to swap/),
    });
    // The refused one's Naira went back through Paystack; the other's did not.
    expect(paystack.charges.get(payments[refusedIndex]!.reference)!.refunded).toBe(Number(dec(amount).mul(100).toFixed(0)));
    expect(paystack.charges.get(payments[1 - refusedIndex]!.reference)!.refunded).toBe(0);
    // The hot wallet spent the CNGN of one swap alone, and only that one was reserved, until its swap was booked.
    expect(await cngnOf(hotWallet)).toBe(cngnBefore - parseUnits(net.toFixed(), 6));
    const reservations = await releasedReservations(started.map(({ transactionId }) => `${transactionId}:swap`));
    expect(reservations).toEqual([{ reservation_id: `${started[1 - refusedIndex]!.transactionId}:swap`, amount: net.toFixed(), released: true }]);
  }, 180_000);

  it("reserves the treasury's CNGN before a CNGN on-ramp's delivery: of two it covers only one of, the other is refunded and sends nothing", async () => {
    await mineEverySecond();
    // A live on-ramp of CNGN has no swap: its delivery is what spends the treasury's CNGN, so it is what reserves it.
    const free = dec(formatUnits(await cngnOf(hotWallet), 6));
    const amount = free.mul('0.6').toDecimalPlaces(0, ROUND_DOWN).toFixed();
    const quotes = await Promise.all([0, 1].map(() => api.post('/onramp/quote', { amount, tokenSymbol: 'CNGN', chain: 'base' })));
    for (const asked of quotes) expect(asked.status).toBe(200);
    const delivered = dec(quotes[0]!.body.data.cryptoAmount);
    // One for one: the Naira after the fees, as CNGN; each fits what is free, both do not.
    expect(delivered.eq(dec(amount).sub(quotes[0]!.body.data.fees.totalFee))).toBe(true);
    expect(delivered.lte(free) && delivered.mul(2).gt(free)).toBe(true);
    const started = await initiateOnramps(quotes);
    const cngnBefore = await cngnOf(hotWallet);
    const endUserBefore = await cngnOf(REHEARSAL_END_USER);
    const supplyBefore = await cngnSupply();
    const { payments, refused, refusedIndex, done } = await paidAtOnce(started, amount);
    expect(refused).toMatchObject({
      failureReason: 'INSUFFICIENT_LIQUIDITY',
      errorMessage: expect.stringMatching(/^The treasury's free CNGN on base .* no longer covers the .* to deliver/),
    });
    expect(refused.hashes ?? []).toEqual([]);
    expect(paystack.charges.get(payments[refusedIndex]!.reference)!.refunded).toBe(Number(dec(amount).mul(100).toFixed(0)));
    expect(paystack.charges.get(payments[1 - refusedIndex]!.reference)!.refunded).toBe(0);
    // The delivered one: no mint and no swap, one transfer of the quoted CNGN from the hot wallet to the end user.
    expect(done.hashes).toEqual([{ step: 'delivery', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), settlement: 'onchain' }]);
    const delivery = await client.getTransactionReceipt({ hash: done.transactionHash as Hex });
    expect(delivery.status).toBe('success');
    expect(
      parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: delivery.logs }).map((log) => [
        getAddress(log.address),
        getAddress(log.args.from),
        getAddress(log.args.to),
        log.args.value,
      ]),
    ).toEqual([[cngn, hotWallet, REHEARSAL_END_USER, parseUnits(delivered.toFixed(), 6)]]);
    expect(await cngnOf(REHEARSAL_END_USER)).toBe(endUserBefore + parseUnits(delivered.toFixed(), 6));
    expect(await cngnOf(hotWallet)).toBe(cngnBefore - parseUnits(delivered.toFixed(), 6));
    expect(await cngnSupply()).toBe(supplyBefore);
    // Only the delivered one was reserved, until its transfer was booked.
    const reservations = await releasedReservations(started.map(({ transactionId }) => `${transactionId}:deliver`));
    expect(reservations).toEqual([{ reservation_id: `${started[1 - refusedIndex]!.transactionId}:deliver`, amount: delivered.toFixed(), released: true }]);
  }, 180_000);

  it("holds for compliance a live off-ramp whose depositor the operator's denylist names: nothing swapped, paid or sent back", async () => {
    await mineEverySecond();
    // Anvil's account 8, given USDC by the end user, pays the deposit; the operator adds it to the denylist once the
    // off-ramp is initiated (the ramp service reads the file again within 2 s of a change, without a restart).
    const sender = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 8 });
    await node.rpc('anvil_setBalance', [sender.address, toHex(parseEther('1'))]);
    await payUsdc(endUser, sender.address, '100');
    const quoted = await priced();
    let cngnBefore = 0n;
    const { transactionId, paid } = await depositFor(quoted, sender, async () => {
      appendFileSync(denylist, `${sender.address.toLowerCase()}\n`);
      cngnBefore = await cngnOf(hotWallet);
    });

    // Credited at the chain's finality, then held before its swap: the event names the address, its role and why.
    const stream = `offramp-${transactionId}`;
    const holds = await eventually(
      async () => (await pool.query(`select data from ramp.events where stream_id = $1 and type = 'offramp.compliance_hold'`, [stream])).rows,
      (rows) => rows.length > 0,
      60_000,
      250,
    );
    expect(holds).toEqual([
      {
        data: {
          address: expect.stringMatching(new RegExp(`^${sender.address}$`, 'i')),
          role: 'deposit sender',
          reason: expect.stringMatching(/on the screening denylist/),
          at: expect.any(String),
        },
      },
    ]);
    // Still pending, its deposit shown, nothing after it: no swap, no payout asked, nothing sent back to the sender.
    await new Promise((wait) => setTimeout(wait, 3_000));
    const view = await offrampOf(transactionId);
    expect(view).toMatchObject({ status: 'pending', depositTransactionHash: paid });
    expect(view).not.toHaveProperty('refundTransactionHash');
    expect(view.hashes).toEqual([{ step: 'deposit', transactionHash: paid, settlement: 'onchain' }]);
    expect(await cngnOf(hotWallet)).toBe(cngnBefore);
    expect(await usdcOf(sender.address)).toBe(0n);
    const sent = await pool.query(`select send_key from chain.transfers where chain = 'live-base' and lower(to_address) = lower($1)`, [sender.address]);
    expect(sent.rows).toEqual([]);
    expect([...paystack.transfers.keys()].filter((key) => key.startsWith(transactionId.toLowerCase()))).toEqual([]);
    // The operator finds it among what is held.
    const listed = await operatorCommand<{ complianceHolds?: { transactionId: string; kind: string; role: string }[] }>(
      'dist/apps/ramp/src/cli/ops.js',
      ['held'],
      { DATABASE_URL: databaseUrl },
    );
    expect(listed.complianceHolds).toEqual([expect.objectContaining({ transactionId, kind: 'offramp', role: 'deposit sender' })]);
  }, 150_000);

  it("prices a live quote at the worse, for the platform, of the pool's spot price and its own average", async () => {
    await mineEverySecond();
    // Someone sells CNGN into the pool, making it about 0.7% cheaper in USDC than its average (within the 1% tolerance):
    // an off-ramp, which buys CNGN with the USDC, would get more of it at the spot price than the pool is worth.
    const operator = createWalletClient({ account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 9 }), transport: http(node.rpcUrl) });
    const [reserve0, reserve1] = await client.readContract({ address: cngnPair, abi: UniswapV2Pair.abi, functionName: 'getReserves' });
    const cngnFirst = BigInt(cngn) < BigInt(usdc);
    const cngnReserve = dec((cngnFirst ? reserve0 : reserve1).toString());
    const sold = BigInt(cngnReserve.mul(dec(1).div(dec('0.993').sqrt()).sub(1)).toFixed(0));
    const offrampBefore = await poolPrice();
    const write = async (request: Parameters<typeof operator.writeContract>[0]) =>
      expect((await client.waitForTransactionReceipt({ hash: await operator.writeContract(request) })).status).toBe('success');
    await write({ chain: null, account: operator.account, address: cngn, abi: TestToken.abi, functionName: 'mint', args: [operator.account.address, sold] });
    await write({ chain: null, account: operator.account, address: cngn, abi: erc20Abi, functionName: 'approve', args: [router, sold] });
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    await write({
      chain: null,
      account: operator.account,
      address: router,
      abi: UniswapV2Router02.abi,
      functionName: 'swapExactTokensForTokens',
      args: [sold, 0n, [cngn, usdc], operator.account.address, deadline],
    });
    const offrampSpot = await poolPrice();
    expect(offrampSpot.div(offrampBefore).sub(1).toNumber()).toBeGreaterThan(0.005);

    // An on-ramp sells the treasury's CNGN for USDC: the moved pool is worse for its customer, so it is priced at the
    // spot as it is. Asked until the quote service reads the moved pool (its reads are cached for a moment).
    const onramp = await eventually(
      async () => {
        const asked = await onrampQuote('5000');
        expect(asked.status).toBe(200);
        const net = dec(asked.body.data.fiatAmount).sub(asked.body.data.fees.totalFee);
        return { crypto: dec(asked.body.data.cryptoAmount), atSpot: await usdcForCngn(net) };
      },
      ({ crypto, atSpot }) => crypto.sub(atSpot).abs().lte(atSpot.mul('0.0005')),
      20_000,
      100,
    );
    expect(onramp.crypto.lte(onramp.atSpot)).toBe(true);

    // The off-ramp, at once (the pool's average over its 10 s has barely moved toward the spot): priced at the average,
    // well below what the spot would give, and not below what the pool gave before it was moved.
    const offramp = await quote();
    expect(offramp.status).toBe(200);
    const fiat = dec(offramp.body.data.fiatAmount);
    expect(fiat.lt(offrampSpot.mul('0.998'))).toBe(true);
    expect(fiat.gte(offrampBefore.mul('0.999'))).toBe(true);
  }, 120_000);
});
