import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { everyEventOf, rampEvents } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { IntegrationPublisher } from '@ramp/process-kit';

/** Publishes the integration event of each on-ramp and off-ramp that ends, from the service's own stream, once. */
@Controller()
export class IntegrationEventsController {
  constructor(@Inject(IntegrationPublisher) private readonly publisher: IntegrationPublisher) {}

  @JetStreamEventPattern(everyEventOf(rampEvents), { durable: 'ramp_integration' })
  async publish(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.publisher.publish(event, context.tx);
  }
}
