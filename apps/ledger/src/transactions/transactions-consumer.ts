import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { transactionEventStreams } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, EventConsumer } from '@ramp/event-store';
import { Metrics } from '@ramp/observability';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import { ProjectionGap, projectTransactionEvents } from './transactions-projection';

/** The durable consumer of a stream: `ledger_transactions` on RAMP_EVENTS (its first name), suffixed on the others. */
export function transactionsConsumerName(stream: string): string {
  return stream.startsWith('RAMP_EVENTS') ? 'ledger_transactions' : `ledger_transactions_${stream.toLowerCase()}`;
}

/** Keeps the transactions read model up to date from the services' event streams, on every ledger replica. */
@Injectable()
export class TransactionsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumers: EventConsumer[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(Config) private readonly config: Config,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await ensureDeadLetterStream(jsm);
    // One durable consumer per service stream (ramp, swap-transfer), each shared by the ledger's replicas.
    for (const { stream, subjectPrefix } of transactionEventStreams(this.config.string('eventsNamespace'))) {
      // Created here too, so that the ledger may start before the services.
      await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
      const consumer = new EventConsumer({
        service: 'ledger',
        schema: 'ledger',
        name: transactionsConsumerName(stream),
        stream,
        filterSubject: `${subjectPrefix}.>`,
        pool: this.pool,
        js: this.nc.jetstream(),
        jsm,
        inbox: false,
        // A gap (the stream's previous event is with another replica, or with one that died and will be redelivered
        // after ackWaitMs) clears by itself: retried soon and for as long as it takes, never dead-lettered.
        isTransient: (error) => error instanceof ProjectionGap,
        backoffMs: [50, 100, 200, 500, 1000, 2000],
        ackWaitMs: 5000,
        logger: this.logger,
        metrics: this.metrics,
        handle: async (event, tx) => {
          await projectTransactionEvents(tx, [event]);
        },
      });
      await consumer.start();
      this.consumers.push(consumer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((consumer) => consumer.stop()));
  }
}
