import { compileErrors, validate } from '@readme/openapi-parser';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { makeNuban } from '@ramp/banking';
import { ApiClient, createKey, startServices, stopAll, type ServiceProcess } from '@ramp/testing';
import { createGateway, servedRoutes } from '../main';

type Json = any;

/** The spec's routes that exist so far, as method and path under /v1. */
const ROUTES: [string, string][] = [
  ['post', '/onramp/quote'],
  ['post', '/offramp/quote'],
  ['post', '/swap/quote'],
  ['post', '/transfer/quote'],
  ['post', '/onramp/banks/verify'],
  ['get', '/onramp/banks'],
  ['get', '/transfer/chains'],
  ['post', '/wallets'],
  ['get', '/wallets'],
  ['get', '/wallets/{walletId}'],
  ['post', '/sandbox/wallets/{walletId}/fund'],
  ['post', '/sandbox/faucet'],
  ['post', '/offramp/initiate'],
  ['get', '/offramp/{transactionId}'],
  ['post', '/sandbox/offramp/{transactionId}/deposit'],
  ['post', '/onramp/initiate'],
  ['get', '/onramp/{transactionId}'],
  ['post', '/sandbox/onramp/{transactionId}/pay'],
  ['post', '/swap/initiate'],
  ['get', '/swap/{transactionId}'],
  ['post', '/transfer/initiate'],
  ['get', '/transfer/{transactionId}'],
  ['get', '/transactions'],
  ['get', '/transactions/{transactionId}'],
  ['post', '/webhooks'],
  ['get', '/webhooks'],
  ['post', '/webhooks/{webhookId}/test'],
  ['get', '/webhooks/{webhookId}/deliveries'],
  ['post', '/webhooks/{webhookId}/deliveries/{deliveryId}/retry'],
  ['delete', '/webhooks/{webhookId}'],
  ['post', '/sandbox/relayer'],
  ['post', '/sandbox/reset'],
];

/** Served by the gateway but not operations of the API: the document itself and the reference page that reads it. */
const DOCUMENT_ROUTES = ['GET /v1/openapi.json', 'GET /v1/docs', 'GET /v1/docs/init.js', 'GET /v1/docs/swagger-ui.css', 'GET /v1/docs/swagger-ui-bundle.js'];

const ERROR_STATUSES = ['401', '403', '429', '500', '503'];
/** POST bodies can be invalid (400) and an Idempotency-Key can be reused with another body (409). */
const POST_ERROR_STATUSES = ['400', '409'];
const RATE_LIMIT_HEADERS = ['X-RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** Checks a value against an OpenAPI schema: types, required properties, no undocumented properties. */
function conformance(document: Json, schema: Json, value: unknown, path = '$'): string[] {
  if (schema.$ref) return conformance(document, document.components.schemas[schema.$ref.split('/').pop()], value, path);
  if (schema.allOf) return schema.allOf.flatMap((part: Json) => conformance(document, part, value, path));
  if (value === null) return schema.nullable ? [] : [`${path} is null but not nullable`];
  if (schema.enum && !schema.enum.includes(value)) return [`${path} = ${JSON.stringify(value)} is not one of ${schema.enum.join(', ')}`];
  switch (schema.type) {
    case 'array':
      if (!Array.isArray(value)) return [`${path} is not an array`];
      return value.flatMap((item, i) => conformance(document, schema.items, item, `${path}[${i}]`));
    case 'string':
      return typeof value === 'string' ? [] : [`${path} is not a string`];
    case 'integer':
    case 'number':
      return typeof value === 'number' ? [] : [`${path} is not a number`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${path} is not a boolean`];
    default: {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${path} is not an object`];
      const properties = schema.properties ?? {};
      const problems = (schema.required ?? []).filter((name: string) => !(name in (value as object))).map((name: string) => `${path}.${name} is missing`);
      for (const [name, item] of Object.entries(value as object)) {
        if (!properties[name]) problems.push(`${path}.${name} is not documented`);
        else problems.push(...conformance(document, properties[name], item, `${path}.${name}`));
      }
      return problems;
    }
  }
}

describe('OpenAPI document - generated from the code, covering every route, schema, error and header', () => {
  let services: Map<string, ServiceProcess>;
  let gatewayUrl: string;
  let document: Json;
  let api: ApiClient;

  beforeAll(async () => {
    // Webhooks may target localhost here; nothing listens on port 1, so deliveries simply fail and wait for a retry.
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], { WEBHOOK_ALLOW_HOSTS: 'localhost' });
    gatewayUrl = services.get('gateway')!.url;
    const key = await createKey({ plan: 'enterprise' });
    api = new ApiClient(`${gatewayUrl}/v1`, key.apiKey);
    const response = await fetch(`${gatewayUrl}/v1/openapi.json`);
    expect(response.status).toBe(200);
    document = await response.json();
  });

  afterAll(async () => {
    await stopAll(services.values());
  });

  it("describes every service's probes and metrics (the gateway's own description of service-kit's routes): once, tagged Operations, keyless, at the root", () => {
    for (const [path, operationId] of [
      ['/health/live', 'getLiveness'],
      ['/health/ready', 'getReadiness'],
      ['/metrics', 'getMetrics'],
    ] as const) {
      const item = document.paths[path];
      expect(item.get).toMatchObject({ operationId, tags: ['Operations'], security: [] });
      expect(item.servers).toEqual([{ url: '/', description: 'The root of this server' }]);
    }
  });

  it('is OpenAPI 3 for the /v1 server, with the API key as its security scheme', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.servers).toEqual([expect.objectContaining({ url: '/v1' })]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('passes a real OpenAPI validator (schema and semantic rules: refs, parameters, operation ids)', async () => {
    // The validator dereferences in place: give it a copy.
    const result = await validate(structuredClone(document));
    expect({ valid: result.valid, errors: result.valid ? '' : compileErrors(result) }).toEqual({ valid: true, errors: '' });
  });

  it('lists every route the gateway serves (read from its route table), and no route it does not serve', async () => {
    let gateway: NestFastifyApplication | undefined;
    try {
      gateway = await createGateway();
      const served = servedRoutes(gateway).filter((route) => !DOCUMENT_ROUTES.includes(route));
      const documented = Object.entries(document.paths).flatMap(([path, item]) => {
        const root = (item as Json).servers?.[0]?.url === '/' ? '' : '/v1';
        return Object.keys(item as object)
          .filter((method) => method !== 'servers')
          .map((method) => `${method.toUpperCase()} ${root}${path.replace(/\{(\w+)\}/g, ':$1')}`);
      });
      expect(served.sort()).toEqual(documented.sort());
      // The probes and metrics, and the bank partners' event routes.
      expect(served.length).toBe(ROUTES.length + 5);
    } finally {
      await gateway?.close();
    }
  });

  it('gives examples: for every property of every schema, and an error envelope for every error response', () => {
    const missing: string[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Json>)) {
      for (const [property, definition] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        const nested = definition.$ref || definition.allOf || definition.items?.$ref || definition.type === 'object' || definition.enum;
        if (!nested && definition.example === undefined) missing.push(`${name}.${property}`);
      }
    }
    expect(missing).toEqual([]);
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
        if (method === 'servers') continue;
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          if (!status.startsWith('4') && !status.startsWith('5')) continue;
          const example = response.content?.['application/json']?.example;
          expect({ route: `${method} ${path}`, status, example }).toEqual({
            route: `${method} ${path}`,
            status,
            example: { success: false, error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) },
          });
        }
      }
    }
  });

  it('documents every route the gateway serves, and only those', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations as object)
        .filter((method) => method !== 'servers')
        .map((method) => `${method} ${path}`),
    );
    const expected = [
      ...ROUTES.map(([method, path]) => `${method} ${path}`),
      'get /health/live',
      'get /health/ready',
      'get /metrics',
      'post /partners/paystack/webhook',
      'post /partners/flutterwave/webhook',
    ];
    expect(documented.sort()).toEqual(expected.sort());
  });

  it.each(ROUTES)('documents %s %s with its body, key, headers, and every error in the envelope', (method, path) => {
    const operation = document.paths[path]?.[method];
    expect(operation).toBeDefined();
    expect(operation.security).toEqual([{ apiKey: [] }]);
    const parameters = (operation.parameters ?? []).map((parameter: Json) => `${parameter.in}:${parameter.name}`);
    expect(parameters).toContain('header:x-request-id');
    if (method === 'post') {
      expect(parameters).toContain('header:Idempotency-Key');
      expect(operation.requestBody.content['application/json'].schema.$ref).toMatch(/^#\/components\/schemas\//);
    }
    const errors = method === 'post' ? [...ERROR_STATUSES, ...POST_ERROR_STATUSES] : ERROR_STATUSES;
    const success = method === 'post' && (path === '/wallets' || path === '/webhooks' || path.endsWith('/initiate') || path.endsWith('/test')) ? '201' : '200';
    for (const status of [success, ...errors]) {
      const response = operation.responses[status];
      expect({ status, documented: Boolean(response) }).toEqual({ status, documented: true });
      expect(Object.keys(response.headers)).toEqual(expect.arrayContaining([...RATE_LIMIT_HEADERS, 'x-request-id']));
    }
    for (const status of errors) {
      expect(operation.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelopeSchema');
    }
    expect(Object.keys(operation.responses['429'].headers)).toContain('Retry-After');
  });

  it('describes the responses the services really give, field for field', async () => {
    const account = makeNuban('058', '012345678');
    let walletId = '';
    let transactionId = '';
    let onrampId = '';
    let swapId = '';
    let transferId = '';
    let webhookId = '';
    let deliveryId = '';
    const calls: [string, string, () => Promise<{ status: number; body: Json }>][] = [
      ['post', '/onramp/quote', () => api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' })],
      [
        'post',
        '/offramp/quote',
        () => api.post('/offramp/quote', { amount: '100', tokenSymbol: 'USDT', bankCode: '058', accountNumber: account, chain: 'bsc' }),
      ],
      ['post', '/swap/quote', () => api.post('/swap/quote', { fromChain: 'base', toChain: 'bsc', fromToken: 'USDC', toToken: 'BNB', amount: '250' })],
      [
        'post',
        '/transfer/quote',
        () =>
          api.post('/transfer/quote', {
            fromChain: 'base',
            toChain: 'solana',
            token: 'USDC',
            toToken: 'SOL',
            amount: '100',
            destinationAddress: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          }),
      ],
      ['post', '/onramp/banks/verify', () => api.post('/onramp/banks/verify', { bankCode: '058', accountNumber: account })],
      ['get', '/onramp/banks', () => api.get('/onramp/banks')],
      ['get', '/transfer/chains', () => api.get('/transfer/chains')],
      [
        'post',
        '/wallets',
        async () => {
          const created = await api.post('/wallets', { chain: 'base', label: 'Docs' });
          walletId = created.body.data?.walletId;
          return created;
        },
      ],
      ['get', '/wallets', () => api.get('/wallets')],
      ['get', '/wallets/{walletId}', () => api.get(`/wallets/${walletId}`)],
      ['post', '/sandbox/wallets/{walletId}/fund', () => api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '5' })],
      [
        'post',
        '/sandbox/faucet',
        () => api.post('/sandbox/faucet', { chain: 'base', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', tokenSymbol: 'USDC', amount: '5' }),
      ],
      [
        'post',
        '/offramp/initiate',
        async () => {
          const quote = (await api.post('/offramp/quote', { amount: '1', tokenSymbol: 'USDC', bankCode: '058', accountNumber: account, chain: 'base' })).body
            .data;
          const started = await api.post('/offramp/initiate', {
            quoteId: quote.quoteId,
            sourceAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
            reference: 'docs',
          });
          transactionId = started.body.data?.transactionId;
          return started;
        },
      ],
      ['get', '/offramp/{transactionId}', () => api.get(`/offramp/${transactionId}`)],
      ['post', '/sandbox/offramp/{transactionId}/deposit', () => api.post(`/sandbox/offramp/${transactionId}/deposit`, {})],
      [
        'post',
        '/onramp/initiate',
        async () => {
          const quote = (await api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' })).body.data;
          const started = await api.post('/onramp/initiate', { quoteId: quote.quoteId, walletId, reference: 'docs' });
          onrampId = started.body.data?.id;
          return started;
        },
      ],
      ['get', '/onramp/{transactionId}', () => api.get(`/onramp/${onrampId}`)],
      ['post', '/sandbox/onramp/{transactionId}/pay', () => api.post(`/sandbox/onramp/${onrampId}/pay`, {})],
      [
        'post',
        '/swap/initiate',
        async () => {
          const quote = (await api.post('/swap/quote', { fromChain: 'base', toChain: 'base', fromToken: 'USDC', toToken: 'ETH', amount: '1' })).body.data;
          const started = await api.post('/swap/initiate', { quoteId: quote.quoteId, walletId, reference: 'docs' });
          swapId = started.body.data?.id;
          return started;
        },
      ],
      ['get', '/swap/{transactionId}', () => api.get(`/swap/${swapId}`)],
      [
        'post',
        '/transfer/initiate',
        async () => {
          const quote = (
            await api.post('/transfer/quote', {
              fromChain: 'base',
              toChain: 'arbitrum',
              token: 'USDC',
              amount: '2',
              destinationAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
            })
          ).body.data;
          const started = await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId });
          transferId = started.body.data?.id;
          return started;
        },
      ],
      ['get', '/transfer/{transactionId}', () => api.get(`/transfer/${transferId}`)],
      [
        'get',
        '/transactions',
        async () => {
          // The read model follows the event streams: wait for the on-ramp to be in it.
          for (let i = 0; i < 200; i++) {
            if ((await api.get(`/transactions/${onrampId}`)).status === 200) break;
            await new Promise((wait) => setTimeout(wait, 25));
          }
          return api.get('/transactions?limit=5');
        },
      ],
      ['get', '/transactions/{transactionId}', () => api.get(`/transactions/${onrampId}`)],
      [
        'post',
        '/webhooks',
        async () => {
          const created = await api.post('/webhooks', { url: 'https://localhost:1/hook', events: ['*'], description: 'docs' });
          webhookId = created.body.data?.id;
          return created;
        },
      ],
      ['get', '/webhooks', () => api.get('/webhooks')],
      [
        'post',
        '/webhooks/{webhookId}/test',
        async () => {
          const sent = await api.post(`/webhooks/${webhookId}/test`, {});
          deliveryId = sent.body.data?.id;
          return sent;
        },
      ],
      ['get', '/webhooks/{webhookId}/deliveries', () => api.get(`/webhooks/${webhookId}/deliveries`)],
      ['post', '/webhooks/{webhookId}/deliveries/{deliveryId}/retry', () => api.post(`/webhooks/${webhookId}/deliveries/${deliveryId}/retry`, {})],
      ['delete', '/webhooks/{webhookId}', () => api.delete(`/webhooks/${webhookId}`)],
      ['post', '/sandbox/relayer', () => api.post('/sandbox/relayer', { paused: false })],
      // Last: it empties this key's test environment.
      ['post', '/sandbox/reset', () => api.post('/sandbox/reset', {})],
    ];
    expect(calls.map(([method, path]) => `${method} ${path}`)).toEqual(ROUTES.map(([method, path]) => `${method} ${path}`));
    for (const [method, path, call] of calls) {
      const response = await call();
      const success = Object.keys(document.paths[path][method].responses).find((status) => status.startsWith('2'))!;
      expect({ path, status: response.status }).toEqual({ path, status: Number(success) });
      const schema = document.paths[path][method].responses[success].content['application/json'].schema;
      expect({ path, problems: conformance(document, schema, response.body) }).toEqual({ path, problems: [] });
      // Absent means absent: no field of any answer is null (conformance refuses null too, as no schema is nullable).
      expect({ path, nulls: JSON.stringify(response.body).match(/"[^"]+":null/g) ?? [] }).toEqual({ path, nulls: [] });
    }
    expect(JSON.stringify(document)).not.toContain('"nullable":true');
  });

  it('describes the error envelope the gateway really sends', async () => {
    const response = await api.post('/offramp/quote', { amount: '-1', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0000014579', chain: 'base' });
    expect(response.status).toBe(400);
    expect(conformance(document, { $ref: '#/components/schemas/ErrorEnvelopeSchema' }, response.body)).toEqual([]);
  });

  it('serves readable documentation at /v1/docs without a key', async () => {
    const response = await fetch(`${gatewayUrl}/v1/docs`, { redirect: 'follow' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('swagger-ui');
    const init = await (await fetch(`${gatewayUrl}/v1/docs/init.js`)).text();
    expect(init).toContain("url: '/v1/openapi.json'");
    expect((await fetch(`${gatewayUrl}/v1/docs/swagger-ui-bundle.js`)).status).toBe(200);
  });
});
