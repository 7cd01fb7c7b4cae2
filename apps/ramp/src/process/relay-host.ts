import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Config } from '@ramp/config';
import { rampEvents } from '@ramp/contracts';
import { ensureDeadLetterStream, ensureStream, Relay } from '@ramp/event-store';
import { LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import type { Pool } from 'pg';
import { RAMP_LOG } from './log';


/** Runs the relay of the ramp's log (one leader among the replicas) for the service's lifetime. */
@Injectable()
export class RelayHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: Relay | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    // `events.ramp.<event type>`, e.g. `events.ramp.offramp.completed`, in the RAMP_EVENTS stream.
    const { stream, subjectPrefix } = rampEvents(this.config.string('eventsNamespace'));
    await ensureStream(jsm, stream, [`${subjectPrefix}.>`]);
    // PostgreSQL is the record of truth: a stream that is empty (new, or lost) gets the whole log again. Event ids
    // are the message ids, so what the stream still holds within its duplicate window is not duplicated.
    if ((await jsm.streams.info(stream)).state.messages === 0) {
      await this.pool.query(`update ramp.relay_checkpoint set transaction_id = '0', global_position = 0, updated_at = now() where id = 1`);
    }
    await ensureDeadLetterStream(jsm);
    this.relay = new Relay({
      connection: { connectionString: this.config.string('databaseUrl') },
      log: RAMP_LOG,
      js: this.nc.jetstream(),
      subjectOf: (event) => `${subjectPrefix}.${event.type}`,
      pollMs: 1000,
      logger: this.logger,
    });
    this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }
}
