import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { everyEventOf, rampEvents, swapTransferEvents } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext, type JetStreamHandlerOptions } from '@ramp/messaging';
import { DepositBooks } from '../chain/deposit-books';
import { ProjectionGap, projectTransactionEvents } from './transactions-projection';

/** The read model is idempotent by stream version, so its consumers need no inbox (and a rebuild replays the streams). */
const PROJECTION: Omit<JetStreamHandlerOptions, 'durable'> = {
  inbox: false,
  // A gap (the stream's previous event is with another replica, or with one that died and will be redelivered after
  // ackWaitMs) clears by itself: retried soon and for as long as it takes, never dead-lettered.
  isTransient: (error) => error instanceof ProjectionGap,
  backoffMs: [50, 100, 200, 500, 1000, 2000],
  ackWaitMs: 5000,
  // The cost of an event is its commit: the events waiting together are projected in one transaction (a gap in the
  // batch has it projected again event by event, the gap's event retried alone).
  batchSize: 50,
};

/**
 * Keeps the transactions read model up to date from the services' event streams, on every ledger replica: one durable
 * consumer per stream, each shared by the replicas.
 */
@Controller()
export class TransactionsEventsController {
  constructor(@Inject(DepositBooks) private readonly deposits: DepositBooks) {}

  /**
   * Also books what an off-ramp says of its deposit (DepositBooks.bookOfframpEvent: spent once paid out, or what its
   * reversal cost), in the same transaction.
   */
  @JetStreamEventPattern(everyEventOf(rampEvents), { durable: 'ledger_transactions', ...PROJECTION })
  async projectRamp(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.deposits.bookOfframpEvent(context.tx, event);
    await projectTransactionEvents(context.tx, [event]);
  }

  @JetStreamEventPattern(everyEventOf(swapTransferEvents), { durable: 'ledger_transactions_swap_transfer_events', ...PROJECTION })
  async projectSwapTransfer(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await projectTransactionEvents(context.tx, [event]);
  }
}
