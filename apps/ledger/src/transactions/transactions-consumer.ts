import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { rampEvents } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, EventConsumer } from '@ramp/event-store';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import { ProjectionGap, projectTransactionEvents } from './transactions-projection';

export const TRANSACTIONS_CONSUMER = 'ledger_transactions';

/** Keeps the transactions read model up to date from the services' event streams, on every ledger replica. */
@Injectable()
export class TransactionsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer: EventConsumer | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(Config) private readonly config: Config,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    const { stream, subjectPrefix } = rampEvents(this.config.string('eventsNamespace'));
    // Created here too, so that the ledger may start before the ramp service.
    await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
    await ensureDeadLetterStream(jsm);
    this.consumer = new EventConsumer({
      service: 'ledger',
      schema: 'ledger',
      name: TRANSACTIONS_CONSUMER,
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
      handle: async (event, tx) => {
        await projectTransactionEvents(tx, [event]);
      },
    });
    await this.consumer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }
}
