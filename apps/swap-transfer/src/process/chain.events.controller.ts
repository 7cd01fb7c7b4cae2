import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { chainEvents, everyEventOf, type SendFinished } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { ChainSendWakes, sendWakesConsumer } from '@ramp/process-kit';

/**
 * A send of a swap's or a transfer's leg that became final (a swap, a bridge's deposit, fill or refund) wakes the
 * transaction's job, released while the send was on its way (ChainSendWakes, sendWakesConsumer).
 */
@Controller()
export class SwapTransferChainEventsController {
  constructor(@Inject(ChainSendWakes) private readonly wakes: ChainSendWakes) {}

  @JetStreamEventPattern(everyEventOf(chainEvents), sendWakesConsumer('swap_transfer_chain_sends'))
  async onChainEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.wakes.onSendFinished(context.tx, event.data as SendFinished);
  }
}
