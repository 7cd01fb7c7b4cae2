import { readFileSync } from 'fs';
import { makeNuban } from '@ramp/banking';
import { createKey, eventually, makeTestCertificates, startServices, stopAll, WebhookReceiver, type ServiceProcess, type TestKey } from '@ramp/testing';
import { formatOpenApi, OPENAPI_FILE } from '../scripts/codegen';
import {
  AuthenticationError,
  ConflictError,
  constructWebhookEvent,
  InvalidRequestError,
  NotFoundError,
  RampClient,
  RampConnectionError,
  RateLimitError,
  verifyStandardWebhook,
  verifyWebhookSignature,
  type FetchLike,
  type RampClientOptions,
  type RetryInfo,
} from './index';

const ACCOUNT = makeNuban('058', '012345678');
const SOURCE_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('SDK - the published client against the real platform', () => {
  const certificates = makeTestCertificates();
  const secrets = new Map<string, string>();
  const receiver = new WebhookReceiver(certificates, { secretFor: (path) => secrets.get(path) });
  /** Every operation (method and path template) the SDK got a 2xx answer for, from every client of this file. */
  const answered = new Set<string>();
  let services: Map<string, ServiceProcess>;
  let gatewayUrl: string;
  let key: TestKey;
  let ramp: RampClient;

  const clientFor = (apiKey: string, options: Partial<RampClientOptions> = {}) =>
    new RampClient({
      apiKey,
      baseUrl: `${gatewayUrl}/v1`,
      ...options,
      onResponse: (info) => {
        if (info.status !== undefined && info.status < 300) answered.add(`${info.method} ${info.path}`);
        options.onResponse?.(info);
      },
    });

  const quoteOfframp = (client: RampClient, amount = '25') =>
    client.offramp.quote({ amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: ACCOUNT, chain: 'base' });

  beforeAll(async () => {
    await receiver.start();
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '20',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
    });
    gatewayUrl = services.get('gateway')!.url;
    key = await createKey({ plan: 'enterprise' });
    ramp = clientFor(key.apiKey);
  });

  afterAll(async () => {
    await stopAll(services.values());
    await receiver.stop();
  });

  it('types itself from docs/openapi.json, which is exactly the document the gateway serves', async () => {
    const served = await fetch(`${gatewayUrl}/v1/openapi.json`);
    expect(served.status).toBe(200);
    // Byte for byte once formatted: nothing is ignored. After a change of the gateway: npm run docs:openapi && npm run sdk:generate.
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(formatOpenApi(await served.json()));
  });

  it('takes a sandbox off-ramp from quote to completed, and verifies the signed offramp.completed webhook', async () => {
    const hook = await ramp.webhooks.create({ url: receiver.url('/hooks/payouts'), events: ['offramp.completed', 'offramp.failed'], description: 'SDK e2e' });
    expect(hook).toMatchObject({ id: expect.stringMatching(/^wh_/), secret: expect.stringMatching(/^whsec_/), isActive: true });
    secrets.set('/hooks/payouts', hook.secret);

    const quote = await quoteOfframp(ramp);
    expect(quote).toMatchObject({ quoteId: expect.stringMatching(/^qt_/), cryptoAmount: '25', tokenSymbol: 'USDC', fiatCurrency: 'NGN' });
    expect(quote.bankAccount).toMatchObject({ bankCode: '058', accountNumber: ACCOUNT, accountName: expect.any(String) });
    const reference = `sdk-${Date.now()}`;
    const started = await ramp.offramp.initiate({ quoteId: quote.quoteId, sourceAddress: SOURCE_ADDRESS, reference });
    expect(started).toMatchObject({ transactionId: expect.stringMatching(/^txn_/), reference, status: 'pending', estimatedFiatAmount: quote.payoutAmount });
    expect(started.depositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const deposited = await ramp.sandbox.depositOfframp(started.transactionId);
    expect(deposited.id).toBe(started.transactionId);
    const done = await ramp.offramp.waitFor(started.transactionId, { intervalMs: 100, timeoutMs: 30_000 });
    expect(done).toMatchObject({ id: started.transactionId, type: 'offramp', status: 'completed', amount: '25', tokenSymbol: 'USDC', reference });
    expect(done.ramp).toMatchObject({ fiatCurrency: 'NGN', payoutAmount: quote.payoutAmount, bankAccount: { accountNumber: ACCOUNT } });

    const delivery = await eventually(
      async () => receiver.on('/hooks/payouts').find((received) => received.body?.data?.transactionId === started.transactionId),
      (found) => found !== undefined,
      30_000,
    );
    const signature = delivery!.headers['x-service-signature'];
    expect(verifyWebhookSignature(delivery!.rawBody, signature, hook.secret)).toBe(true);
    expect(verifyWebhookSignature(delivery!.rawBody.replace('"completed"', '"failed"'), signature, hook.secret)).toBe(false);
    expect(verifyWebhookSignature(delivery!.rawBody, signature, key.apiSecret)).toBe(false);
    expect(verifyStandardWebhook(delivery!.rawBody, delivery!.headers, hook.secret)).toBe(true);
    expect(constructWebhookEvent(Buffer.from(delivery!.rawBody), signature, hook.secret)).toMatchObject({
      event: 'offramp.completed',
      data: { transactionId: started.transactionId, type: 'offramp', status: 'completed', reference, amount: '25', fiatCurrency: 'NGN' },
    });

    // The transactions list follows the services' events: the off-ramp shows up there too.
    const listed = await eventually(
      () => ramp.transactions.list({ type: 'offramp', status: 'completed', limit: 100 }),
      (page) => page.data.some((transaction) => transaction.id === started.transactionId),
    );
    expect(listed.meta).toMatchObject({ page: 1, limit: 100 });
    expect(await ramp.transactions.get(started.transactionId)).toMatchObject({ id: started.transactionId, status: 'completed' });
  });

  it('rejects with typed errors that carry the code, field, status and request id', async () => {
    const invalid = await quoteOfframp(ramp, '-1').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ code: 'INVALID_REQUEST', status: 400, field: 'amount', requestId: expect.stringMatching(/^req_/) });
    expect((invalid as Error).message).toMatch(/^amount: /);

    const mine = await ramp.onramp
      .quote({ amount: '5000', tokenSymbol: 'DOGE', chain: 'base' }, { requestId: 'sdk-e2e.unknown-token' })
      .catch((error: unknown) => error);
    expect(mine).toMatchObject({ code: 'INVALID_REQUEST', field: 'tokenSymbol', requestId: 'sdk-e2e.unknown-token' });

    const missing = await ramp.offramp.get('txn_01JD7X3Q9Z8K4M2N6P5R7S9T1V').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404, field: undefined });

    const unknownKey = await clientFor(`service_test_${'0'.repeat(48)}`)
      .transfer.chains()
      .catch((error: unknown) => error);
    expect(unknownKey).toBeInstanceOf(AuthenticationError);
    expect(unknownKey).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('retries a POST whose response was lost with the same Idempotency-Key, and gets the same transaction', async () => {
    // The first answer of the initiation is lost after the gateway has acted on it, as when a connection drops.
    let lost = 0;
    const replayed: (string | null)[] = [];
    const lossy: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (!url.endsWith('/offramp/initiate')) return response;
      if (lost++ === 0) {
        await response.text();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      }
      replayed.push(response.headers.get('idempotent-replayed'));
      return response;
    };
    const retries: RetryInfo[] = [];
    const client = clientFor(key.apiKey, { fetch: lossy, onRetry: (info) => retries.push(info), retry: { baseDelayMs: 50 } });
    const quote = await quoteOfframp(client);
    const body = { quoteId: quote.quoteId, sourceAddress: SOURCE_ADDRESS, reference: `lost-${Date.now()}` };

    const started = await client.offramp.initiate(body);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.error).toBeInstanceOf(RampConnectionError);
    expect(replayed).toEqual(['true']);
    expect(await ramp.offramp.get(started.transactionId)).toMatchObject({ id: started.transactionId, status: 'pending', reference: body.reference });

    // The same key again is the same transaction; a new key is a second initiation of a used quote: CONFLICT.
    expect(await ramp.offramp.initiate(body, { idempotencyKey: retries[0]!.idempotencyKey })).toEqual(started);
    const again = await ramp.offramp.initiate(body).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ConflictError);
    expect(again).toMatchObject({ code: 'CONFLICT', status: 409 });
  });

  it('waits out a real 429 for its Retry-After, then succeeds; without retries the RateLimitError carries retryAfter', async () => {
    // One request per second at most: the second of two back-to-back calls is refused for about a second.
    const limited = await createKey({ plan: 'enterprise', extra: ['--rate-per-minute', '600', '--burst', '1'] });
    const statuses: (number | undefined)[] = [];
    const retries: RetryInfo[] = [];
    const client = clientFor(limited.apiKey, { onResponse: (info) => statuses.push(info.status), onRetry: (info) => retries.push(info) });

    await client.transfer.chains();
    const started = Date.now();
    const chains = await client.transfer.chains();
    const waited = Date.now() - started;
    expect(chains.map((chain) => chain.chain)).toContain('base');
    expect(statuses).toEqual([200, 429, 200]);
    expect(retries).toHaveLength(1);
    const refusal = retries[0]!.error;
    expect(refusal).toBeInstanceOf(RateLimitError);
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refusal.retryAfter).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(refusal.retryAfter! * 1000);
    expect(waited).toBeGreaterThanOrEqual(refusal.retryAfter! * 1000);

    const impatient = clientFor(limited.apiKey, { retry: { maxAttempts: 1 } });
    await impatient.transfer.chains().catch(() => undefined);
    const error = await impatient.transfer.chains().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: expect.any(Number), requestId: expect.stringMatching(/^req_/) });
    expect((error as Error).message).toMatch(/retry in \d+ seconds?/);
  });

  it('has a typed method for every operation of the document, each answered with success by the gateway', async () => {
    const wallet = await ramp.wallets.create({ chain: 'base', label: 'SDK e2e' });
    expect(wallet).toMatchObject({ walletId: expect.stringMatching(/^wal_/), chain: 'base', label: 'SDK e2e' });
    const funded = await ramp.sandbox.fundWallet(wallet.walletId, { tokenSymbol: 'USDC', amount: '500' });
    expect(funded.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    const faucet = await ramp.sandbox.faucet({ chain: 'base', address: wallet.address, tokenSymbol: 'ETH', amount: '0.5' });
    expect(faucet).toMatchObject({ chain: 'base', address: wallet.address, tokenSymbol: 'ETH', amount: '0.5' });
    expect(funded.balances.find((balance) => balance.tokenSymbol === 'USDC')).toMatchObject({ available: '500', held: '0' });
    expect((await ramp.wallets.get(wallet.walletId)).walletId).toBe(wallet.walletId);
    expect((await ramp.wallets.list({ limit: 5 })).data.map((listed) => listed.walletId)).toContain(wallet.walletId);

    expect((await ramp.banks.list()).find((bank) => bank.code === '058')).toBeDefined();
    expect(await ramp.banks.verify({ bankCode: '058', accountNumber: ACCOUNT })).toMatchObject({ accountNumber: ACCOUNT, bankCode: '058' });

    const onrampQuote = await ramp.onramp.quote({ amount: '5000', tokenSymbol: 'USDC', chain: 'base' });
    const onramp = await ramp.onramp.initiate({ quoteId: onrampQuote.quoteId, walletId: wallet.walletId });
    expect(onramp.paymentInstructions?.amount).toBeDefined();
    await ramp.sandbox.payOnramp(onramp.id);
    expect((await ramp.onramp.waitFor(onramp.id, { intervalMs: 100, timeoutMs: 30_000 })).status).toBe('completed');

    const swapQuote = await ramp.swap.quote({ fromToken: 'USDC', toToken: 'ETH', amount: '10', fromChain: 'base', toChain: 'base' });
    const swap = await ramp.swap.initiate({ quoteId: swapQuote.quoteId, walletId: wallet.walletId });
    expect((await ramp.swap.waitFor(swap.id, { intervalMs: 100, timeoutMs: 30_000 })).status).toBe('completed');

    const transferQuote = await ramp.transfer.quote({ fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '5', destinationAddress: SOURCE_ADDRESS });
    const transfer = await ramp.transfer.initiate({ quoteId: transferQuote.quoteId, walletId: wallet.walletId });
    expect((await ramp.transfer.waitFor(transfer.id, { intervalMs: 100, timeoutMs: 30_000 })).status).toBe('completed');

    const hook = await ramp.webhooks.create({ url: receiver.url('/hooks/ops'), events: ['*'] });
    secrets.set('/hooks/ops', hook.secret);
    expect((await ramp.webhooks.list()).map((listed) => listed.id)).toContain(hook.id);
    const test = await ramp.webhooks.test(hook.id);
    expect(test).toMatchObject({ webhookId: hook.id, event: 'webhook.test' });
    const sent = await eventually(
      () => ramp.webhooks.deliveries(hook.id, { limit: 10 }),
      (page) => page.data.some((delivery) => delivery.id === test.id && delivery.status === 'succeeded'),
    );
    expect(sent.meta.total).toBeGreaterThanOrEqual(1);
    expect((await ramp.webhooks.retryDelivery(hook.id, test.id)).id).toBe(test.id);
    expect(await ramp.webhooks.delete(hook.id)).toEqual({ id: hook.id, deleted: true });

    expect(await ramp.sandbox.relayer({ paused: true })).toEqual({ paused: true });
    expect(await ramp.sandbox.relayer({ paused: false })).toEqual({ paused: false });

    // Last, since it empties the test environment: the wallet and its transactions are gone.
    expect(await ramp.sandbox.reset()).toMatchObject({ reset: true, environment: 'test' });
    expect((await ramp.wallets.list()).data).toEqual([]);
    expect((await ramp.transactions.list()).data).toEqual([]);

    // The API's operations need the key; probes and metrics say `security: []`.
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method, operation]) => HTTP_METHODS.includes(method) && operation.security?.length)
        .map(([method]) => `${method} ${path}`),
    );
    expect(operations).toHaveLength(32);
    expect([...answered].sort()).toEqual(operations.sort());
  });
});
