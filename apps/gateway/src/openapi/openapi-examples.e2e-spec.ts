import { lookup } from 'dns/promises';
import { ApiClient, createKey, startServices, stopAll, type ServiceProcess } from '@ramp/testing';

type Json = any;

/** One request of "Try it out", built from the document's own examples. */
interface ExampleRequest {
  operation: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** The named request-body example it uses, when the operation has several. */
  example?: string;
  body?: Record<string, unknown>;
  /** Ids in the request that no fresh stack can have (the examples' transactions, webhooks, deliveries and wallets). */
  unknownIds: string[];
}

const resolve = (document: Json, schema: Json): Json => (schema?.$ref ? resolve(document, document.components.schemas[schema.$ref.split('/').pop()]) : schema);

/** A value from a schema's examples, as Swagger UI fills a request in: every property that has one, nested ones too. */
function exampleOf(document: Json, reference: Json): unknown {
  const schema = resolve(document, reference);
  if (schema.example !== undefined) return schema.example;
  if (schema.type === 'array') return schema.items ? [exampleOf(document, schema.items)] : undefined;
  if (schema.enum) return schema.enum[0];
  if (!schema.properties) return undefined;
  const entries = Object.entries(schema.properties as Record<string, Json>).map(([name, property]) => [name, exampleOf(document, property)] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/** The requests "Try it out" sends for one operation: one per named body example, with its parameters' examples. */
function exampleRequests(document: Json, path: string, method: string, operation: Json): ExampleRequest[] {
  const query: Record<string, string> = {};
  const unknownIds: string[] = [];
  let filled = path;
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    const example = parameter.example ?? parameter.schema?.example;
    if (parameter.in === 'path') {
      if (example === undefined) throw new Error(`${method} ${path}: path parameter ${parameter.name} has no example`);
      filled = filled.replace(`{${parameter.name}}`, encodeURIComponent(String(example)));
      unknownIds.push(parameter.name);
    } else if (parameter.in === 'query' && example !== undefined) {
      query[parameter.name] = String(example);
    } else if (parameter.required && parameter.in !== 'header') {
      throw new Error(`${method} ${path}: required ${parameter.in} parameter ${parameter.name} has no example`);
    }
  }
  const base = { operation: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path: filled, query };
  const content = operation.requestBody?.content?.['application/json'];
  if (!content) return [{ ...base, unknownIds }];
  const bodies: [string | undefined, Json][] = content.examples
    ? Object.entries(content.examples as Record<string, Json>).map(([name, example]) => [name, example.value])
    : [[undefined, content.example ?? exampleOf(document, content.schema)]];
  return bodies.map(([example, body]) => ({ ...base, example, body, unknownIds: [...unknownIds, ...('walletId' in body ? ['walletId'] : [])] }));
}

/** Whether this machine resolves public host names: webhook registration refuses a host that does not resolve. */
async function resolvesPublicNames(): Promise<boolean> {
  try {
    await lookup('example.com');
    return true;
  } catch {
    return false;
  }
}

describe('OpenAPI examples - what "Try it out" sends is accepted, and every error example is what the platform answers', () => {
  let services: Map<string, ServiceProcess>;
  let gatewayUrl: string;
  let document: Json;
  let api: ApiClient;

  beforeAll(async () => {
    // The webhook example's host, https://example.com, is public and resolves, as registration requires. A test machine
    // without DNS cannot resolve it, so there (only) it is exempted like a local test host; the other URL rules still apply.
    const exempt = (await resolvesPublicNames()) ? [] : ['example.com'];
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'notifier', 'gateway'], {
      WEBHOOK_ALLOW_HOSTS: ['localhost', ...exempt].join(','),
    });
    gatewayUrl = services.get('gateway')!.url;
    api = new ApiClient(`${gatewayUrl}/v1`, (await createKey({ plan: 'enterprise' })).apiKey);
    document = await (await fetch(`${gatewayUrl}/v1/openapi.json`)).json();
  });

  afterAll(async () => {
    await stopAll(services.values());
  });

  const send = (request: Pick<ExampleRequest, 'method' | 'path' | 'query' | 'body'>) => {
    const path = `${request.path}${Object.keys(request.query).length ? `?${new URLSearchParams(request.query)}` : ''}`;
    if (request.method === 'GET') return api.get(path);
    if (request.method === 'DELETE') return api.delete(path);
    return api.post(path, request.body);
  };

  it('accepts every request example: answered 2xx, or NOT_FOUND or CONFLICT only about an example id no fresh stack has', async () => {
    const requests = Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
      item.servers?.[0]?.url === '/'
        ? []
        : Object.entries(item as Record<string, Json>).flatMap(([method, operation]) => exampleRequests(document, path, method, operation)),
    );
    expect(requests.length).toBeGreaterThanOrEqual(29);
    // Ids the examples cannot know: the wallet that POST /wallets creates stands in for the example's in wallet
    // routes, and each initiation uses a fresh quote from its own kind's quote example (a quote is used once).
    const createWallet = requests.find((request) => request.operation === 'POST /wallets')!;
    const walletId = (await send(createWallet)).body.data?.walletId;
    expect(walletId).toMatch(/^wal_/);
    const failures: Json[] = [];
    const created: { webhookId?: string } = {};
    for (const request of requests) {
      if (request.path.includes('wal_')) {
        request.path = request.path.replace(/wal_[0-9A-Z]+/, walletId);
        request.unknownIds = request.unknownIds.filter((name) => name !== 'walletId');
      }
      const initiation = /^\/(onramp|offramp|swap|transfer)\/initiate$/.exec(request.path);
      if (initiation && request.body) {
        const quoteRequest = requests.find((candidate) => candidate.operation === `POST /${initiation[1]}/quote`)!;
        const quote = await send(quoteRequest);
        request.body = { ...request.body, quoteId: quote.body.data?.quoteId };
      }
      const response = await send(request);
      if (request.operation === 'POST /webhooks') created.webhookId = response.body.data?.id;
      const accepted = response.status >= 200 && response.status < 300;
      const aboutUnknownId = request.unknownIds.length > 0 && [404, 409].includes(response.status);
      if (!accepted && !aboutUnknownId) {
        failures.push({
          operation: request.operation,
          example: request.example,
          unknownIds: request.unknownIds,
          status: response.status,
          error: response.body?.error,
        });
      }
    }
    if (created.webhookId) await api.delete(`/webhooks/${created.webhookId}`);
    expect(failures).toEqual([]);
  });

  /** The documented error example of an operation's response. */
  const errorExample = (method: string, path: string, status: number): Json =>
    document.paths[path][method].responses[String(status)].content['application/json'].example.error;

  it('answers INVALID_REQUEST as its example says: a zero amount', async () => {
    const body = exampleRequests(document, '/offramp/quote', 'post', document.paths['/offramp/quote'].post)[0]!.body;
    const response = await api.post('/offramp/quote', { ...body, amount: '0' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject(errorExample('post', '/offramp/quote', 400));
  });

  it('answers UNAUTHORIZED as its example says: no key', async () => {
    const response = await api.withKey(undefined).get('/transfer/chains');
    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject(errorExample('get', '/transfer/chains', 401));
  });

  it('answers NOT_FOUND as its example says: the example transaction, which does not exist', async () => {
    const [request] = exampleRequests(document, '/transactions/{transactionId}', 'get', document.paths['/transactions/{transactionId}'].get);
    const response = await send(request!);
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject(errorExample('get', '/transactions/{transactionId}', 404));
  });

  it('answers CONFLICT as its example says: an Idempotency-Key reused with another body', async () => {
    const body = exampleRequests(document, '/onramp/quote', 'post', document.paths['/onramp/quote'].post)[0]!.body as Json;
    const headers = { 'Idempotency-Key': `examples-${Date.now()}` };
    expect((await api.post('/onramp/quote', body, headers)).status).toBe(200);
    const response = await api.post('/onramp/quote', { ...body, amount: `${body.amount}1` }, headers);
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject(errorExample('post', '/onramp/quote', 409));
  });

  it('answers RATE_LIMITED as its example says, give or take the seconds', async () => {
    const free = api.withKey((await createKey({ plan: 'free' })).apiKey);
    const responses = await Promise.all(Array.from({ length: 15 }, () => free.get('/transfer/chains')));
    const limited = responses.find((response) => response.status === 429);
    const seconds = (message: string) => message.replace(/\d+ seconds?/, 'N seconds');
    const example = errorExample('get', '/transfer/chains', 429);
    expect(limited?.body.error.code).toBe(example.code);
    expect(seconds(limited?.body.error.message)).toBe(seconds(example.message));
  });
});
