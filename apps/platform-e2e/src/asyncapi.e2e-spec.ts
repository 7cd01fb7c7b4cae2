import { connect, type NatsConnection } from 'nats';
import { makeNuban } from '@ramp/banking';
import { INTEGRATION_EVENT_NAMES, INTEGRATION_HEADERS, integrationEvents, type IntegrationEventName } from '@ramp/contracts';
import { SERVICE_ACCESS } from '@ramp/messaging';
import {
  ApiClient,
  createKey,
  eventually,
  expectValid,
  integrationMessagesFor,
  loadAsyncApiDocument,
  messageFor,
  startServices,
  stopAll,
  type ApiResponse,
  type AsyncApiDocument,
  type Json,
  type ServiceProcess,
  type StoredIntegrationMessage,
  type TestKey,
} from '@ramp/testing';

const RECIPIENT = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const CALLBACK_URL = 'https://payments.example.com/ramp/callbacks';
const NANOS_PER_MS = 1_000_000;

/** A transaction started through the gateway, and the integration event it must end with. */
interface Started {
  id: string;
  event: IntegrationEventName;
  /** The x-request-id of the initiating request. */
  requestId: string;
  walletId: string | null;
  callbackUrl?: string;
}

/**
 * docs/asyncapi.yaml against what the running services really publish: transactions of every type and outcome are
 * driven through the gateway (sandbox magic values and the held bridge relayer make the failures), and each integration message is read back from
 * JetStream (subject, headers, raw body) and checked against the schemas of the channel of its subject; the stream and
 * the publishers' consumers are checked against the settings the document states. The document's own consistency
 * with the code is tools/asyncapi.spec.ts.
 */
describe('integration events - what the services publish is what docs/asyncapi.yaml describes', () => {
  const namespace = process.env.EVENTS_NAMESPACE ?? '';
  const target = integrationEvents(namespace);
  let doc: AsyncApiDocument;
  let services: Map<string, ServiceProcess>;
  let key: TestKey;
  let nc: NatsConnection;
  let started: Started[];
  /** By transaction id: the messages stored for it. */
  let published: Map<string, StoredIntegrationMessage[]>;

  /** The documented example of the namespace the tests run under (`test`). */
  const namespaceExample = (): Json => (doc.raw['x-events-namespace'].examples as Json[]).find((example) => example.namespace === namespace);
  /** The channel address of a subject: the subject without the namespace's prefix. */
  const addressOf = (subject: string): string => `${integrationEvents().subjectPrefix}${subject.slice(target.subjectPrefix.length)}`;
  /** A stream's name under the namespace, by the document's rule (`<STREAM>_<NS>`). */
  const namespacedStream = (stream: string): string => (namespace ? `${stream}_${namespace.toUpperCase()}` : stream);
  const messageOf = (transaction: Started): StoredIntegrationMessage => published.get(transaction.id)![0]!;

  beforeAll(async () => {
    doc = await loadAsyncApiDocument();
    services = await startServices(['quote', 'ledger', 'ramp', 'swap-transfer', 'gateway'], { SANDBOX_STEP_DELAY_MS: '0', CHAIN_BRIDGE_FILL_SECONDS: '8' });
    key = await createKey({ plan: 'enterprise' });
    const api = new ApiClient(`${services.get('gateway')!.url}/v1`, key.apiKey);
    nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });

    const walletId = (await api.post('/wallets', { chain: 'base' })).body.data.walletId as string;
    expect((await api.post(`/sandbox/wallets/${walletId}/fund`, { tokenSymbol: 'USDC', amount: '500' })).status).toBe(200);
    const data = async (response: Promise<ApiResponse>, status = 200) => {
      const answered = await response;
      if (answered.status !== status) throw new Error(`expected ${status}, got ${answered.status} ${answered.text}`);
      return answered.body.data;
    };
    const initiated = (event: IntegrationEventName, response: ApiResponse, id: string, walletOf: string | null, callbackUrl?: string): Started => {
      if (response.status !== 201) throw new Error(`${event}: initiation answered ${response.status} ${response.text}`);
      return { id, event, requestId: response.headers.get('x-request-id')!, walletId: walletOf, callbackUrl };
    };

    const onramp = async (outcome: 'completed' | 'failed'): Promise<Started> => {
      const quote = await data(api.post('/onramp/quote', { amount: '50000', tokenSymbol: 'USDC', chain: 'base' }));
      // Completed: custodial, with a callback URL; failed: to an outside address, paid the wrong amount (refunded).
      const response =
        outcome === 'completed'
          ? await api.post('/onramp/initiate', { quoteId: quote.quoteId, walletId, reference: 'topup-1', callbackUrl: CALLBACK_URL })
          : await api.post('/onramp/initiate', { quoteId: quote.quoteId, destinationAddress: RECIPIENT });
      const transaction = initiated(
        `onramp.${outcome}`,
        response,
        response.body.data?.id,
        outcome === 'completed' ? walletId : null,
        outcome === 'completed' ? CALLBACK_URL : undefined,
      );
      await data(api.post(`/sandbox/onramp/${transaction.id}/pay`, outcome === 'completed' ? {} : { amount: '40000' }));
      return transaction;
    };
    const offramp = async (amount: string, outcome: 'completed' | 'failed'): Promise<Started> => {
      // The sandbox bank rejects payouts to accounts of the serial 888888888: that off-ramp fails after its swap.
      const serial = outcome === 'failed' ? '888888888' : '012345678';
      const quote = await data(
        api.post('/offramp/quote', { amount, tokenSymbol: 'USDC', bankCode: '058', accountNumber: makeNuban('058', serial), chain: 'base' }),
      );
      const response = await api.post('/offramp/initiate', { quoteId: quote.quoteId, walletId, reference: `payout-${amount}` });
      return initiated(`offramp.${outcome}`, response, response.body.data?.transactionId, walletId);
    };
    const swap = async (amount: string, outcome: 'completed' | 'failed'): Promise<Started> => {
      // The one that fails crosses to bsc while the relayer is held (below): its bridge deposit is refunded after its
      // deadline. The one that completes runs on base's pools.
      const crossChain = outcome === 'failed';
      const quote = await data(
        api.post('/swap/quote', { fromToken: 'USDC', toToken: crossChain ? 'BNB' : 'ETH', amount, fromChain: 'base', toChain: crossChain ? 'bsc' : 'base' }),
      );
      const response = await api.post('/swap/initiate', {
        quoteId: quote.quoteId,
        walletId,
        reference: `rebalance-${amount}`,
        ...(crossChain && { destinationAddress: RECIPIENT }),
      });
      return initiated(`swap.${outcome}`, response, response.body.data?.id, walletId);
    };
    const transfer = async (amount: string, outcome: 'completed' | 'failed', callbackUrl?: string): Promise<Started> => {
      // Failed: started while the relayer is held, so its bridge deposit is refunded after its deadline.
      const quote = await data(api.post('/transfer/quote', { fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount, destinationAddress: RECIPIENT }));
      const response = await api.post('/transfer/initiate', { quoteId: quote.quoteId, walletId, ...(callbackUrl ? { callbackUrl } : {}) });
      return initiated(`transfer.${outcome}`, response, response.body.data?.id, walletId, callbackUrl);
    };

    // The sandbox's relayer switch held for the organization: the failing swap's and transfer's bridges are not filled.
    // Released once both have failed, before the rest starts (the completing transfer bridges too).
    await data(api.post('/sandbox/relayer', { paused: true }));
    const unfilled = await Promise.all([swap('12', 'failed'), transfer('20', 'failed', CALLBACK_URL)]);
    await Promise.all(
      unfilled.map((transaction) =>
        eventually(
          () => api.get(`/${transaction.event.split('.')[0]}/${transaction.id}`),
          (response) => response.body.data?.status === 'failed',
          60_000,
          200,
        ),
      ),
    );
    await data(api.post('/sandbox/relayer', { paused: false }));
    started = [
      ...(await Promise.all([
        onramp('completed'),
        onramp('failed'),
        offramp('10', 'completed'),
        offramp('13', 'failed'),
        swap('10', 'completed'),
        transfer('10', 'completed'),
      ])),
      ...unfilled,
    ];
    const ids = started.map((transaction) => transaction.id);
    const found = await eventually(
      () => integrationMessagesFor(nc, ids),
      (messages) => messages.length >= ids.length,
      30_000,
      200,
    );
    published = new Map(ids.map((id) => [id, found.filter((message) => JSON.parse(message.body).data.transactionId === id)]));
  }, 180_000);

  afterAll(async () => {
    await nc?.drain();
    if (services) await stopAll(services.values());
  });

  it('publishes one message per transaction, on the namespaced subject of its event, for every event of the document', () => {
    expect([...published.entries()].map(([id, messages]) => [id, messages.length])).toEqual(started.map((transaction) => [transaction.id, 1]));
    expect(started.map((transaction) => transaction.event).sort()).toEqual([...INTEGRATION_EVENT_NAMES].sort());
    const example = namespaceExample();
    expect(example).toBeDefined();
    for (const transaction of started) {
      const { subject } = messageOf(transaction);
      expect(subject).toBe(`${target.subjectPrefix}.${transaction.event}`);
      // The document's namespace rule: `<ns>.` before the channel's address.
      expect(subject.startsWith(example.subjects.replace(/>$/, ''))).toBe(true);
      expect(messageFor(doc.messages, addressOf(subject)).name).toBe(transaction.event);
    }
    expect(messageOf(started.find((transaction) => transaction.event === 'offramp.completed')!).subject).toBe(example.subject);
  });

  it("sends payloads and headers that the schemas of the subject's channel accept, with Nats-Msg-Id the event id", () => {
    for (const transaction of started) {
      const { subject, headers, body } = messageOf(transaction);
      const documented = messageFor(doc.messages, addressOf(subject));
      const payload = JSON.parse(body);
      // The body is the payload serialized once: byte for byte what the webhooks deliver.
      expect(body).toBe(JSON.stringify(payload));
      expectValid(documented.validatePayload, payload, `${documented.name} payload`);
      expectValid(documented.validateHeaders, headers, `${documented.name} headers`);
      expect(headers['Nats-Msg-Id']).toBe(payload.data.metadata.eventId);
      expect(payload).toMatchObject({ event: transaction.event, data: { transactionId: transaction.id, status: transaction.event.split('.')[1] } });
      // Absent, never null, where there is no wallet.
      expect(payload.data.walletId).toBe(transaction.walletId ?? undefined);
    }
  });

  it('carries the tenant, the transaction, the initiating request and the callback URL in the documented headers', () => {
    const documented = Object.keys(doc.messages[0]!.headers.properties).sort();
    for (const transaction of started) {
      const { headers } = messageOf(transaction);
      expect(Object.keys(headers).filter((name) => !documented.includes(name))).toEqual([]);
      expect(headers).toEqual({
        'Nats-Msg-Id': expect.any(String),
        [INTEGRATION_HEADERS.organizationId]: key.organizationId,
        [INTEGRATION_HEADERS.environment]: 'test',
        [INTEGRATION_HEADERS.keyId]: key.keyId,
        [INTEGRATION_HEADERS.correlationId]: transaction.id,
        [INTEGRATION_HEADERS.requestId]: transaction.requestId,
        ...(transaction.callbackUrl ? { [INTEGRATION_HEADERS.callbackUrl]: transaction.callbackUrl } : {}),
      });
    }
  });

  it('keeps the stream with the settings the document states', async () => {
    const documented = doc.raw['x-jetstream-streams'][integrationEvents().stream];
    const example = namespaceExample();
    const jsm = await nc.jetstreamManager();
    expect(target.stream).toBe(example.stream);
    const { config } = await jsm.streams.info(example.stream);
    expect({
      subjects: config.subjects,
      storage: config.storage,
      retention: config.retention,
      maxAge: config.max_age,
      maxMsgs: config.max_msgs,
      maxBytes: config.max_bytes,
      duplicateWindowMs: config.duplicate_window / NANOS_PER_MS,
    }).toEqual({
      subjects: [example.subjects],
      storage: documented.storage,
      retention: documented.retention,
      maxAge: documented.maxAge,
      maxMsgs: documented.maxMsgs,
      maxBytes: documented.maxBytes,
      duplicateWindowMs: documented.duplicateWindowMs,
    });
    // Not set by the code: the server's default for a new stream, one replica on this single server.
    expect(config.num_replicas).toBe(1);
  });

  it("publishes from the services' relays of their own streams: no consumer of those streams but the ones the services declare", async () => {
    const jsm = await nc.jetstreamManager();
    const domainStreams = doc.raw['x-domain-event-streams'] as Json[];
    const declared = Object.values(SERVICE_ACCESS).flatMap((access) =>
      access.consumes.flatMap(({ stream, durables }) => durables.map((durable) => `${stream().stream}/${durable}`)),
    );
    for (const publisher of doc.raw['x-jetstream-streams'][integrationEvents().stream].publishers as Json[]) {
      const source = domainStreams.find((stream) => stream.service === publisher.service);
      expect(source?.stream).toBe(publisher.stream);
      expect(publisher.durable).toBeUndefined();
      // Durable ones: a rebuild's or a test's reader is ephemeral, and goes away by itself.
      const consumers = (await jsm.consumers.list(namespacedStream(publisher.stream)).next())
        .filter((info) => info.config.durable_name)
        .map((info) => `${publisher.stream}/${info.name}`);
      for (const consumer of consumers) expect(declared).toContain(consumer);
    }
  });

  it('drops a republication with the same Nats-Msg-Id within the duplicate window', async () => {
    const first = messageOf(started[0]!);
    const js = nc.jetstream();
    const ack = await js.publish(first.subject, first.body, { msgID: first.headers['Nats-Msg-Id'] });
    expect({ duplicate: ack.duplicate, seq: ack.seq, stream: ack.stream }).toEqual({ duplicate: true, seq: first.seq, stream: target.stream });
    expect(await integrationMessagesFor(nc, [started[0]!.id])).toHaveLength(1);
  });
});
