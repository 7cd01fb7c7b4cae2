import type { TransactionView } from '@ramp/contracts';

// The Transaction's wire types are the contracts' (libs/contracts/src/transactions/transaction-view.ts).
export type { RampHashView, RouteStepView, TransactionView, VirtualAccount } from '@ramp/contracts';

/** What an initiation answers: the pending transaction, its id also as `transactionId` like the spec's off-ramp initiation. */
export function initiationOf(view: TransactionView): TransactionView & { transactionId: string } {
  return { transactionId: view.id, ...view };
}
