import { AsyncLocalStorage } from 'async_hooks';
import type { SendFinished } from '@ramp/contracts';

/**
 * What a leg's send made final told of it (`send.finished`): what the chain service would answer the leg's step when
 * it asks again, for a confirmed swap or transfer. A failure is never kept: its step asks, since the answer says more
 * (a swap's `wouldGive`).
 */
export interface FinishedLeg {
  kind: 'swap' | 'transfer';
  /** Where it was sent: a leg of another chain or environment under the same key is never answered from it. */
  environment: string;
  chain: string;
  transactionHash: string;
  /** A transfer's amount (a netted one's share): answered only for a leg of that amount. */
  amount?: string;
  /** A swap's output. */
  amountOut?: string;
  /** A send of a managed wallet's own account: its UserOperation. */
  userOperationHash?: string;
}

/** The legs a job was woken for, by `<kind>:<leg key>` (ChainLegs' own key, without the chain service's `swap:`). */
export type FinishedLegs = Record<string, FinishedLeg>;

/** The chain service's send keys: `swap:<leg key>`, `transfer:<leg key>`, `operation:<leg key>` (a wallet account's). */
const SEND_KEY = /^(?:swap|transfer|operation):(.+)$/;

/**
 * The legs a `send.finished` makes final, by leg key: a confirmed swap's output, a confirmed transfer's hash (each
 * settlement a netted transfer carried, under the netted send's hash). Nothing for a failed send, a bridge's, or one of
 * the platform's own (sweeps, top-ups).
 */
export function finishedLegsOf(send: Pick<SendFinished, 'idempotencyKey'> & Partial<SendFinished>): FinishedLegs {
  if (send.status !== 'confirmed' || send.transactionHash === undefined) return {};
  // A netted transfer's own key (`net:…`) is no leg's: its settlements are.
  const key = SEND_KEY.exec(send.idempotencyKey)?.[1];
  const base = {
    environment: send.environment ?? '',
    chain: send.chain ?? '',
    transactionHash: send.transactionHash,
    ...(send.account?.userOperationHash && { userOperationHash: send.account.userOperationHash }),
  };
  const legs: FinishedLegs = {};
  if (send.swap) {
    if (key !== undefined) legs[`swap:${key}`] = { kind: 'swap', ...base, amountOut: send.swap.amountOut };
  } else if (send.transfer) {
    if (key !== undefined) legs[`transfer:${key}`] = { kind: 'transfer', ...base, amount: send.transfer.amount };
    const { userOperationHash: _none, ...netted } = base;
    for (const share of send.transfer.shares ?? []) legs[`transfer:${share.idempotencyKey}`] = { kind: 'transfer', ...netted, amount: share.amount };
  }
  return legs;
}

const running = new AsyncLocalStorage<FinishedLegs>();

/** Runs a job's step knowing the legs it was woken for (JobWorker), so that ChainLegs answers them without asking. */
export function withFinishedLegs<T>(legs: FinishedLegs | undefined, step: () => Promise<T>): Promise<T> {
  return legs && Object.keys(legs).length > 0 ? running.run(legs, step) : step();
}

/**
 * The leg of this kind and key, on this chain and environment, that woke the running step, or undefined (ChainLegs then
 * asks the chain service, which also checks the leg's terms).
 */
export function finishedLeg(kind: FinishedLeg['kind'], key: string, where: { environment: string; chain: string }): FinishedLeg | undefined {
  const leg = running.getStore()?.[`${kind}:${key}`];
  return leg && leg.environment === where.environment && leg.chain === where.chain ? leg : undefined;
}

/** The legs that belong to one transaction (their keys name it): what a wake keeps on that transaction's job. */
export function legsOfTransaction(legs: FinishedLegs, transactionId: string): FinishedLegs {
  return Object.fromEntries(Object.entries(legs).filter(([key]) => key.includes(transactionId)));
}
