import { CHAIN_EVENT_TYPES, type SendFinished } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import type { JetStreamHandlerOptions } from '@ramp/messaging';
import { finishedLegsOf, legsOfTransaction } from './finished-legs';
import type { JobQueue } from './jobs';

/** A transaction's id inside a send's idempotency key (`transfer:txn_…:settle`, `bridge:txn_…:leg:0:fill`). */
const TRANSACTION_IN_KEY = /(?:^|:)(txn_[0-9A-HJKMNP-TV-Z]{26})(?::|$)/;

/** The transaction a send of the chain service works for, read from its idempotency key; undefined for the platform's own (sweeps, top-ups). */
export function transactionOfSendKey(idempotencyKey: string): string | undefined {
  return TRANSACTION_IN_KEY.exec(idempotencyKey)?.[1];
}

/**
 * Wakes the job of a transaction whose leg on chain was released pending (ChainLegs: StepPending) when the chain
 * service's `send.finished` event says one of its sends is final, so that the step reads the outcome at once instead of
 * at its fallback look. `prefixes`: the service's stream prefixes (`onramp`, `offramp`), a transaction's stream being
 * `<prefix>-<transaction id>`.
 */
export class ChainSendWakes {
  constructor(
    private readonly jobs: JobQueue,
    private readonly prefixes: readonly string[],
  ) {}

  /**
   * Returns how many jobs were woken (none for a send of no transaction, or one of another service's). A netted
   * transfer wakes the transaction of each settlement it carries. What the event tells of the legs it made final is
   * kept for the woken step (finishedLegsOf, Job.finishedLegs), which then need not ask the chain service.
   */
  async onSendFinished(db: Sql, send: Pick<SendFinished, 'idempotencyKey'> & Partial<SendFinished>): Promise<number> {
    const keys = [send.idempotencyKey, ...(send.transfer?.shares ?? []).map((share) => share.idempotencyKey)];
    const transactions = [...new Set(keys.flatMap((key) => transactionOfSendKey(key) ?? []))];
    if (transactions.length === 0) return 0;
    const legs = finishedLegsOf(send);
    const streamsOf = (transactionId: string) => this.prefixes.map((prefix) => `${prefix}-${transactionId}`);
    // One statement for a send of one transaction; a netted one keeps on each transaction's job only its own share.
    if (transactions.length === 1 || Object.keys(legs).length === 0) return this.jobs.wake(db, transactions.flatMap(streamsOf), legs);
    let woken = 0;
    for (const transactionId of transactions) woken += await this.jobs.wake(db, streamsOf(transactionId), legsOfTransaction(legs, transactionId));
    return woken;
  }
}

/**
 * The consumer of a service's wakes (ChainSendWakes.onSendFinished in the consumer's transaction): final sends only; no
 * inbox, since a wake is idempotent by itself (a second finds nothing pending); a burst's wakes in one transaction.
 * Created on its first deployment from the events appended after it: the chain's earlier history wakes nothing, and
 * a wake missed meanwhile is the job's look a few seconds later (ChainLegs).
 */
export function sendWakesConsumer(durable: string): JetStreamHandlerOptions {
  return { durable, inbox: false, batchSize: 50, startAt: 'new', types: [CHAIN_EVENT_TYPES.sendFinished] };
}
