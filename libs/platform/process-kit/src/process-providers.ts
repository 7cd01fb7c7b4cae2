import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import type { EventStreamName } from '@ramp/contracts';
import type { EventLog, Relay } from '@ramp/event-store';
import { RpcClient } from '@ramp/messaging';
import { Metrics } from '@ramp/observability';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import type { AnyTransactionKind } from '@ramp/transactions';
import { AllowedHosts } from '@ramp/webhooks';
import { ChainLegs } from './chain-legs';
import { JobWorker } from './job-worker';
import { ProcessFactory } from './process-factory';
import { ChainSendWakes } from './chain-wakes';
import { JobQueue, type Job } from './jobs';
import { LedgerSteps } from './ledger-steps';
import { QuoteInitiation } from './quote-initiation';
import { IntegrationPublisher, startLogRelay } from './service-events';

/** What a service that runs event-sourced transactions tells the shared process machinery. */
export interface ProcessSpec {
  /** The service's name (`ramp`): its job listener's application name. */
  service: string;
  log: EventLog;
  events(namespace: string): EventStreamName;
  /** The transaction kinds of the log, for the integration events. */
  kinds: readonly AnyTransactionKind[];
}

export const PROCESS_SPEC = Symbol('PROCESS_SPEC');
/** Runs one claimed job: the service's own dispatch to the use case that owns the job's stream. */
export const JOB_RUNNER = Symbol('JOB_RUNNER');
export type JobRunner = (job: Job) => Promise<void>;

/**
 * For the service's lifetime, on every replica: the relay of its log to JetStream (one leader among the replicas) and
 * the worker loop over its jobs. The relay publishes the integration event of each transaction that ends with the batch
 * that holds its terminal event (IntegrationPublisher).
 */
@Injectable()
export class ProcessHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: Relay | undefined;
  private readonly worker: JobWorker;

  constructor(
    @Inject(PROCESS_SPEC) private readonly spec: ProcessSpec,
    @Inject(JOB_RUNNER) run: JobRunner,
    @Inject(JobQueue) jobs: JobQueue,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(Metrics) private readonly metrics: Metrics,
    @Inject(IntegrationPublisher) private readonly integration: IntegrationPublisher,
  ) {
    this.worker = new JobWorker({
      jobs,
      databaseUrl: config.string('databaseUrl'),
      applicationName: `${spec.service}-jobs`,
      leaseMs: config.int('jobLeaseMs', 1000),
      concurrency: config.int('jobConcurrency', 1, 1000),
      logger,
      run,
      observe: (step, outcome, seconds) => metrics.jobStepSeconds.observe({ step, outcome }, seconds),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const events = this.spec.events(this.config.string('eventsNamespace'));
    const shared = {
      nc: this.nc,
      pool: this.pool,
      log: this.spec.log,
      events,
      logger: this.logger,
      metrics: this.metrics,
      replicas: this.config.int('streamReplicas', 1, 5),
    };
    this.relay = await startLogRelay({ ...shared, databaseUrl: this.config.string('databaseUrl'), integration: this.integration });
    await this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.relay?.stop();
  }
}

/**
 * The providers of the process machinery, and the initiation from a quote and the ledger steps every transaction
 * shares; the module adds a JOB_RUNNER provider of its own, the RpcClient and the JetStream transport (jetStreamTransport).
 */
export function processProviders(spec: ProcessSpec): Provider[] {
  return [
    { provide: PROCESS_SPEC, useValue: spec },
    { provide: JobQueue, inject: [PG_POOL], useFactory: (pool: Pool) => new JobQueue(pool, spec.log.schema, spec.log) },
    // A transaction's stream is `<kind>-<transaction id>` (StreamProcess): the jobs a final send of its legs wakes.
    {
      provide: ChainSendWakes,
      inject: [JobQueue],
      useFactory: (jobs: JobQueue) =>
        new ChainSendWakes(
          jobs,
          spec.kinds.map((kind) => kind.type),
        ),
    },
    // Hosts that per-transaction callback URLs may name although private (WEBHOOK_ALLOW_HOSTS), for parseCallbackUrl.
    {
      provide: AllowedHosts,
      inject: [Config],
      useFactory: (config: Config) => new AllowedHosts(config.list('webhookAllowHosts'), { localTesting: !config.isProduction }),
    },
    { provide: LedgerSteps, inject: [RpcClient], useFactory: (rpc: RpcClient) => new LedgerSteps(rpc) },
    // Each kind of transaction's StreamProcess, and the legs its steps hand to the chain service.
    {
      provide: ProcessFactory,
      inject: [PG_POOL, JobQueue],
      useFactory: (pool: Pool, jobs: JobQueue) => new ProcessFactory(pool, spec.log, jobs, spec.service),
    },
    { provide: ChainLegs, inject: [RpcClient], useFactory: (rpc: RpcClient) => new ChainLegs(rpc, spec.service) },
    {
      provide: QuoteInitiation,
      inject: [RpcClient, LedgerSteps, AllowedHosts, LOGGER],
      useFactory: (rpc: RpcClient, ledger: LedgerSteps, hosts: AllowedHosts, logger: Logger) => new QuoteInitiation(rpc, ledger, hosts, logger),
    },
    {
      provide: IntegrationPublisher,
      inject: [NATS_CONNECTION, Config, LOGGER, Metrics],
      useFactory: async (nc: NatsConnection, config: Config, logger: Logger, metrics: Metrics) => {
        const publisher = new IntegrationPublisher({
          nc,
          log: spec.log,
          namespace: config.string('eventsNamespace'),
          kinds: spec.kinds,
          logger,
          replicas: config.int('streamReplicas', 1, 5),
          metrics,
        });
        await publisher.ensureTarget();
        return publisher;
      },
    },
    ProcessHost,
  ];
}
