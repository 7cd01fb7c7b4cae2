import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Config } from '@ramp/config';
import { WakeupListener, Waker } from '@ramp/database';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { DELIVERIES_CHANNEL, DeliveryStore } from './delivery-store';
import { DeliveryWorker } from './delivery-worker';
import { HttpsSender } from './https-sender';

/**
 * For the notifier's lifetime, on every replica: the LISTEN that wakes the worker, and the worker that sends the
 * deliveries that DeliveriesEventsController records.
 */
@Injectable()
export class DeliveryHost implements OnApplicationBootstrap, OnApplicationShutdown {
  private listener: WakeupListener | undefined;

  constructor(
    @Inject(DeliveryWorker) private readonly worker: DeliveryWorker,
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(HttpsSender) private readonly sender: HttpsSender,
    @Inject(Waker) private readonly waker: Waker,
    @Inject(Config) private readonly config: Config,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.listener = new WakeupListener({
      databaseUrl: this.config.string('databaseUrl'),
      applicationName: 'notifier-deliveries',
      channel: DELIVERIES_CHANNEL,
      waker: this.waker,
      logger: this.logger,
    });
    await this.listener.start();
    this.worker.start();
  }

  /**
   * Lets the attempts in flight finish (the JetStream transport has stopped taking events before); leases of anything
   * unfinished expire and are resent.
   */
  async onApplicationShutdown(): Promise<void> {
    await this.worker.stop();
    await this.listener?.stop();
    this.sender.close();
  }
}
