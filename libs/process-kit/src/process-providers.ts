import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import type { EventStreamName } from '@ramp/contracts';
import type { EventConsumer, EventLog, Relay } from '@ramp/event-store';
import { Metrics } from '@ramp/observability';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import type { AnyTransactionKind } from '@ramp/transactions';
import { AllowedHosts } from '@ramp/webhooks';
import { JobWorker } from './job-worker';
import { JobQueue, type Job } from './jobs';
import { startIntegrationPublisher, startLogRelay } from './service-events';

/** What a service that runs event-sourced transactions tells the shared process machinery. */
export interface ProcessSpec {
  /** The service's name (`ramp`): its job listener's application name and the integration publisher's service. */
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
 * For the service's lifetime, on every replica: the relay of its log to JetStream (one leader among the replicas), the
 * publisher of its integration events, and the worker loop over its jobs.
 */
@Injectable()
export class ProcessHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: Relay | undefined;
  private publisher: EventConsumer | undefined;
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
  ) {
    this.worker = new JobWorker({
      jobs,
      databaseUrl: config.string('databaseUrl'),
      applicationName: `${spec.service}-jobs`,
      leaseMs: config.int('jobLeaseMs', 1000),
      concurrency: 4,
      logger,
      run,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const namespace = this.config.string('eventsNamespace');
    const events = this.spec.events(namespace);
    const shared = { nc: this.nc, pool: this.pool, log: this.spec.log, events, logger: this.logger, metrics: this.metrics };
    this.relay = await startLogRelay({ ...shared, databaseUrl: this.config.string('databaseUrl') });
    this.publisher = await startIntegrationPublisher({ ...shared, service: this.spec.service, namespace, kinds: this.spec.kinds });
    await this.worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.publisher?.stop();
    await this.relay?.stop();
  }
}

/** The providers of the process machinery; the module adds a JOB_RUNNER provider of its own. */
export function processProviders(spec: ProcessSpec): Provider[] {
  return [
    { provide: PROCESS_SPEC, useValue: spec },
    { provide: JobQueue, inject: [PG_POOL], useFactory: (pool: Pool) => new JobQueue(pool, spec.log.schema) },
    // Hosts that per-transaction callback URLs may name although private (WEBHOOK_ALLOW_HOSTS), for parseCallbackUrl.
    { provide: AllowedHosts, inject: [Config], useFactory: (config: Config) => new AllowedHosts(config.list('webhookAllowHosts')) },
    ProcessHost,
  ];
}
