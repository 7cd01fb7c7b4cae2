import { randomUUID } from 'crypto';
import { Controller, Inject, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JSONCodec, type NatsConnection } from 'nats';
import { AppError, invalidField, rpc, type Tenant } from '@ramp/contracts';
import { currentLogContext, Metrics, withLogContext, type LogContext } from '@ramp/observability';
import {
  beforeAnyEffect,
  CallerTenant,
  connectNats,
  Handles,
  NatsRpcClient,
  NatsRpcServer,
  RequestData,
  RequestId,
  RpcClient,
  ServiceNotReached,
  type RpcLogger,
} from './index';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const tenant: Tenant = { organizationId: 'org_rpc_test', environment: 'test', keyId: 'key_rpc_test' };

interface Echoed {
  text: string;
  tenant: Tenant;
  requestId?: string;
  context: LogContext;
  replica: string;
}
type Failure = 'typed' | 'unknown' | 'outage' | 'nothing-ran' | 'after-effect';

const Echo = rpc<{ text: string }, Echoed>('echo.v1.say');
const Relay = rpc<{ text: string }, Echoed>('echo.v1.relay');
const Hang = rpc<Record<string, never>, { released: true }>('echo.v1.hang');
const Fail = rpc<{ how: Failure }, never>('echo.v1.fail');
const Absent = rpc<Record<string, never>, never>('absent.v1.anything');

/** A handler that waits until the test lets it go, and says when it has started. */
class Gate {
  entered!: Promise<void>;
  private enter!: () => void;
  private opened!: Promise<void>;
  open!: () => void;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.entered = new Promise((resolve) => (this.enter = resolve));
    this.opened = new Promise((resolve) => (this.open = resolve));
  }

  async pass(): Promise<void> {
    this.enter();
    await this.opened;
  }
}

const gate = new Gate();
const REPLICA = Symbol('REPLICA');
const served = new Map<string, number>();

@Controller()
class EchoController {
  constructor(
    @Inject(REPLICA) private readonly replica: string,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  @Handles(Echo)
  async say(@RequestData() request: { text: string }, @CallerTenant() caller: Tenant, @RequestId() requestId: string | undefined): Promise<Echoed> {
    served.set(this.replica, (served.get(this.replica) ?? 0) + 1);
    return { text: request.text, tenant: caller, requestId, context: currentLogContext(), replica: this.replica };
  }

  @Handles(Relay)
  async relay(@RequestData() request: { text: string }, @CallerTenant() caller: Tenant): Promise<Echoed> {
    return this.rpc.call(Echo, caller, request);
  }

  @Handles(Hang)
  async hang(): Promise<{ released: true }> {
    await gate.pass();
    return { released: true };
  }

  @Handles(Fail)
  async fail(@RequestData() { how }: { how: Failure }, @CallerTenant() caller: Tenant): Promise<never> {
    if (how === 'typed') throw invalidField('quoteId', 'the quote expired', 'QUOTE_EXPIRED');
    if (how === 'outage') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    if (how === 'nothing-ran') await beforeAnyEffect(() => this.rpc.call(Absent, caller, {}));
    if (how === 'after-effect') await this.rpc.call(Absent, caller, {});
    throw new Error('the database password is hunter2');
  }
}

interface LogLine extends LogContext {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** Records lines as the services' pino logger writes them: with the log context of the moment. */
function recordingLogger(lines: LogLine[]): RpcLogger {
  const at = (level: string) => (object: object, msg: string) => lines.push({ level, msg, ...object, ...currentLogContext() });
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

interface Replica {
  app: INestMicroservice;
  connection: NatsConnection;
  logs: LogLine[];
  metrics: Metrics;
}

/** One replica of the `echo` service under a namespace: a Nest microservice on NatsRpcServer with its own connection. */
async function startReplica(namespace: string, name: string): Promise<Replica> {
  // Whatever context the connection was made in is where its callbacks run: a request must be served without it.
  const connection = await withLogContext({ eventId: 'evt_of_the_server' }, () => connectNats({ servers: NATS_URL }, `rpc-test-${name}`));
  const logs: LogLine[] = [];
  const metrics = new Metrics('echo');
  const server = new NatsRpcServer({ connection, service: 'echo', namespace, logger: recordingLogger(logs), metrics });
  @Module({
    controllers: [EchoController],
    providers: [
      { provide: NatsRpcServer, useValue: server },
      { provide: REPLICA, useValue: name },
      { provide: RpcClient, useValue: new RpcClient(new NatsRpcClient(connection, namespace), 5_000) },
    ],
  })
  class EchoModule {}
  const app = await NestFactory.createMicroservice(EchoModule, { strategy: server, logger: false });
  await app.listen();
  return { app, connection, logs, metrics };
}

async function stopReplica(replica: Replica): Promise<void> {
  await replica.app.close();
  await replica.connection.drain();
}

async function failureOf(work: Promise<unknown>): Promise<AppError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

async function countOf(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const sample = metric.values.find(
    (value) => 'metricName' in value && value.metricName === `${name}_count` && Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return sample?.value ?? 0;
}

describe('request/reply - the NATS transport of @nestjs/microservices as the services use it', () => {
  const namespace = `${process.env.EVENTS_NAMESPACE ?? 'test'}-rpc-${randomUUID().slice(0, 8)}`;
  let replicas: Replica[];
  let connection: NatsConnection;
  let client: RpcClient;
  let clientMetrics: Metrics;
  const allLogs = () => replicas.flatMap((replica) => replica.logs);

  beforeAll(async () => {
    replicas = [await startReplica(namespace, 'a1'), await startReplica(namespace, 'a2')];
    connection = await connectNats({ servers: NATS_URL }, 'rpc-test-client');
    clientMetrics = new Metrics('caller');
    client = new RpcClient(new NatsRpcClient(connection, namespace), 5_000, clientMetrics);
  });

  afterAll(async () => {
    gate.open();
    await Promise.all(replicas.map(stopReplica));
    await connection.drain();
  });

  it("rpc - hands the handler the request's data and tenant, and serves it in the log context of its headers", async () => {
    const echoed = await withLogContext({ correlationId: 'txn_rpc_1', eventId: 'evt_of_the_caller' }, () =>
      client.call(Echo, tenant, { text: 'hello' }, { requestId: 'req_rpc_1' }),
    );

    expect(echoed).toMatchObject({ text: 'hello', tenant, requestId: 'req_rpc_1' });
    // Only what the headers carry: nothing else of the caller's context, nor of the server's, leaks into it.
    expect(echoed.context).toEqual({ requestId: 'req_rpc_1', correlationId: 'txn_rpc_1', subject: Echo.subject });
    expect(allLogs()).toContainEqual(
      expect.objectContaining({ level: 'debug', msg: 'request served', outcome: 'ok', requestId: 'req_rpc_1', subject: Echo.subject }),
    );
  });

  it('rpc - passes the request id on to every request a handler makes while serving it', async () => {
    const echoed = await client.call(Relay, tenant, { text: 'second hop' }, { requestId: 'req_rpc_2' });

    expect(echoed).toMatchObject({ text: 'second hop', requestId: 'req_rpc_2', context: { requestId: 'req_rpc_2', subject: Echo.subject } });
  });

  it("rpc - measures both sides by the contract's subject (without the namespace) and the outcome", async () => {
    await client.call(Echo, tenant, { text: 'measured' });
    await failureOf(client.call(Fail, tenant, { how: 'typed' }));

    const servedBy = async (subject: string, outcome: string) =>
      (await Promise.all(replicas.map((replica) => countOf(replica.metrics, 'ramp_rpc_server_duration_seconds', { subject, outcome })))).reduce(
        (a, b) => a + b,
      );
    expect(await servedBy(Echo.subject, 'ok')).toBeGreaterThanOrEqual(1);
    expect(await servedBy(Fail.subject, 'INVALID_REQUEST')).toBeGreaterThanOrEqual(1);
    expect(await countOf(clientMetrics, 'ramp_rpc_client_duration_seconds', { subject: Echo.subject, outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(await countOf(clientMetrics, 'ramp_rpc_client_duration_seconds', { subject: Fail.subject, outcome: 'INVALID_REQUEST' })).toBeGreaterThanOrEqual(1);
  });

  it('rpc - a subject nobody serves is ServiceNotReached at once, not after the timeout', async () => {
    // A timeout longer than the test's own: only NATS's "no responders" can end this call in time.
    const patient = new RpcClient(new NatsRpcClient(connection, namespace), 10 * 60_000, clientMetrics);

    const error = await failureOf(patient.call(Absent, tenant, {}));

    expect(error).toBeInstanceOf(ServiceNotReached);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The absent service is not running; retry with exponential backoff.' });
    expect(
      await countOf(clientMetrics, 'ramp_rpc_client_duration_seconds', { subject: Absent.subject, outcome: 'SERVICE_UNAVAILABLE' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('rpc - a handler that failed before any effect (NothingRan) is ServiceNotReached for its caller; one that failed after is not', async () => {
    const nothingRan = await failureOf(client.call(Fail, tenant, { how: 'nothing-ran' }));
    expect(nothingRan).toBeInstanceOf(ServiceNotReached);
    expect(nothingRan).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The absent service is not running; retry with exponential backoff.' });

    const unknownOutcome = await failureOf(client.call(Fail, tenant, { how: 'after-effect' }));
    expect(unknownOutcome).not.toBeInstanceOf(ServiceNotReached);
    expect(unknownOutcome.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('rpc - a handler that does not answer in time is a plain SERVICE_UNAVAILABLE (the outcome is unknown), and answering late harms nothing', async () => {
    gate.reset();
    const error = await failureOf(client.call(Hang, tenant, {}, { timeoutMs: 300 }));

    expect(error).not.toBeInstanceOf(ServiceNotReached);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The echo service did not answer in time; retry with exponential backoff.' });
    await gate.entered;
    gate.open();
    expect(await client.call(Echo, tenant, { text: 'still here' })).toMatchObject({ text: 'still here' });
  });

  it('rpc - a typed AppError comes back as the same AppError: code, reason, message and field', async () => {
    const error = await failureOf(client.call(Fail, tenant, { how: 'typed' }));

    expect(error).not.toBeInstanceOf(ServiceNotReached);
    expect(error.toBody()).toEqual({ code: 'INVALID_REQUEST', reason: 'QUOTE_EXPIRED', message: 'quoteId: the quote expired', field: 'quoteId' });
  });

  it('rpc - any other error is logged and answered INTERNAL_ERROR without its message; an outage is SERVICE_UNAVAILABLE', async () => {
    const internal = await failureOf(client.call(Fail, tenant, { how: 'unknown' }, { requestId: 'req_rpc_bug' }));
    expect(internal.toBody()).toEqual({ code: 'INTERNAL_ERROR', reason: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' });
    const logged = allLogs().find((line) => line.level === 'error' && line.requestId === 'req_rpc_bug');
    expect(logged).toMatchObject({
      msg: 'RPC handler failed',
      subject: Fail.subject,
      err: expect.objectContaining({ message: 'the database password is hunter2' }),
    });

    const outage = await failureOf(client.call(Fail, tenant, { how: 'outage' }));
    expect(outage).not.toBeInstanceOf(ServiceNotReached);
    expect(outage.toBody()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      reason: 'SERVICE_UNAVAILABLE',
      message: 'The echo service is briefly unable to complete the request; retry with exponential backoff.',
    });
  });

  it('rpc - keeps the envelope on the wire: { tenant, data } in, { ok, data | error } out; a request that is not one is refused', async () => {
    const codec = JSONCodec<unknown>();
    const subject = `${namespace}.${Echo.subject}`;

    const reply = await connection.request(subject, codec.encode({ tenant, data: { text: 'raw' } }), { timeout: 5_000 });
    expect(codec.decode(reply.data)).toMatchObject({ ok: true, data: { text: 'raw', tenant } });

    for (const body of [new TextEncoder().encode('not json'), codec.encode({ data: { text: 'no tenant' } })]) {
      const refused = await connection.request(subject, body, { timeout: 5_000 });
      expect(codec.decode(refused.data)).toEqual({
        ok: false,
        error: { code: 'INTERNAL_ERROR', reason: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' },
      });
    }
  });

  it('rpc - a server under one namespace never answers a client under another', async () => {
    const otherNamespace = `${namespace}-other`;
    const stranger = new RpcClient(new NatsRpcClient(connection, otherNamespace), 10 * 60_000);
    expect(await failureOf(stranger.call(Echo, tenant, { text: 'anyone?' }))).toBeInstanceOf(ServiceNotReached);

    const other = await startReplica(otherNamespace, 'b');
    try {
      expect(await stranger.call(Echo, tenant, { text: 'b?' })).toMatchObject({ replica: 'b' });
      const replies = await Promise.all(Array.from({ length: 20 }, () => client.call(Echo, tenant, { text: 'a?' })));
      expect(replies.every((echoed) => echoed.replica !== 'b')).toBe(true);
    } finally {
      await stopReplica(other);
    }
  });

  it('rpc - replicas share the requests in a queue group: each request is served once', async () => {
    served.clear();
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => client.call(Echo, tenant, { text: `n${i}` })));

    expect(replies.map((echoed) => echoed.text)).toEqual(Array.from({ length: 40 }, (_, i) => `n${i}`));
    expect([...served.values()].reduce((a, b) => a + b)).toBe(40);
    // Both replicas take part (all 40 to one of two would happen about twice in a million runs).
    expect([...served.keys()].sort()).toEqual(['a1', 'a2']);
  });

  it('rpc - on close a server takes no new request and answers those in flight before it is closed', async () => {
    const lone = `${namespace}-lone`;
    const replica = await startReplica(lone, 'lone');
    const caller = new RpcClient(new NatsRpcClient(connection, lone), 30_000);
    gate.reset();
    const inFlight = caller.call(Hang, tenant, {});
    await gate.entered;

    let closed = false;
    const closing = replica.app.close().then(() => (closed = true));
    await replica.connection.flush();
    expect(await failureOf(caller.call(Echo, tenant, { text: 'too late' }))).toBeInstanceOf(ServiceNotReached);
    expect(closed).toBe(false);

    gate.open();
    expect(await inFlight).toEqual({ released: true });
    await closing;
    await replica.connection.drain();
  });
});
