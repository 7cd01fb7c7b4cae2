import { readFileSync } from 'fs';
import { join } from 'path';
import { Client } from 'pg';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, startServices, stopAll, UNKNOWN_IDS, WORKSPACE_ROOT, type ApiResponse, type ServiceProcess } from '@ramp/testing';

/**
 * Live mode fails closed (LIVE.md; issue 28): with live mode switched on (LIVE_PROVIDERS_ENABLED) and no live adapter
 * configured (no bank partner, no live chain, no price source), every route of the API a live key can reach is either
 * backed by something real for live keys or refused, never served from the sandbox's rails. The routes are those of the
 * published document (docs/openapi.json): a route added without a line here fails the test until it is classified.
 */

/** What a live key meets on a route while nothing live is configured. */
type Outcome =
  /** 403 LIVE_MODE_DISABLED, the message naming what is missing. */
  | { refused: string }
  /** 404 SANDBOX_ONLY: the sandbox's levers do nothing for live keys. */
  | 'sandbox-only'
  /** 404: what the request names does not exist for the key (an initiation's quote cannot, since quotes are refused). */
  | 'not-found'
  /** 200 from the key's own data, which holds nothing: no simulated wallet, transaction or quote. */
  | 'own-data'
  /** The account's own settings (webhooks): no money moves, served to live keys exactly as to test keys. */
  | 'as-for-test-keys'
  /** Not a key's route: the probes, the metrics and the bank partners' signed events. */
  | 'not-a-key-route';

const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ACCOUNT = { bankCode: '058', accountNumber: makeNuban('058', '012345678') };

interface Capability {
  outcome: Outcome;
  body?: unknown;
  /** The path with its parameters filled in. */
  path?: string;
}

const CAPABILITIES: Record<string, Capability> = {
  'POST /onramp/quote': { outcome: { refused: 'bank partner' }, body: { amount: '50000', tokenSymbol: 'USDC', chain: 'base' } },
  'POST /offramp/quote': { outcome: { refused: 'bank partner' }, body: { amount: '100', tokenSymbol: 'USDC', chain: 'base', ...ACCOUNT } },
  'POST /swap/quote': { outcome: { refused: 'price source' }, body: { fromToken: 'USDC', toToken: 'USDT', amount: '100', fromChain: 'base', toChain: 'base' } },
  'POST /transfer/quote': {
    outcome: { refused: 'price source' },
    body: { token: 'USDC', amount: '100', fromChain: 'base', toChain: 'bsc', destinationAddress: ADDRESS },
  },
  'GET /onramp/banks': { outcome: { refused: 'bank partner' } },
  'POST /onramp/banks/verify': { outcome: { refused: 'bank partner' }, body: ACCOUNT },
  'GET /transfer/chains': { outcome: 'own-data' },
  'POST /wallets': { outcome: { refused: 'no live chain' }, body: { chain: 'base', label: 'treasury' } },
  'GET /wallets': { outcome: 'own-data' },
  'GET /wallets/{walletId}': { outcome: 'not-found', path: `/wallets/${UNKNOWN_IDS.wallet}` },
  'POST /sandbox/wallets/{walletId}/fund': {
    outcome: 'sandbox-only',
    path: `/sandbox/wallets/${UNKNOWN_IDS.wallet}/fund`,
    body: { tokenSymbol: 'USDC', amount: '10' },
  },
  'POST /offramp/initiate': { outcome: 'not-found', body: { quoteId: UNKNOWN_IDS.quote, sourceAddress: ADDRESS, reference: 'payout-1' } },
  'GET /offramp/{transactionId}': { outcome: 'not-found', path: `/offramp/${UNKNOWN_IDS.transaction}` },
  'POST /sandbox/offramp/{transactionId}/deposit': { outcome: 'sandbox-only', path: `/sandbox/offramp/${UNKNOWN_IDS.transaction}/deposit`, body: {} },
  // Refused before its quote is looked for: a live on-ramp's Naira is collected by a bank partner.
  'POST /onramp/initiate': {
    outcome: { refused: 'bank partner for collections' },
    body: {
      quoteId: UNKNOWN_IDS.quote,
      destinationAddress: ADDRESS,
      reference: 'topup-1',
      customer: { email: 'ada.obi@example.com', firstName: 'Ada', lastName: 'Obi', phone: '+2348031234567' },
    },
  },
  'GET /onramp/{transactionId}': { outcome: 'not-found', path: `/onramp/${UNKNOWN_IDS.transaction}` },
  'POST /sandbox/onramp/{transactionId}/pay': { outcome: 'sandbox-only', path: `/sandbox/onramp/${UNKNOWN_IDS.transaction}/pay`, body: {} },
  'POST /swap/initiate': { outcome: 'not-found', body: { quoteId: UNKNOWN_IDS.quote, walletId: UNKNOWN_IDS.wallet } },
  'GET /swap/{transactionId}': { outcome: 'not-found', path: `/swap/${UNKNOWN_IDS.transaction}` },
  'POST /transfer/initiate': { outcome: 'not-found', body: { quoteId: UNKNOWN_IDS.quote, walletId: UNKNOWN_IDS.wallet } },
  'GET /transfer/{transactionId}': { outcome: 'not-found', path: `/transfer/${UNKNOWN_IDS.transaction}` },
  'POST /sandbox/faucet': { outcome: 'sandbox-only', body: { chain: 'base', tokenSymbol: 'USDC', amount: '10', address: ADDRESS } },
  'POST /sandbox/relayer': { outcome: 'sandbox-only', body: { paused: true } },
  'POST /sandbox/reset': { outcome: 'sandbox-only', body: {} },
  'GET /transactions': { outcome: 'own-data' },
  'GET /transactions/{transactionId}': { outcome: 'not-found', path: `/transactions/${UNKNOWN_IDS.transaction}` },
  'POST /webhooks': { outcome: 'as-for-test-keys', body: { url: 'http://127.0.0.1:9/hooks', events: ['onramp.completed'] } },
  'GET /webhooks': { outcome: 'as-for-test-keys' },
  'DELETE /webhooks/{webhookId}': { outcome: 'as-for-test-keys', path: `/webhooks/${UNKNOWN_IDS.webhook}` },
  'GET /webhooks/{webhookId}/deliveries': { outcome: 'as-for-test-keys', path: `/webhooks/${UNKNOWN_IDS.webhook}/deliveries` },
  'POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry': {
    outcome: 'as-for-test-keys',
    path: `/webhooks/${UNKNOWN_IDS.webhook}/deliveries/${UNKNOWN_IDS.delivery}/retry`,
    body: {},
  },
  'POST /webhooks/{webhookId}/test': { outcome: 'as-for-test-keys', path: `/webhooks/${UNKNOWN_IDS.webhook}/test`, body: {} },
  'GET /health/live': { outcome: 'not-a-key-route' },
  'GET /health/ready': { outcome: 'not-a-key-route' },
  'GET /metrics': { outcome: 'not-a-key-route' },
  'POST /partners/paystack/webhook': { outcome: 'not-a-key-route' },
  'POST /partners/flutterwave/webhook': { outcome: 'not-a-key-route' },
};

/** Every route of the published document, as `METHOD /path`. */
function publishedRoutes(): string[] {
  const document = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'docs/openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe('live mode fails closed - every capability a live key can reach is live-backed or refused', () => {
  let services: Map<string, ServiceProcess>;
  let live: ApiClient;
  let test: ApiClient;
  let liveOrganization: string;
  let db: Client;

  const send = (client: ApiClient, route: string, capability: Capability): Promise<ApiResponse> => {
    const [method, template] = route.split(' ') as [string, string];
    const path = capability.path ?? template;
    if (method === 'GET') return client.get(path);
    if (method === 'DELETE') return client.delete(path);
    return client.post(path, capability.body ?? {});
  };

  beforeAll(async () => {
    // Live mode on, and nothing live behind it: no bank partner's key, no LIVE_CHAINS, no price source.
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], { LIVE_PROVIDERS_ENABLED: 'true' });
    const gateway = `${services.get('gateway')!.url}/v1`;
    const liveKey = await createKey({ env: 'live', plan: 'enterprise' });
    liveOrganization = liveKey.organizationId;
    live = new ApiClient(gateway, liveKey.apiKey);
    test = new ApiClient(gateway, (await createKey({ plan: 'enterprise' })).apiKey);
    db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await stopAll(services?.values() ?? []);
  });

  it('classifies every route of the published document, and no route that is not there', () => {
    expect(Object.keys(CAPABILITIES).sort()).toEqual(publishedRoutes().sort());
  });

  it.each(Object.entries(CAPABILITIES).filter(([, capability]) => capability.outcome !== 'not-a-key-route'))(
    '%s: live-backed or refused',
    async (route, capability) => {
      const answer = await send(live, route, capability);
      const { outcome } = capability;
      expect(answer.status).toBeLessThan(500);
      if (typeof outcome === 'object') {
        expect({ status: answer.status, reason: answer.body?.error?.reason }).toEqual({ status: 403, reason: 'LIVE_MODE_DISABLED' });
        expect(answer.body.error.message).toContain(outcome.refused);
      } else if (outcome === 'sandbox-only') {
        expect({ status: answer.status, reason: answer.body?.error?.reason }).toEqual({ status: 404, reason: 'SANDBOX_ONLY' });
      } else if (outcome === 'not-found') {
        expect(answer.status).toBe(404);
        expect(answer.body.error.reason).toMatch(/_NOT_FOUND$/);
      } else if (outcome === 'own-data') {
        expect(answer.status).toBe(200);
        if (route === 'GET /transfer/chains') {
          // No chain is on chain for live keys: none is configured. A chain shows no hot wallet or contract of the sandbox.
          const chains = answer.body.data as { chain: string; settlement: string; contracts?: unknown }[];
          expect(chains.length).toBeGreaterThan(0);
          expect(chains.filter((chain) => chain.settlement === 'onchain')).toEqual([]);
          expect(chains.filter((chain) => chain.contracts !== undefined)).toEqual([]);
        } else {
          expect(answer.body.data).toEqual([]);
          expect(answer.body.meta.total).toBe(0);
        }
      } else {
        const forTest = await send(test, route, capability);
        expect({ status: answer.status, reason: answer.body?.error?.reason }).toEqual({ status: forTest.status, reason: forTest.body?.error?.reason });
      }
    },
  );

  it('left nothing behind for the live key: no wallet, quote or transaction was made on the sandbox rails', async () => {
    const count = async (table: string) =>
      Number((await db.query(`select count(*) from ${table} where organization_id = $1 and environment = 'live'`, [liveOrganization])).rows[0].count);
    expect(await count('ledger.wallets')).toBe(0);
    expect(await count('quote.quotes')).toBe(0);
    expect((await live.get('/transactions')).body.meta.total).toBe(0);
  });
});
