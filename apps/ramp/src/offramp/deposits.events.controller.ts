import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, type DepositCredited, type DepositReversed } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern } from '@ramp/messaging';
import { OfframpService } from './offramp.service';

/**
 * Deposits the chain service confirmed at non-custodial off-ramps' addresses move them on (or go back to their
 * senders); one a reorganisation removed fails the off-ramp it funded, or flags it. The inbox makes each event count once; the off-ramp's decider ignores a deposit it already has.
 */
@Controller()
export class OfframpDepositsEventsController {
  constructor(@Inject(OfframpService) private readonly offramps: OfframpService) {}

  @JetStreamEventPattern(everyEventOf(chainEvents), { durable: 'ramp_chain_deposits' })
  async onChainEvent(@Payload() event: StoredEvent): Promise<void> {
    if (event.type === CHAIN_EVENT_TYPES.depositCredited) await this.offramps.recordChainDeposit(event.data as DepositCredited, event.metadata.tenant, event.eventId);
    else if (event.type === CHAIN_EVENT_TYPES.depositReversed) await this.offramps.recordChainReversal(event.data as DepositReversed, event.metadata.tenant, event.eventId);
  }
}
