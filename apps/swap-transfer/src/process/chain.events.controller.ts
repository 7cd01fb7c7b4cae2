import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, type SendFinished } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { ChainSendWakes } from '@ramp/process-kit';

/**
 * A send of a swap's or a transfer's leg that became final (a swap, a bridge's deposit, fill or refund) wakes the
 * transaction's job, released while the send was on its way (ChainSendWakes). A wake is idempotent by itself (a second
 * one finds nothing pending): no inbox, and the events of a burst are handled in batches. Created on its first
 * deployment from the events appended after it: the chain's earlier history wakes nothing.
 */
@Controller()
export class SwapTransferChainEventsController {
  constructor(@Inject(ChainSendWakes) private readonly wakes: ChainSendWakes) {}

  @JetStreamEventPattern(everyEventOf(chainEvents), {
    durable: 'swap_transfer_chain_sends',
    inbox: false,
    batchSize: 50,
    startAt: 'new',
    types: [CHAIN_EVENT_TYPES.sendFinished],
  })
  async onChainEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    if (event.type === CHAIN_EVENT_TYPES.sendFinished) await this.wakes.onSendFinished(context.tx, event.data as SendFinished);
  }
}
