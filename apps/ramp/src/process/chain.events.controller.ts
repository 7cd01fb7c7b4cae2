import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, type DepositCredited, type DepositReversed, type SendFinished } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { ChainSendWakes } from '@ramp/process-kit';
import { OfframpService } from '../offramp/offramp.service';

/**
 * The chain service's events for the ramp: deposits confirmed at non-custodial off-ramps' addresses move them on (or
 * go back to their senders); one a reorganisation removed fails the off-ramp it funded, or flags it; a send of an
 * on-ramp's or off-ramp's leg that became final wakes its job (ChainSendWakes). The inbox makes each event count once;
 * the off-ramp's decider ignores a deposit it already has, and a second wake finds nothing pending.
 */
@Controller()
export class RampChainEventsController {
  constructor(
    @Inject(OfframpService) private readonly offramps: OfframpService,
    @Inject(ChainSendWakes) private readonly wakes: ChainSendWakes,
  ) {}

  // One event at a time: a deposit's handling commits on a connection of its own (OfframpService.apply), and a batch's
  // open transaction (a wake's lock on a job) could wait on it while it waits on the job's worker. The hot wallet's
  // opening balance is not the ramp's.
  @JetStreamEventPattern(everyEventOf(chainEvents), {
    durable: 'ramp_chain_deposits',
    types: [CHAIN_EVENT_TYPES.depositCredited, CHAIN_EVENT_TYPES.depositReversed, CHAIN_EVENT_TYPES.sendFinished],
  })
  async onChainEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    if (event.type === CHAIN_EVENT_TYPES.depositCredited)
      await this.offramps.recordChainDeposit(event.data as DepositCredited, event.metadata.tenant, event.eventId);
    else if (event.type === CHAIN_EVENT_TYPES.depositReversed)
      await this.offramps.recordChainReversal(event.data as DepositReversed, event.metadata.tenant, event.eventId);
    else if (event.type === CHAIN_EVENT_TYPES.sendFinished) await this.wakes.onSendFinished(context.tx, event.data as SendFinished);
  }
}
