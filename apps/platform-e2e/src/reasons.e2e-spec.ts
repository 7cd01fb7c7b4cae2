import { randomBytes } from 'crypto';
import { makeNuban } from '@ramp/banking';
import { Config } from '@ramp/config';
import { ERROR_REASON_NAMES, ERROR_REASONS, FAILURE_REASON_NAMES, type ErrorReason, type FailureReason } from '@ramp/contracts';
import { resolveChains } from '@ramp/evm';
import {
  ApiClient,
  createKey,
  eventually,
  expectError,
  makeTestCertificates,
  poolTrader,
  startServices,
  stopAll,
  WebhookReceiver,
  type ApiResponse,
  type ServiceProcess,
  UNKNOWN_IDS,
} from '@ramp/testing';

/**
 * The error reasons no request from outside can produce without breaking the platform (stopping a service, a bug),
 * each with why. Every other reason of ERROR_REASONS must be produced below: a reason added to the catalogue without
 * a request here fails the last test.
 */
const UNPRODUCIBLE_ERRORS: Partial<Record<ErrorReason, string>> = {
  NO_ROUTE:
    'every pair a quote accepts has a route of at least one leg (the same token on the same chain is refused at quoting), so the guard before the quote is used never fires',
  RESOURCE_NOT_FOUND:
    "the generic NOT_FOUND, thrown only by internal calls (a key's signing secret, a ledger hold) that no route reaches with an id of the caller's",
  IDEMPOTENCY_KEY_IN_PROGRESS:
    'needs a first request whose outcome is unknown (the gateway timed out or died mid-request), which takes a hung or killed service',
  INTERNAL_ERROR: 'only a bug answers it',
  SERVICE_UNAVAILABLE: 'needs a service or a dependency stopped or hung, not a request (edge.e2e-spec.ts stops the quote service for it)',
  PRICE_DEVIATION:
    "needs a pool moved a third from the market, which the run's shared chains do not judge (their pools drift with the suites' loads): pool-quotes.e2e-spec.ts produces it on chains of its own",
  INSUFFICIENT_LIQUIDITY:
    "a live key's on-ramp quote, which needs a live chain (a stand-in for Base, its contracts pinned) and a collection partner: live-ramps.e2e-spec.ts produces it there, before the treasury holds CNGN and beyond what it holds",
};

/** The same for FAILURE_REASONS: how a transaction can fail only if the platform itself misbehaves. */
const UNPRODUCIBLE_FAILURES: Partial<Record<FailureReason, string>> = {
  DEPOSIT_REVERSED:
    "needs a reorganisation of the chain (anvil_reorg) between an off-ramp's deposit and its payout, which the run's shared chains must never have: reorgs.e2e-spec.ts produces it on chains of its own",
  INSUFFICIENT_LIQUIDITY:
    "a live on-ramp paid after others took the treasury's free CNGN since its quote, which needs a live chain and a collection partner: live-ramps.e2e-spec.ts produces it there (two on-ramps that each fit, not both; by a swap, and by a CNGN delivery)",
  DECLINED_IN_REVIEW:
    "a live ramp an operator declines with `npm run ops -- reject` while it waits for an approval above LIVE_APPROVAL_ABOVE_NGN; live keys only: the deciders' unit tests produce it, and live-payouts.e2e-spec.ts declines a payout (held, since its swap ran on chain)",
  TRANSACTION_FAILED:
    'the fallback for a failure without a precise reason (a hold the ledger refuses for another cause than the balance, or finds already settled by a racing failure); no sandbox value leads to it',
};

const GTB = makeNuban('058', '012345678');
const REJECTING = makeNuban('058', '888888888');
const NO_SUCH_ACCOUNT = makeNuban('058', '999999999');
const RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const rpcUrlOf = (name: string) => resolveChains('test', new Config().json('testChains'), 'TEST_CHAINS').find((chain) => chain.chain === name)!.rpcUrl;
const baseRpcUrl = rpcUrlOf('base');
/** Seconds a quote lives: short, so that expiry is quick. */
const QUOTE_TTL_SECONDS = 3;
/**
 * Seconds a non-custodial off-ramp or an on-ramp waits for its money: short too, but long enough for the mismatched
 * deposit (a faucet transfer on the local chain, credited once confirmed) to arrive on a loaded machine; at 3 s one
 * CI run saw it expire first.
 */
const MONEY_WINDOW_SECONDS = 8;
/** Seconds the relayer has to fill a bridge deposit: the one held by the sandbox's switch is refunded soon after. */
const FILL_SECONDS = 10;

describe('reasons - every error reason and failure reason produced by a real request through HTTP', () => {
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
  const produced = new Set<ErrorReason>();
  const failed = new Set<FailureReason>();
  /**
   * Requests without a valid key are limited per client address, and the loopback address's count in Redis is
   * shared with every other test run on this machine: this suite's anonymous client comes through the trusted
   * proxy from an address of its own.
   */
  const anonymous = { 'x-forwarded-for': `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`, 'x-forwarded-proto': 'https' };
  let services: Map<string, ServiceProcess>;
  let gateway: ApiClient;
  let api: ApiClient;
  let live: ApiClient;
  /** Keys restricted to an allowlist and to one request a minute, and another tenant's for the webhook limit. */
  let restricted: ApiClient;
  let limited: ApiClient;
  let crowded: ApiClient;

  beforeAll(async () => {
    await receiver.start();
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '20',
      SANDBOX_DEPOSIT_WINDOW_SECONDS: String(MONEY_WINDOW_SECONDS),
      CHAIN_BRIDGE_FILL_SECONDS: String(FILL_SECONDS),
      QUOTE_TTL_SECONDS: String(QUOTE_TTL_SECONDS),
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
    gateway = new ApiClient(`${services.get('gateway')!.url}/v1`);
    [api, live, restricted, limited, crowded] = (
      await Promise.all([
        createKey(),
        createKey({ env: 'live' }),
        createKey({ extra: ['--allow-ip', '203.0.113.0/24'] }),
        createKey({ extra: ['--rate-per-minute', '1', '--burst', '1'] }),
        createKey(),
      ])
    ).map((key) => gateway.withKey(key.apiKey)) as [ApiClient, ApiClient, ApiClient, ApiClient, ApiClient];
  });

  afterAll(async () => {
    await stopAll(services.values());
    await receiver.stop();
  });

  /** Asserts the error envelope of `reason` (its code, and for INVALID_REQUEST the field) and records it as produced. */
  const expectReason = (response: ApiResponse, status: number, reason: ErrorReason, field?: string) => {
    if (ERROR_REASONS[reason].code === 'INVALID_REQUEST' && field === undefined) throw new Error(`${reason}: name the field the error must name`);
    expectError(response, status, ERROR_REASONS[reason].code, field, reason);
    produced.add(reason);
  };

  const wallet = async (chain: 'base' | 'bsc', funds: Record<string, string> = {}) => {
    const created = await api.post('/wallets', { chain });
    expect(created.status).toBe(201);
    for (const [tokenSymbol, amount] of Object.entries(funds)) {
      expect((await api.post(`/sandbox/wallets/${created.body.data.walletId}/fund`, { tokenSymbol, amount })).status).toBe(200);
    }
    return created.body.data.walletId as string;
  };
  const quote = async (path: string, body: Record<string, unknown>) => {
    const response = await api.post(path, body);
    expect(response.status).toBe(200);
    return response.body.data.quoteId as string;
  };
  const offrampQuote = (amount: string, accountNumber = GTB, chain = 'base') =>
    quote('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber, chain });
  const onrampQuote = (amount: string) => quote('/onramp/quote', { amount, tokenSymbol: 'USDC', chain: 'base' });
  const initiate = async (type: 'offramp' | 'onramp' | 'swap' | 'transfer', body: Record<string, unknown>) => {
    const response = await api.post(`/${type}/initiate`, body);
    expect(response.status).toBe(201);
    return response.body.data.transactionId as string;
  };
  const settled = async (type: string, transactionId: string) =>
    (
      await eventually(
        () => api.get(`/${type}/${transactionId}`),
        (response) => response.status !== 200 || response.body.data.status !== 'pending',
        (FILL_SECONDS + 40) * 1000,
      )
    ).body.data;

  it('edge: no key, an unknown key, plain HTTP, an address off the allowlist, a live key, a sandbox route, too many requests', async () => {
    expectReason(await gateway.get('/wallets', anonymous), 401, 'API_KEY_MISSING');
    expectReason(await gateway.withKey(`service_test_${randomBytes(24).toString('base64url')}`).get('/wallets', anonymous), 401, 'API_KEY_INVALID');
    // Plain HTTP passes from loopback in development only: a trusted proxy forwarding a client elsewhere without
    // X-Forwarded-Proto: https is what a plain-HTTP request from outside looks like behind the TLS terminator.
    expectReason(await api.get('/wallets', { 'x-forwarded-for': anonymous['x-forwarded-for'] }), 403, 'HTTPS_REQUIRED');
    expectReason(await restricted.get('/wallets'), 403, 'IP_NOT_ALLOWED');
    expectReason(await live.post('/onramp/quote', { amount: '5000', tokenSymbol: 'USDC', chain: 'base' }), 403, 'LIVE_MODE_DISABLED');
    expectReason(await live.post(`/sandbox/wallets/${UNKNOWN_IDS.wallet}/fund`, { tokenSymbol: 'USDC', amount: '10' }), 404, 'SANDBOX_ONLY');
    // The bank partner's event route (outside /v1, no key): an event not signed with the partner's secret key.
    const partner = new ApiClient(services.get('gateway')!.url);
    const forged = { event: 'transfer.success', data: { reference: 'off_forged', amount: 100 } };
    expectReason(await partner.post('/partners/paystack/webhook', forged, { 'x-paystack-signature': 'ab'.repeat(64) }), 401, 'PARTNER_SIGNATURE_INVALID');

    expect((await limited.get('/wallets')).status).toBe(200);
    const refused = await limited.get('/wallets');
    expectReason(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('requests that cannot be read: an unknown route, a body that is not JSON, one too large, a field that breaks a rule', async () => {
    expectReason(await api.get('/nowhere'), 404, 'ROUTE_NOT_FOUND');
    expectReason(await api.raw('POST', '/wallets', '{"chain": "base",', { 'content-type': 'application/json' }), 400, 'MALFORMED_REQUEST', 'body');
    const oversized = JSON.stringify({ chain: 'base', label: 'x'.repeat(100_000) });
    expectReason(await api.raw('POST', '/wallets', oversized, { 'content-type': 'application/json' }), 413, 'BODY_TOO_LARGE', 'body');
    expectReason(await api.post('/wallets', { chain: 'base', colour: 'red' }), 400, 'INVALID_FIELD', 'colour');
  });

  it('quotes: an unknown bank, a mistyped or missing account, amounts out of limits, a token or chain not offered, a bad address', async () => {
    const offramp = { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: GTB, chain: 'base' };
    const mistyped = GTB.slice(0, 9) + String((Number(GTB[9]) + 1) % 10);
    expectReason(await api.post('/offramp/quote', { ...offramp, bankCode: '999' }), 400, 'UNKNOWN_BANK', 'bankCode');
    expectReason(await api.post('/offramp/quote', { ...offramp, accountNumber: mistyped }), 400, 'INVALID_CHECK_DIGIT', 'accountNumber');
    expectReason(await api.post('/offramp/quote', { ...offramp, accountNumber: NO_SUCH_ACCOUNT }), 400, 'ACCOUNT_NOT_FOUND', 'accountNumber');
    expectReason(await api.post('/offramp/quote', { ...offramp, amount: '0.5' }), 400, 'AMOUNT_TOO_SMALL', 'amount');
    expectReason(await api.post('/offramp/quote', { ...offramp, amount: '50001' }), 400, 'AMOUNT_TOO_LARGE', 'amount');
    expectReason(await api.post('/offramp/quote', { ...offramp, tokenSymbol: 'SOL' }), 400, 'UNSUPPORTED_TOKEN', 'tokenSymbol');
    expectReason(await api.post('/offramp/quote', { ...offramp, chain: 'solana' }), 400, 'UNSUPPORTED_CHAIN', 'chain');
    const transfer = { fromChain: 'base', toChain: 'ethereum', token: 'USDC', amount: '10', destinationAddress: '0x1234' };
    expectReason(await api.post('/transfer/quote', transfer), 400, 'INVALID_ADDRESS', 'destinationAddress');
  });

  it('initiations: quotes unknown, of another kind, used or expired; wallets on another chain, too poor or unknown; state and key conflicts', async () => {
    // Quoted first, so that its few seconds run out while the rest of this test runs.
    const expiring = await offrampQuote('10');
    const [funded, empty, onBsc] = await Promise.all([wallet('base', { USDC: '100' }), wallet('base'), wallet('bsc', { USDC: '100' })]);

    expectReason(await api.post('/offramp/initiate', { quoteId: UNKNOWN_IDS.quote, walletId: funded }), 404, 'QUOTE_NOT_FOUND');
    expectReason(await api.post('/offramp/initiate', { quoteId: await onrampQuote('50000'), walletId: funded }), 400, 'QUOTE_KIND_MISMATCH', 'quoteId');
    expectReason(await api.post('/offramp/initiate', { quoteId: await offrampQuote('10'), walletId: onBsc }), 400, 'CHAIN_MISMATCH', 'walletId');
    expectReason(await api.post('/offramp/initiate', { quoteId: await offrampQuote('10'), walletId: empty }), 400, 'INSUFFICIENT_BALANCE', 'walletId');

    const used = await offrampQuote('10');
    const custodial = await initiate('offramp', { quoteId: used, walletId: funded });
    expectReason(await api.post('/offramp/initiate', { quoteId: used, walletId: funded }), 409, 'QUOTE_ALREADY_USED');
    // A custodial off-ramp takes its tokens from the wallet: the sandbox deposit does not apply to it.
    expectReason(await api.post(`/sandbox/offramp/${custodial}/deposit`, {}), 409, 'TRANSACTION_STATE_CONFLICT');

    expectReason(await api.get(`/wallets/${UNKNOWN_IDS.wallet}`), 404, 'WALLET_NOT_FOUND');
    expectReason(await api.get(`/transactions/${UNKNOWN_IDS.transaction}`), 404, 'TRANSACTION_NOT_FOUND');
    const idempotencyKey = { 'idempotency-key': `reasons-${randomBytes(8).toString('hex')}` };
    expect((await api.post('/wallets', { chain: 'base' }, idempotencyKey)).status).toBe(201);
    expectReason(await api.post('/wallets', { chain: 'bsc' }, idempotencyKey), 409, 'IDEMPOTENCY_KEY_REUSED');

    // The empty wallet is refused for its balance until the quote has expired, which is checked first: nothing is used.
    const expired = await eventually(
      () => api.post('/offramp/initiate', { quoteId: expiring, walletId: empty }),
      (response) => response.body?.error?.reason !== 'INSUFFICIENT_BALANCE',
      (QUOTE_TTL_SECONDS + 5) * 1000,
      200,
    );
    expectReason(expired, 400, 'QUOTE_EXPIRED', 'quoteId');
  });

  it('webhooks: a refused target, the eleventh webhook, an unknown webhook, an unknown delivery', async () => {
    expectReason(await api.post('/webhooks', { url: 'http://localhost/hook', events: ['*'] }), 400, 'WEBHOOK_TARGET_REFUSED', 'url');

    // Another tenant, so that its ten webhooks do not receive this suite's events.
    const ten = await Promise.all(Array.from({ length: 10 }, (_, i) => crowded.post('/webhooks', { url: receiver.url(`/crowded/${i}`), events: ['*'] })));
    expect(ten.map((response) => response.status)).toEqual(Array(10).fill(201));
    expectReason(await crowded.post('/webhooks', { url: receiver.url('/crowded/10'), events: ['*'] }), 400, 'WEBHOOK_LIMIT_REACHED', 'url');
    // The limit is checked before the URL's name is resolved: at its limit, a tenant makes the notifier look nothing up
    // (a name that does not exist would otherwise be refused for that).
    expectReason(await crowded.post('/webhooks', { url: 'https://hook.example.invalid/events', events: ['*'] }), 400, 'WEBHOOK_LIMIT_REACHED', 'url');
    const [first] = (await crowded.get('/webhooks')).body.data;

    expectReason(await api.delete(`/webhooks/${UNKNOWN_IDS.webhook}`), 404, 'WEBHOOK_NOT_FOUND');
    expectReason(await crowded.post(`/webhooks/${first.id}/deliveries/${UNKNOWN_IDS.delivery}/retry`, {}), 404, 'DELIVERY_NOT_FOUND');
  });

  it('failure reasons: each way the sandbox fails a transaction (a bank-side magic value, a trade on the pools, the held relayer) gives its reason, on every read and in the webhook', async () => {
    const registered = await api.post('/webhooks', { url: receiver.url('/failures'), events: ['offramp.failed'] });
    expect(registered.status).toBe(201);
    secrets.set('/failures', registered.body.data.secret);

    // The ones that fail by waiting start first, so that their windows run out while the others run.
    const expecting: [FailureReason, string, Promise<string>][] = [
      ['DEPOSIT_EXPIRED', 'offramp', offrampQuote('25').then((quoteId) => initiate('offramp', { quoteId, sourceAddress: RECIPIENT }))],
      ['PAYMENT_EXPIRED', 'onramp', onrampQuote('50000').then((quoteId) => initiate('onramp', { quoteId, destinationAddress: RECIPIENT }))],
      [
        'DEPOSIT_AMOUNT_MISMATCH',
        'offramp',
        offrampQuote('25').then(async (quoteId) => {
          const id = await initiate('offramp', { quoteId, sourceAddress: RECIPIENT });
          expect((await api.post(`/sandbox/offramp/${id}/deposit`, { amount: '24' })).status).toBe(200);
          return id;
        }),
      ],
      [
        'PAYMENT_AMOUNT_MISMATCH',
        'onramp',
        onrampQuote('50000').then(async (quoteId) => {
          const id = await initiate('onramp', { quoteId, destinationAddress: RECIPIENT });
          expect((await api.post(`/sandbox/onramp/${id}/pay`, { amount: '40000' })).status).toBe(200);
          return id;
        }),
      ],
      [
        'PAYOUT_REJECTED',
        'offramp',
        wallet('base', { USDC: '50' }).then(async (walletId) => initiate('offramp', { quoteId: await offrampQuote('20', REJECTING), walletId })),
      ],
      [
        'SWAP_FAILED',
        'offramp',
        wallet('bsc', { USDC: '50' }).then(async (walletId) => {
          // Someone buys CNGN on bsc's pool between the quote and the swap: 13 USDC now buys far less than the quote's
          // Naira less 1%, and the swap to CNGN reverts. Sold back once the off-ramp has failed. On bsc, so that the
          // off-ramps of the other cases, on base, never meet the moved pool.
          const trader = await poolTrader(api, 'bsc', rpcUrlOf('bsc'), 'CNGN', '20000');
          const quoteId = await offrampQuote('13', GTB, 'bsc');
          await trader.push();
          try {
            const id = await initiate('offramp', { quoteId, walletId });
            await settled('offramp', id);
            return id;
          } finally {
            await trader.restore();
          }
        }),
      ],
      [
        'SLIPPAGE_EXCEEDED',
        'swap',
        wallet('base', { USDC: '50' }).then(async (walletId) => {
          // Someone buys ETH on base's pool between the quote and the swap: the pool's price moves about 2%, beyond
          // the default tolerance, and the router refuses the swap. Sold back once the swap has failed.
          const trader = await poolTrader(api, 'base', baseRpcUrl, 'ETH', '20000');
          const quoteId = await quote('/swap/quote', { fromToken: 'USDC', toToken: 'ETH', amount: '12', fromChain: 'base', toChain: 'base' });
          await trader.push();
          try {
            const id = await initiate('swap', { quoteId, walletId });
            await settled('swap', id);
            return id;
          } finally {
            await trader.restore();
          }
        }),
      ],
      [
        'BRIDGE_FAILED',
        'transfer',
        wallet('base', { USDC: '50' }).then(async (walletId) => {
          // The organization's relayer held (the sandbox's switch): the deposit on base is not filled on arbitrum, and
          // is refunded after its deadline. Released once the transfer has failed.
          const quoteId = await quote('/transfer/quote', {
            fromChain: 'base',
            toChain: 'arbitrum',
            token: 'USDC',
            amount: '20',
            destinationAddress: RECIPIENT,
          });
          expect((await api.post('/sandbox/relayer', { paused: true })).status).toBe(200);
          try {
            const id = await initiate('transfer', { quoteId, walletId });
            await settled('transfer', id);
            return id;
          } finally {
            expect((await api.post('/sandbox/relayer', { paused: false })).status).toBe(200);
          }
        }),
      ],
    ];
    const outcomes = await Promise.all(
      expecting.map(async ([reason, type, started]) => {
        const id = await started;
        return { reason, id, own: await settled(type, id) };
      }),
    );
    for (const { reason, id, own } of outcomes) {
      expect({ reason, status: own.status, failureReason: own.failureReason }).toEqual({ reason, status: 'failed', failureReason: reason });
      expect(own.errorMessage).toEqual(expect.stringMatching(/\S/));
      // The list's read model follows the event stream: the same reason and message there.
      const shared = await eventually(
        () => api.get(`/transactions/${id}`),
        (response) => response.body?.data?.status === 'failed',
      );
      expect(shared.body.data).toMatchObject({ failureReason: reason, errorMessage: own.errorMessage });
      failed.add(reason);
    }

    // The integration event reaches a real HTTPS receiver, signed, with the same reason.
    const rejected = outcomes.find((outcome) => outcome.reason === 'PAYOUT_REJECTED')!;
    const [delivery] = await eventually(
      async () => receiver.on('/failures').filter((received) => received.body?.data?.transactionId === rejected.id),
      (deliveries) => deliveries.length > 0,
    );
    expect(delivery!.signatureValid).toBe(true);
    expect(delivery!.body).toMatchObject({
      event: 'offramp.failed',
      data: { status: 'failed', failureReason: 'PAYOUT_REJECTED', errorMessage: rejected.own.errorMessage },
    });
  });

  it('failure reason INSUFFICIENT_BALANCE: initiations racing for one balance all pass its check, and the ledger holds it for one only', async () => {
    // Off-ramps hold their tokens after answering, so concurrent initiations all see the whole balance. Which of them
    // are accepted before the first hold lands is up to timing: a few rounds make sure one is accepted, then fails.
    for (let round = 0; round < 5 && !failed.has('INSUFFICIENT_BALANCE'); round++) {
      const walletId = await wallet('base', { USDC: '10' });
      const quoteIds = await Promise.all(Array.from({ length: 4 }, () => offrampQuote('10')));
      const responses = await Promise.all(quoteIds.map((quoteId) => api.post('/offramp/initiate', { quoteId, walletId })));
      for (const response of responses.filter((r) => r.status !== 201)) expectError(response, 400, 'INVALID_REQUEST', 'walletId', 'INSUFFICIENT_BALANCE');
      const ends = await Promise.all(responses.filter((r) => r.status === 201).map((r) => settled('offramp', r.body.data.transactionId)));
      expect(ends.filter((end) => end.status === 'completed')).toHaveLength(1);
      for (const end of ends.filter((e) => e.status !== 'completed')) {
        expect(end).toMatchObject({ status: 'failed', failureReason: 'INSUFFICIENT_BALANCE', errorMessage: expect.stringMatching(/balance/) });
        failed.add('INSUFFICIENT_BALANCE');
      }
      expect((await api.get(`/wallets/${walletId}`)).body.data.balances.find((b: any) => b.tokenSymbol === 'USDC')).toMatchObject({
        available: '0',
        held: '0',
      });
    }
    expect(failed.has('INSUFFICIENT_BALANCE')).toBe(true);
  });

  it('covers the catalogues: every reason is produced above, or listed with why it cannot be', () => {
    const untested = (names: readonly string[], seen: ReadonlySet<string>, unproducible: object) =>
      names.filter((name) => !seen.has(name) && !(name in unproducible));
    expect({ errorReasonsNeitherProducedNorListed: untested(ERROR_REASON_NAMES, produced, UNPRODUCIBLE_ERRORS) }).toEqual({
      errorReasonsNeitherProducedNorListed: [],
    });
    expect({ failureReasonsNeitherProducedNorListed: untested(FAILURE_REASON_NAMES, failed, UNPRODUCIBLE_FAILURES) }).toEqual({
      failureReasonsNeitherProducedNorListed: [],
    });
    // The lists stay honest: nothing in them was produced after all, and each names a reason of its catalogue.
    const overlisted = (unproducible: object, seen: ReadonlySet<string>, names: readonly string[]) =>
      Object.keys(unproducible).filter((name) => seen.has(name) || !names.includes(name));
    expect({ listedButProducedOrUnknown: overlisted(UNPRODUCIBLE_ERRORS, produced, ERROR_REASON_NAMES) }).toEqual({ listedButProducedOrUnknown: [] });
    expect({ listedButProducedOrUnknown: overlisted(UNPRODUCIBLE_FAILURES, failed, FAILURE_REASON_NAMES) }).toEqual({ listedButProducedOrUnknown: [] });
  });
});
