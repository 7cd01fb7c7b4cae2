import { makeNuban } from '@ramp/banking';
import { OUTSIDE_ADDRESS } from '@ramp/load';
import {
  apiRoutes,
  ApiClient,
  createKey,
  eventually,
  exampleEntries,
  makeTestCertificates,
  rawRequest,
  startServices,
  stopAll,
  WebhookReceiver,
  type ServiceProcess,
  type TestKey,
} from '@ramp/testing';
import { createGateway, servedRoutes } from '../main';

/** The transaction type a route's `:transactionId` names, from its path (`/transactions/:id` takes any). */
function typesOf(path: string): string[] {
  const type = ['onramp', 'offramp', 'swap', 'transfer'].find((name) => path.includes(`/${name}/`));
  return type ? [type] : ['onramp', 'offramp', 'swap', 'transfer'];
}

describe("cross-tenant - generated from the route table: another tenant's id is NOT_FOUND on every route that takes one", () => {
  let services: Map<string, ServiceProcess>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    receiver = await new WebhookReceiver(certificates, { secretFor: () => undefined }).start();
    // Sandbox steps that take a minute: the owner's transactions stay where they are while the test looks at them.
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      SANDBOX_STEP_DELAY_MS: '60000',
      WEBHOOK_ALLOW_HOSTS: 'localhost',
      WEBHOOK_CA_FILE: certificates.caFile,
    });
  });

  afterAll(async () => {
    await stopAll(services.values());
    await receiver.stop();
  });

  it("refuses every id of the owner to another organization, and to the owner's live environment, and changes nothing", async () => {
    const gatewayUrl = services.get('gateway')!.url;
    const routes = await apiRoutes(gatewayUrl, { create: createGateway, routes: servedRoutes });

    // The owner: one of everything that has an id.
    const ownerOrganization = `Owner ${Date.now()}`;
    const ownerKey = await createKey({ org: ownerOrganization });
    const owner = new ApiClient(`${gatewayUrl}/v1`, ownerKey.apiKey);
    const walletId = (await owner.post('/wallets', { chain: 'base' })).body.data.walletId as string;
    expect((await owner.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '1000' })).status).toBe(200);
    const account = makeNuban('058', '012345678');
    const onrampQuote = (await owner.post('/onramp/quote', { amount: '5000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
    const offrampQuote = (await owner.post('/offramp/quote', { amount: '10', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' }))
      .body.data;
    // Across chains, through the intent bridge, with the owner's relayer held (the sandbox's switch): their deposits wait
    // for a fill that does not come until their deadline, minutes away, so they stay pending while the test looks (a
    // same-chain swap runs on the local pools at once, and would complete).
    expect((await owner.post('/sandbox/relayer', { paused: true })).status).toBe(200);
    const swapQuote = (await owner.post('/swap/quote', { fromToken: 'USDC', toToken: 'BNB', amount: '10', fromChain: 'base', toChain: 'bsc' })).body.data;
    const transferQuote = (
      await owner.post('/transfer/quote', { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: '10', destinationAddress: OUTSIDE_ADDRESS })
    ).body.data;
    const transactions: Record<string, string> = {
      onramp: (await owner.post('/onramp/initiate', { quoteId: onrampQuote.quoteId, walletId })).body.data.id,
      offramp: (await owner.post('/offramp/initiate', { quoteId: offrampQuote.quoteId, sourceAddress: OUTSIDE_ADDRESS })).body.data.transactionId,
      swap: (await owner.post('/swap/initiate', { quoteId: swapQuote.quoteId, walletId, destinationAddress: OUTSIDE_ADDRESS })).body.data.id,
      transfer: (await owner.post('/transfer/initiate', { quoteId: transferQuote.quoteId, walletId })).body.data.id,
    };
    const webhookId = (await owner.post('/webhooks', { url: receiver.url('/hooks'), events: ['*'] })).body.data.id as string;
    const deliveryId = (await owner.post(`/webhooks/${webhookId}/test`, {})).body.data.id as string;
    for (const id of [walletId, webhookId, deliveryId, ...Object.values(transactions)]) expect(id).toMatch(/^(wal|wh|dlv|txn)_/);
    await eventually(
      () => owner.get(`/webhooks/${webhookId}/deliveries`),
      (r) => r.body.data?.[0]?.status === 'succeeded',
    );

    // Every route with an id, with the owner's ids: one case per id it can take.
    const valueOf = (param: string, path: string): string[] => {
      if (param === 'walletId') return [walletId];
      if (param === 'webhookId') return [webhookId];
      if (param === 'deliveryId') return [deliveryId];
      if (param === 'transactionId') return typesOf(path).map((type) => transactions[type]!);
      throw new Error(`${path} takes :${param}, which this test does not know: give it an id of the owner's`);
    };
    const cases = routes.flatMap((route) => {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
      if (params.length === 0) return [];
      let paths = [route.path];
      for (const param of params) paths = paths.flatMap((p) => valueOf(param, route.path).map((value) => p.replace(`:${param}`, value)));
      // A body valid in shape (the examples of its required fields), so that only the owner can make the difference.
      const required = route.body?.required ?? [];
      const body =
        route.method === 'POST'
          ? Object.fromEntries(
              exampleEntries(route.body)
                .filter(([name]) => required.includes(name))
                .map(([name, value]) => [name, JSON.parse(value)]),
            )
          : undefined;
      return paths.map((concrete) => ({ route: `${route.method} ${route.path}`, method: route.method, path: concrete, body }));
    });
    expect(new Set(cases.map((c) => c.route)).size).toBeGreaterThanOrEqual(13);

    const send = (key: TestKey, c: (typeof cases)[number]) =>
      rawRequest(gatewayUrl, {
        method: c.method,
        path: c.path,
        headers: [['x-api-key', key.apiKey], ...(c.body ? [['content-type', 'application/json'] as [string, string]] : [])],
        body: c.body ? JSON.stringify(c.body) : undefined,
      });
    const ownerState = async () => ({
      wallet: (await owner.get(`/wallets/${walletId}`)).body.data,
      transactions: await Promise.all(Object.entries(transactions).map(async ([type, id]) => (await owner.get(`/${type}/${id}`)).body.data)),
      webhooks: (await owner.get('/webhooks')).body.data,
      deliveries: (await owner.get(`/webhooks/${webhookId}/deliveries`)).body.data,
    });
    const before = await ownerState();
    const ownIds = [walletId, webhookId, deliveryId, ...Object.values(transactions)];

    // Another organization: NOT_FOUND everywhere, answered exactly as for ids that never existed (no oracle), and
    // nothing of the owner's beyond the ids it sent.
    const stranger = await createKey({ org: `Stranger ${Date.now()}` });
    const ID = /\b(wal|wh|dlv|txn)_[0-9A-HJKMNP-TV-Z]{26}\b/g;
    const leaks = (text: string, path: string) => ownIds.filter((id) => !path.includes(id) && text.includes(id));
    for (const c of cases) {
      const response = await send(stranger, c);
      const unknown = await send(stranger, { ...c, path: c.path.replace(ID, '$1_01JD7X3Q9Z8K4M2N6P5R7S9T1V') });
      expect([c.method, c.path, response.status, response.body?.error?.code]).toEqual([c.method, c.path, 404, 'NOT_FOUND']);
      expect(response.text.replace(ID, '$1_ID')).toBe(unknown.text.replace(ID, '$1_ID'));
      expect(leaks(response.text, c.path)).toEqual([]);
    }
    // The owner's own organization in live mode: nothing of test mode is visible. NOT_FOUND, or FORBIDDEN on the
    // routes live mode cannot use until real providers are enabled (refused before any lookup).
    const live = await createKey({ org: ownerOrganization, env: 'live', extra: ['--org-id', ownerKey.organizationId] });
    expect(live.organizationId).toBe(ownerKey.organizationId);
    for (const c of cases) {
      const response = await send(live, c);
      const refusal = response.status === 403 ? /Live mode is not enabled/.test(response.body?.error?.message) : response.status === 404;
      expect([c.method, c.path, response.status, refusal]).toEqual([c.method, c.path, response.status, true]);
      expect(leaks(response.text, c.path)).toEqual([]);
    }
    // The transactions read needs no provider: there, live mode is asked and answers NOT_FOUND for each type's id.
    const reads = cases.filter((c) => c.path.startsWith('/v1/transactions/'));
    expect(reads).toHaveLength(4);
    for (const c of reads) expect((await send(live, c)).status).toBe(404);
    // Routes without an id list the caller's own data only: none of the owner's ids appears.
    for (const route of routes.filter((r) => r.method === 'GET' && !r.path.includes(':'))) {
      const response = await rawRequest(gatewayUrl, { method: 'GET', path: route.path, headers: [['x-api-key', stranger.apiKey]] });
      expect([route.path, response.status]).toEqual([route.path, 200]);
      expect(leaks(response.text, '')).toEqual([]);
    }
    // Nothing the others sent changed anything of the owner's.
    expect(await ownerState()).toEqual(before);

    // The owner reaches every one of them (DELETE last): the refusals above were about the tenant, not the request.
    for (const c of [...cases].sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))) {
      const response = await send(ownerKey, c);
      expect([c.method, c.path, response.status]).toEqual([c.method, c.path, response.status < 400 ? response.status : 'a success']);
    }
  }, 120_000);
});
