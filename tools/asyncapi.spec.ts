import { createHash, randomUUID } from 'crypto';
import { CHAIN_NAMES } from '@ramp/chains';
import { SETTINGS } from '@ramp/config';
import {
  ENVIRONMENTS,
  FAILURE_REASON_NAMES,
  INTEGRATION_EVENT_NAMES,
  INTEGRATION_HEADERS,
  integrationEvents,
  newId,
  rampEvents,
  swapTransferEvents,
  type OfframpQuote,
  type OnrampQuote,
  type Tenant,
} from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { integrationMessageOf } from '@ramp/process-kit';
import { cngnToMint, offrampDecider, onrampDecider, RAMP_KINDS, type OfframpCommand, type OnrampCommand } from '@ramp/ramping';
import { planRoute, ROUTE_KINDS, routeDecider, type RouteCommand, type RouteInitiated, type RouteLegSpec, type RouteOrder } from '@ramp/routing';
import type { AnyTransactionKind } from '@ramp/transactions';
import { expectValid, loadAsyncApiDocument, messageFor as documentedMessageFor, type AsyncApiDocument, type DocumentedMessage, type Json } from '@ramp/testing';

/**
 * docs/asyncapi.yaml is the contract of the integration event stream for internal teams. It is checked here, without
 * any infrastructure, with the real AsyncAPI parser (@asyncapi/parser: the AsyncAPI JSON Schema plus its Spectral
 * rules) and against the code: the event names, subjects, stream, namespace rule and headers come from
 * @ramp/contracts, and every payload and header schema must accept the message that the integration publisher builds
 * (integrationMessageOf, pure: the payload from integrationEventOf and viewAtVersion, the headers from the log) for
 * real domain histories, driven through the real deciders. The document's examples are exactly those messages.
 * What the running services really put on JetStream, and the stream's settings, are checked against the document by
 * apps/platform-e2e/src/asyncapi.e2e-spec.ts.
 */

// ---------------------------------------------------------------------------------------------------------------------
// Domain histories: one transaction per integration event, driven through the real deciders.

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const at = (seconds: number): string => new Date(T0 + seconds * 1000).toISOString();
/** A deterministic 32-byte hex hash, `0x`-prefixed, like an EVM transaction hash. */
const hash = (label: string): string => `0x${createHash('sha256').update(label).digest('hex')}`;
/** A deterministic RFC 4122 version 4 UUID: the event log's event ids are UUIDs. */
function uuidOf(label: string): string {
  const hex = createHash('sha256').update(label).digest('hex').slice(0, 32).split('');
  hex[12] = '4';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

const TENANT: Tenant = { organizationId: 'org_01M81B5J1MTFDNRR29P68JEET5', environment: 'live', keyId: 'key_01M81B5HR2H2ZRFV6YJ914MW11' };
const WALLET = { walletId: 'wal_01M81B5HSVDC0FWSK7PNP5EWYM', chain: 'base', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' };
const EXTERNAL_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const CALLBACK_URL = 'https://payments.example.com/ramp/callbacks';
const TXN = {
  onrampCompleted: 'txn_01M81B5HT7E25BF1BE5QH6KDKS',
  onrampFailed: 'txn_01M81B5HA8M5RPN6780TDWTTH0',
  offrampCompleted: 'txn_01M81B5HK9V8QPMGMNGXA0MYXH',
  offrampFailed: 'txn_01M81B5HN2EG0N390KW5GCRB91',
  swapCompleted: 'txn_01M81B5HNS9G2WGC1EBG9TJYS7',
  swapFailed: 'txn_01M81B5HT2D3VTT1XH6P88MX6D',
  transferCompleted: 'txn_01M81B5J6RGW74CJKSC11X7GS5',
  transferFailed: 'txn_01M81B5H9HYDPC4NFYA79AS9P8',
} as const;
const QUOTE_ID = 'qt_01M81B5HBY56KA1EJV3JW6NABJ';

interface Decider<S, C, E> {
  initialState: S;
  evolve(state: S, event: E): S;
  decide(command: C, state: S): E[];
}

/** The events the commands decide, in order; a command that decides nothing is a broken fixture. */
function drive<S, C, E>(decider: Decider<S, C, E>, commands: C[]): E[] {
  let state = decider.initialState;
  const events: E[] = [];
  for (const command of commands) {
    const decided = decider.decide(command, state);
    if (decided.length === 0) throw new Error(`fixture: ${JSON.stringify(command)} decided nothing`);
    for (const event of decided) {
      events.push(event);
      state = decider.evolve(state, event);
    }
  }
  return events;
}

const onrampQuote: OnrampQuote.Response = {
  quoteId: QUOTE_ID,
  expiresAt: at(300),
  fiatAmount: '50000',
  fiatCurrency: 'NGN',
  cryptoAmount: '33.1',
  tokenSymbol: 'USDC',
  chain: 'base',
  rate: '1507.5',
  fees: { providerFee: '100.00', platformFee: '20.00', swapFee: '20.00', totalFee: '140.00' },
};
/** A test tenant after two sandbox resets: the failed transfer's, so that every header of the code is on some example. */
const SANDBOX_TENANT: Tenant = { ...TENANT, environment: 'test', generation: 2 };
const tenantFor = (transactionId: string): Tenant => (transactionId === TXN.transferFailed ? SANDBOX_TENANT : TENANT);

const virtualAccount = {
  bankName: 'Wema Bank',
  bankCode: '035',
  accountNumber: '0123456789',
  accountName: 'RAMP CHECKOUT',
  amount: '50000',
  expiresAt: at(1800),
};

const offrampQuote = (tokenSymbol: string, chain: string, cryptoAmount: string, fiatAmount: string): OfframpQuote.Response => ({
  quoteId: QUOTE_ID,
  expiresAt: at(300),
  cryptoAmount,
  tokenSymbol,
  chain,
  fiatAmount,
  fiatCurrency: 'NGN',
  rate: '1492.5',
  fees: {
    providerFee: '149.25',
    platformFee: '20.00',
    swapFee: tokenSymbol === 'CNGN' ? '0.00' : '20.00',
    totalFee: tokenSymbol === 'CNGN' ? '169.25' : '189.25',
  },
  payoutAmount: '149060.75',
  bankAccount: { bankName: 'Guaranty Trust Bank', bankCode: '058', accountNumber: '0123456789', accountName: 'ADA OBI' },
});

function onramp(transactionId: string, outcome: 'completed' | 'failed') {
  const initiate: OnrampCommand = {
    type: 'initiate',
    data: {
      transactionId,
      tenant: TENANT,
      quote: onrampQuote,
      walletId: outcome === 'completed' ? WALLET.walletId : null,
      destinationAddress: outcome === 'completed' ? null : EXTERNAL_ADDRESS,
      virtualAccount,
      reference: outcome === 'completed' ? 'topup-1183' : null,
      callbackUrl: null,
      at: at(0),
    },
  };
  const commands: OnrampCommand[] =
    outcome === 'completed'
      ? [
          initiate,
          { type: 'recordPayment', amount: '50000.00', payerReference: 'NIP-000013261122100412345678', at: at(95) },
          { type: 'recordMint', amount: cngnToMint(onrampQuote), transactionHash: hash(`${transactionId}:mint`), at: at(101) },
          { type: 'recordSwap', ok: true, amount: '33.1', transactionHash: hash(`${transactionId}:swap`), at: at(107) },
          { type: 'recordDelivery', transactionHash: hash(`${transactionId}:delivery`), at: at(112) },
        ]
      : [initiate, { type: 'expirePayment', at: at(1800) }, { type: 'fail', reason: 'expired', failureReason: 'TRANSACTION_FAILED', at: at(1800) }];
  return drive(onrampDecider, commands);
}

function offramp(transactionId: string, outcome: 'completed' | 'failed') {
  const commands: OfframpCommand[] =
    outcome === 'completed'
      ? [
          {
            type: 'initiate',
            data: {
              transactionId,
              tenant: TENANT,
              quote: offrampQuote('USDC', 'base', '100', '149250.00'),
              walletId: WALLET.walletId,
              sourceAddress: null,
              depositAddress: null,
              depositExpiresAt: null,
              reference: 'payout-2026-11-22-0042',
              callbackUrl: CALLBACK_URL,
              at: at(0),
            },
          },
          { type: 'recordFundsHeld', at: at(1) },
          { type: 'recordSwap', ok: true, cngnAmount: '149250.00', transactionHash: hash(`${transactionId}:swap`), at: at(7) },
          { type: 'recordPayout', ok: true, transactionHash: hash(`${transactionId}:payout`), payoutReference: 'NIP-000013261122100512345678', at: at(19) },
          { type: 'complete', at: at(20) },
        ]
      : [
          {
            type: 'initiate',
            data: {
              transactionId,
              tenant: TENANT,
              quote: offrampQuote('USDT', 'bsc', '100', '149250.00'),
              walletId: null,
              sourceAddress: EXTERNAL_ADDRESS,
              depositAddress: '0x1f9840a85d5aF5bf1D1762F925BDADdC4201F984',
              depositExpiresAt: at(1800),
              reference: null,
              callbackUrl: null,
              at: at(0),
            },
          },
          { type: 'expireDeposit', at: at(1800) },
          { type: 'fail', reason: 'expired', failureReason: 'TRANSACTION_FAILED', at: at(1800) },
        ];
  return drive(offrampDecider, commands);
}

const SWAP_ORDER: RouteOrder = {
  quoteId: QUOTE_ID,
  fromChain: 'base',
  toChain: 'base',
  fromToken: 'USDC',
  toToken: 'ETH',
  fromAmount: '1000',
  toAmount: '0.3109375',
  minimumToAmount: '0.307828125',
  slippage: 1,
  fees: { platformFee: '5', platformFeeFiat: '7462.50', bridgeFee: '0', totalFee: '5' },
};
const SWAP_LEGS: RouteLegSpec[] = [{ kind: 'swap', chain: 'base', fromToken: 'USDC', toToken: 'ETH', provider: 'Aerodrome' }];
const TRANSFER_ORDER: RouteOrder = {
  quoteId: QUOTE_ID,
  fromChain: 'base',
  toChain: 'arbitrum',
  fromToken: 'USDC',
  toToken: 'USDC',
  fromAmount: '250',
  toAmount: '248.25',
  minimumToAmount: '248.25',
  slippage: 0.5,
  fees: { platformFee: '1.25', platformFeeFiat: '1865.63', bridgeFee: '0.5', totalFee: '1.75' },
};
const TRANSFER_LEGS: RouteLegSpec[] = [{ kind: 'bridge', fromChain: 'base', toChain: 'arbitrum', token: 'USDC', provider: 'Across' }];

function route(kind: 'swap' | 'transfer', transactionId: string, outcome: 'completed' | 'failed') {
  const order = kind === 'swap' ? SWAP_ORDER : TRANSFER_ORDER;
  const legs = planRoute({
    legs: kind === 'swap' ? SWAP_LEGS : TRANSFER_LEGS,
    amountIn: '995',
    toAmount: order.toAmount,
    minimumToAmount: order.minimumToAmount,
    slippagePercent: String(order.slippage),
    usdPrices: { USDC: '1', ETH: '3200' },
  });
  const initiated: RouteInitiated = {
    transactionId,
    kind,
    tenant: tenantFor(transactionId),
    walletId: WALLET.walletId,
    order,
    legs,
    destination: kind === 'swap' ? { kind: 'wallet', walletId: WALLET.walletId, address: WALLET.address } : { kind: 'address', address: EXTERNAL_ADDRESS },
    reference: kind === 'swap' ? 'rebalance-77' : 'treasury-move-9',
    callbackUrl: null,
    at: at(0),
  };
  const commands: RouteCommand[] = [
    { type: 'initiate', data: initiated },
    { type: 'recordFundsHeld', at: at(1) },
  ];
  if (outcome === 'completed') {
    commands.push({
      type: 'recordLeg',
      index: 0,
      ok: true,
      amountOut: order.toAmount,
      transactionHash: hash(`${transactionId}:leg0`),
      at: at(kind === 'swap' ? 9 : 64),
    });
    commands.push({ type: 'complete', at: at(kind === 'swap' ? 10 : 65) });
  } else {
    commands.push(
      kind === 'swap'
        ? { type: 'recordLeg', index: 0, ok: false, reason: 'slippage', wouldGive: '0.3061', at: at(9) }
        : { type: 'recordLeg', index: 0, ok: false, reason: 'the bridge did not confirm the deposit', at: at(64) },
    );
    commands.push({ type: 'recordFundsReleased', at: at(66) });
    commands.push({ type: 'fail', reason: 'unwound', failureReason: 'TRANSACTION_FAILED', at: at(67) });
  }
  return drive(routeDecider, commands);
}

interface Transaction {
  prefix: string;
  transactionId: string;
  events: { type: string; data: unknown }[];
}

const RAMP_TRANSACTIONS: Transaction[] = [
  { prefix: 'onramp', transactionId: TXN.onrampCompleted, events: onramp(TXN.onrampCompleted, 'completed') },
  { prefix: 'onramp', transactionId: TXN.onrampFailed, events: onramp(TXN.onrampFailed, 'failed') },
  { prefix: 'offramp', transactionId: TXN.offrampCompleted, events: offramp(TXN.offrampCompleted, 'completed') },
  { prefix: 'offramp', transactionId: TXN.offrampFailed, events: offramp(TXN.offrampFailed, 'failed') },
];
const ROUTE_TRANSACTIONS: Transaction[] = [
  { prefix: 'swap', transactionId: TXN.swapCompleted, events: route('swap', TXN.swapCompleted, 'completed') },
  { prefix: 'swap', transactionId: TXN.swapFailed, events: route('swap', TXN.swapFailed, 'failed') },
  { prefix: 'transfer', transactionId: TXN.transferCompleted, events: route('transfer', TXN.transferCompleted, 'completed') },
  { prefix: 'transfer', transactionId: TXN.transferFailed, events: route('transfer', TXN.transferFailed, 'failed') },
];

/** The transactions' events as the service's log stores them (and its relay publishes them). */
function storedEvents(transactions: Transaction[]): Map<string, StoredEvent[]> {
  const streams = new Map<string, StoredEvent[]>();
  let position = 0;
  for (const { prefix, transactionId, events } of transactions) {
    const streamId = `${prefix}-${transactionId}`;
    // The x-request-id of the initiating request (the gateway's `req_<uuid>`), carried into the later events; one
    // transaction has none, as events recorded before request ids were carried.
    const requestId = transactionId === TXN.offrampFailed ? undefined : `req_${uuidOf(`${transactionId}:request`)}`;
    streams.set(
      streamId,
      events.map((event, index) => ({
        globalPosition: String(++position),
        eventId: uuidOf(`${streamId}:${index + 1}`),
        streamId,
        streamVersion: index + 1,
        type: event.type,
        data: event.data,
        metadata: {
          correlationId: transactionId,
          causationId: index === 0 ? (requestId ?? 'request') : `job:${index}`,
          actor: index === 0 ? `key:${TENANT.keyId}` : `system:${prefix.endsWith('ramp') ? 'ramp' : 'swap-transfer'}`,
          tenant: tenantFor(transactionId),
          ...(requestId ? { requestId } : {}),
        },
        transactionId: String(1000 + position),
        createdAt: (event.data as { at: string }).at,
      })),
    );
  }
  return streams;
}

// ---------------------------------------------------------------------------------------------------------------------
// What the integration publisher builds for those histories.

/** A message as the publisher sends it: subject (without namespace), body, `Nats-Msg-Id` and the other headers. */
interface Publication {
  subject: string;
  body: string;
  msgID: string;
  headers: Record<string, string>;
}

/** For every event of every transaction, the message the publisher of a service with `kinds` sends (terminal events only). */
function publicationsOf(kinds: readonly AnyTransactionKind[], transactions: Transaction[]): Publication[] {
  const { subjectPrefix } = integrationEvents();
  return [...storedEvents(transactions).values()].flatMap((history) =>
    history.flatMap((event) => {
      const message = integrationMessageOf(kinds, history, event);
      return message
        ? [{ subject: `${subjectPrefix}.${message.payload.event}`, body: JSON.stringify(message.payload), msgID: message.msgID, headers: message.headers }]
        : [];
    }),
  );
}

const published: Publication[] = [
  ...publicationsOf(RAMP_KINDS as unknown as AnyTransactionKind[], RAMP_TRANSACTIONS),
  ...publicationsOf(ROUTE_KINDS as unknown as AnyTransactionKind[], ROUTE_TRANSACTIONS),
];
const wireHeadersOf = (publication: Publication): Record<string, string> => ({ ...publication.headers, 'Nats-Msg-Id': publication.msgID });

// ---------------------------------------------------------------------------------------------------------------------
// The document.

let doc: AsyncApiDocument;
let raw: Json;
let messages: DocumentedMessage[];

beforeAll(async () => {
  doc = await loadAsyncApiDocument();
  ({ raw, messages } = doc);
  if (doc.otherDiagnostics.length > 0) {
    console.info(`docs/asyncapi.yaml: ${doc.otherDiagnostics.length} non-error diagnostic(s):\n${doc.otherDiagnostics.map((d) => `  ${d}`).join('\n')}`);
  }
}, 60_000);

const messageFor = (subject: string): DocumentedMessage => documentedMessageFor(messages, subject);
const payloadOf = (name: string): Json => {
  const publication = published.find((p) => JSON.parse(p.body).event === name);
  if (!publication) throw new Error(`the publisher builds no ${name}`);
  return JSON.parse(publication.body);
};

describe('docs/asyncapi.yaml', () => {
  it('is a valid AsyncAPI 3.0.0 document for @asyncapi/parser, without errors', () => {
    expect(doc.errors).toEqual([]);
    expect(doc.document).toBeDefined();
    expect(doc.document!.version()).toBe('3.0.0');
  });

  it("has a channel and a message for each integration event of the code, on the code's subject, and no other", () => {
    const { subjectPrefix } = integrationEvents();
    expect(subjectPrefix).toBe('integration');
    expect(messages.map((m) => m.address).sort()).toEqual(INTEGRATION_EVENT_NAMES.map((name) => `${subjectPrefix}.${name}`).sort());
    for (const message of messages) {
      expect(message.address).toBe(`${subjectPrefix}.${message.name}`);
      expect(message.payload.properties.event.const).toBe(message.name);
      expect(message.examples.length).toBeGreaterThan(0);
    }
    expect(
      doc
        .document!.channels()
        .all()
        .map((channel) => channel.messages().all().length),
    ).toEqual(INTEGRATION_EVENT_NAMES.map(() => 1));
    // The platform sends each of them.
    const sent = doc
      .document!.operations()
      .all()
      .filter((operation) => operation.action() === 'send')
      .flatMap((operation) =>
        operation
          .channels()
          .all()
          .map((channel) => channel.address()),
      );
    expect(sent.sort()).toEqual(messages.map((m) => m.address).sort());
  });

  it('lists exactly the failure reasons of the code', () => {
    expect(raw.components.schemas.IntegrationEventData.properties.failureReason.enum).toEqual([...FAILURE_REASON_NAMES]);
  });

  it('names the streams as the code does, and the namespace rule that renames streams and subjects', () => {
    const { stream, subjectPrefix } = integrationEvents();
    expect(Object.keys(raw.channels)).toHaveLength(INTEGRATION_EVENT_NAMES.length);
    for (const channel of Object.values(raw.channels) as Json[]) expect(channel['x-jetstream-stream']).toBe(stream);
    expect(Object.keys(raw['x-jetstream-streams'])).toEqual([stream]);
    expect(raw['x-jetstream-streams'][stream].subjects).toEqual([`${subjectPrefix}.>`]);
    const namespace = raw['x-events-namespace'];
    expect(namespace.setting).toBe(SETTINGS.eventsNamespace.env);
    expect(namespace.default).toBe(SETTINGS.eventsNamespace.default);
    for (const example of namespace.examples as Json[]) {
      const named = integrationEvents(example.namespace);
      expect({ stream: example.stream, subjects: example.subjects }).toEqual({ stream: named.stream, subjects: `${named.subjectPrefix}.>` });
      expect(example.subject).toBe(`${named.subjectPrefix}.offramp.completed`);
    }
    // The end-to-end test runs under `test`, and reads the streams by this example.
    expect((namespace.examples as Json[]).map((example) => example.namespace)).toContain('test');
    // The publishers read their own service's stream.
    expect(raw['x-jetstream-streams'][stream].publishers.map((p: Json) => p.stream)).toEqual([rampEvents().stream, swapTransferEvents().stream]);
    expect(raw['x-domain-event-streams']).toEqual([
      { service: 'ramp', stream: rampEvents().stream, subjects: `${rampEvents().subjectPrefix}.>`, contract: false },
      { service: 'swap-transfer', stream: swapTransferEvents().stream, subjects: `${swapTransferEvents().subjectPrefix}.>`, contract: false },
    ]);
  });

  it('names for each publisher the events of its service', () => {
    const publishers = raw['x-jetstream-streams'][integrationEvents().stream].publishers as Json[];
    expect(publishers.flatMap((p) => p.events).sort()).toEqual([...INTEGRATION_EVENT_NAMES].sort());
    const kindsOf: Record<string, readonly { type: string }[]> = { ramp: RAMP_KINDS, 'swap-transfer': ROUTE_KINDS };
    for (const publisher of publishers) {
      const types = kindsOf[publisher.service]!.map((kind) => kind.type);
      expect([...publisher.events].sort()).toEqual(types.flatMap((type) => [`${type}.completed`, `${type}.failed`]).sort());
    }
  });

  it('documents the headers of INTEGRATION_HEADERS and Nats-Msg-Id, and nothing else; required are those always set', () => {
    const expected = [...Object.values(INTEGRATION_HEADERS), 'Nats-Msg-Id'].sort();
    // Required: what the publisher sets on every event; the others it sets only when it has a value.
    const wire = published.map(wireHeadersOf);
    const always = expected.filter((name) => wire.every((headers) => name in headers));
    expect(always.length).toBeGreaterThan(0);
    expect(messages).toHaveLength(INTEGRATION_EVENT_NAMES.length);
    for (const message of messages) {
      expect(Object.keys(message.headers.properties).sort()).toEqual(expected);
      expect([...message.headers.required].sort()).toEqual(always);
      expect(message.headers.properties[INTEGRATION_HEADERS.environment].enum).toEqual([...ENVIRONMENTS]);
    }
    // Every header of the code is set on some event.
    expect(expected.filter((name) => !wire.some((headers) => name in headers))).toEqual([]);
  });

  it('documents the local server as the default NATS_URL, over nats', () => {
    const local = doc.document!.servers().get('local');
    expect(local?.protocol()).toBe('nats');
    expect(`nats://${local?.host()}`).toBe(SETTINGS.natsUrl.default);
    for (const server of doc.document!.servers().all()) expect(server.protocol()).toBe('nats');
  });

  it('has payload and header schemas that accept every message the publisher builds, each on its documented channel', () => {
    expect(published).toHaveLength(INTEGRATION_EVENT_NAMES.length);
    expect(published.map((p) => JSON.parse(p.body).event).sort()).toEqual([...INTEGRATION_EVENT_NAMES].sort());
    for (const publication of published) {
      const message = messageFor(publication.subject);
      const payload = JSON.parse(publication.body);
      expect(payload.event).toBe(message.name);
      expectValid(message.validatePayload, payload, `${message.name} payload`);
      expect(publication.msgID).toBe(payload.data.metadata.eventId);
      expectValid(message.validateHeaders, wireHeadersOf(publication), `${message.name} headers`);
    }
    // The callback URL header travels only for a transaction initiated with one.
    const withCallback = published.filter((p) => INTEGRATION_HEADERS.callbackUrl in p.headers);
    expect(withCallback.map((p) => JSON.parse(p.body).data.transactionId)).toEqual([TXN.offrampCompleted]);
  });

  it('has examples that are exactly what the publisher builds for the same transactions', () => {
    expect(messages).toHaveLength(INTEGRATION_EVENT_NAMES.length);
    for (const message of messages) {
      const publication = published.find((p) => p.subject === message.address)!;
      const [example] = message.examples;
      const actual = { headers: wireHeadersOf(publication), payload: JSON.parse(publication.body) };
      if (
        JSON.stringify(example?.payload) !== JSON.stringify(actual.payload) ||
        JSON.stringify(sortKeys(example?.headers)) !== JSON.stringify(sortKeys(actual.headers))
      ) {
        throw new Error(`the ${message.name} example differs from what the code publishes; it publishes:\n${JSON.stringify(actual, null, 2)}`);
      }
      for (const other of message.examples) {
        expectValid(message.validatePayload, other.payload, `${message.name} example ${other.name}`);
        expectValid(message.validateHeaders, other.headers, `${message.name} example ${other.name} headers`);
        expect(other.headers['Nats-Msg-Id']).toBe(other.payload.data.metadata.eventId);
      }
    }
  });

  it('has payload schemas that refuse what the code never sends', () => {
    const completed = messageFor('integration.offramp.completed');
    const failed = messageFor('integration.offramp.failed');
    const swapCompleted = messageFor('integration.swap.completed');
    const good = payloadOf('offramp.completed');
    const goodFailed = payloadOf('offramp.failed');
    const goodSwap = payloadOf('swap.completed');
    expect(completed.validatePayload(good)).toBe(true);
    const variants: [string, DocumentedMessage, Json][] = [
      ['another event on the channel', completed, { ...good, event: 'offramp.failed' }],
      ['a failed event on the completed channel', completed, goodFailed],
      ['a completed event with an errorMessage', completed, { ...good, data: { ...good.data, errorMessage: 'x' } }],
      ['a failed event without errorMessage', failed, { ...goodFailed, data: { ...goodFailed.data, errorMessage: undefined } }],
      ['a field the code does not send', completed, { ...good, data: { ...good.data, fees: {} } }],
      ['a top-level field the code does not send', completed, { ...good, id: 'x' }],
      ['no event id', completed, { ...good, data: { ...good.data, metadata: {} } }],
      ['a missing field', completed, { ...good, data: { ...good.data, amount: undefined } }],
      ['a null where a value is absent', completed, { ...good, data: { ...good.data, reference: null } }],
      ['a completed event with a failureReason', completed, { ...good, data: { ...good.data, failureReason: 'PAYOUT_REJECTED' } }],
      ['a failed event without failureReason', failed, { ...goodFailed, data: { ...goodFailed.data, failureReason: undefined } }],
      ['a failure reason outside the catalogue', failed, { ...goodFailed, data: { ...goodFailed.data, failureReason: 'BANK_ON_FIRE' } }],
      ['an off-ramp without its payout amount', completed, { ...good, data: { ...good.data, payoutAmount: undefined } }],
      ['a swap with a payout amount', swapCompleted, { ...goodSwap, data: { ...goodSwap.data, payoutAmount: '1.00' } }],
      ['another status', completed, { ...good, data: { ...good.data, status: 'pending' } }],
      ['another type', completed, { ...good, data: { ...good.data, type: 'onramp' } }],
      ['a number for an amount', completed, { ...good, data: { ...good.data, amount: 100 } }],
      ['an amount with an exponent', completed, { ...good, data: { ...good.data, amount: '1e2' } }],
      ['a chain that does not exist', completed, { ...good, data: { ...good.data, chain: 'tron' } }],
      ['a transaction id of another shape', completed, { ...good, data: { ...good.data, transactionId: 'tx-1' } }],
      ['a timestamp that is not a date-time', completed, { ...good, timestamp: 'yesterday' }],
      ['an off-ramp without its fiat amount', completed, { ...good, data: { ...good.data, fiatAmount: undefined } }],
      ['a swap with a fiat amount', swapCompleted, { ...goodSwap, data: { ...goodSwap.data, fiatAmount: '1.00', fiatCurrency: 'NGN' } }],
      ['a swap without its wallet', swapCompleted, { ...goodSwap, data: { ...goodSwap.data, walletId: undefined } }],
    ];
    for (const [what, message, payload] of variants) {
      const copy = JSON.parse(JSON.stringify(payload));
      if (message.validatePayload(copy)) throw new Error(`the ${message.name} schema accepts ${what}`);
    }
    const headers = wireHeadersOf(published[0]!);
    expect(completed.validateHeaders(headers)).toBe(true);
    expect(completed.validateHeaders({ ...headers, [INTEGRATION_HEADERS.environment]: 'staging' })).toBe(false);
    expect(completed.validateHeaders({ ...headers, 'Nats-Msg-Id': undefined })).toBe(false);
    expect(completed.validateHeaders({ ...headers, [INTEGRATION_HEADERS.organizationId]: undefined })).toBe(false);
  });

  it('describes ids, chains and event ids as the code makes them', () => {
    const schemas = raw.components.schemas;
    expect(schemas.Chain.enum).toEqual([...CHAIN_NAMES]);
    const matches = (schema: Json, value: unknown) => doc.ajv.validate(schema, value);
    expect(matches(schemas.TransactionId, newId('txn'))).toBe(true);
    expect(matches(schemas.TransactionId, newId('wal'))).toBe(false);
    expect(matches(schemas.WalletId, newId('wal'))).toBe(true);
    expect(matches(schemas.EventId, randomUUID())).toBe(true);
    expect(matches(schemas.EventId, 'evt_1')).toBe(false);
  });
});

function sortKeys(value: Json): Json {
  return value && typeof value === 'object'
    ? Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, value[key]]),
      )
    : value;
}
