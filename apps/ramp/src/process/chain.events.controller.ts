import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, type DepositCredited, type DepositReversed, type SendFinished } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { ChainSendWakes, sendWakesConsumer } from '@ramp/process-kit';
import { OfframpService } from '../offramp/offramp.service';

/**
 * The chain service's events for the ramp, in two consumers. Deposits confirmed at non-custodial off-ramps' addresses
 * move them on (or go back to their senders); one a reorganisation removed fails the off-ramp it funded, or flags it:
 * one event at a time, with the inbox, since each is recorded by a command on a connection of its own (a batch's open
 * transaction could wait on it while it waits on a job's worker). A send of an on-ramp's or off-ramp's leg that became
 * final wakes its job (ChainSendWakes): idempotent by itself (a second wake finds nothing pending), so no inbox, and
 * the wakes of a burst in one transaction.
 */
@Controller()
export class RampChainEventsController {
  constructor(
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(ChainSendWakes) private readonly wakes: ChainSendWakes,
  ) {}

  @JetStreamEventPattern(everyEventOf(chainEvents), {
    durable: 'ramp_chain_deposits',
    types: [CHAIN_EVENT_TYPES.depositCredited, CHAIN_EVENT_TYPES.depositReversed],
  })
  async onDeposit(@Payload() event: StoredEvent): Promise<void> {
    if (event.type === CHAIN_EVENT_TYPES.depositCredited)
      await this.offramps.recordChainDeposit(event.data as DepositCredited, event.metadata.tenant, event.eventId);
    else if (event.type === CHAIN_EVENT_TYPES.depositReversed)
      await this.offramps.recordChainReversal(event.data as DepositReversed, event.metadata.tenant, event.eventId);
  }

  /** Until this consumer's first deployment the deposits' consumer woke the jobs. */
  @JetStreamEventPattern(everyEventOf(chainEvents), sendWakesConsumer('ramp_chain_sends'))
  async onSendFinished(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.wakes.onSendFinished(context.tx, event.data as SendFinished);
  }
}
