import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { Config } from '@ramp/config';
import { ensureDeadLetterStream, ensureStream, Relay } from '@ramp/event-store';
import { LOGGER, NATS_CONNECTION, type Logger } from '@ramp/service-kit';
import { RAMP_LOG } from './log';

/** The JetStream stream of the ramp's events: `events.ramp.<event type>`, e.g. `events.ramp.offramp.completed`. */
export const RAMP_STREAM = 'RAMP_EVENTS';

/** Runs the relay of the ramp's log (one leader among the replicas) for the service's lifetime. */
@Injectable()
export class RelayHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private relay: Relay | undefined;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const jsm = await this.nc.jetstreamManager();
    await ensureStream(jsm, RAMP_STREAM, ['events.ramp.>']);
    await ensureDeadLetterStream(jsm);
    this.relay = new Relay({
      connection: { connectionString: this.config.string('databaseUrl') },
      log: RAMP_LOG,
      js: this.nc.jetstream(),
      subjectOf: (event) => `events.ramp.${event.type}`,
      pollMs: 1000,
      logger: this.logger,
    });
    this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }
}
