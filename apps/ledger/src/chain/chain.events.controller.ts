import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import {
  CHAIN_EVENT_TYPES,
  chainEvents,
  everyEventOf,
  type DepositCredited,
  type DepositReversed,
  type SendFinished,
  type TreasuryOpened,
} from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { ChainBooks } from './chain-books';

/**
 * The chain service's events, booked: deposits confirmed at their chain's depth (a wallet's is credited to it), their
 * reversals by reorganisations, and the gas and transfers of its final sends. Each once: the ledger has no inbox, and needs none, since the deposit's or the
 * send's id is the key of its journal entry (and of a wallet deposit's chain_deposits row), so a redelivery changes
 * nothing.
 */
@Controller()
export class ChainEventsController {
  constructor(@Inject(ChainBooks) private readonly books: ChainBooks) {}

  // One event per transaction: a journal entry takes its balances' locks in a fixed order, which several entries in one
  // transaction would not keep (a deadlock with a wallet request).
  @JetStreamEventPattern(everyEventOf(chainEvents), { durable: 'ledger_chain_books', inbox: false })
  async onChainEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    if (event.type === CHAIN_EVENT_TYPES.depositCredited) await this.books.bookDeposit(context.tx, event.data as DepositCredited);
    else if (event.type === CHAIN_EVENT_TYPES.depositReversed) await this.books.bookReversal(context.tx, event.data as DepositReversed);
    else if (event.type === CHAIN_EVENT_TYPES.sendFinished) await this.books.bookSend(context.tx, event.data as SendFinished);
    else if (event.type === CHAIN_EVENT_TYPES.treasuryOpened) await this.books.bookOpening(context.tx, event.data as TreasuryOpened);
  }
}
