import { AppError, HoldPlace, HoldSettle, HTTP_STATUS_OF, WalletCredit, type FailureReason, type Tenant } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import type { HoldTerms } from '@ramp/transactions';

/**
 * The ledger's side of every transaction's steps, one way for all of them (on-ramps, off-ramps, swaps, transfers):
 * hold a paying wallet's funds, release them (also a hold that was never placed), capture them, credit a wallet. Each
 * is idempotent by transaction id in the ledger, so a step run twice after a crash has one effect. They answer the
 * commands that record their outcome, which every decider takes in the same form.
 */

const now = (): string => new Date().toISOString();

/** The command that records a placed hold. */
export type FundsHeld = { type: 'recordFundsHeld'; at: string };
/** The command that fails a transaction (while it is pending: the failure starts, and what was taken is given back). */
export type Fail = { type: 'fail'; reason: string; failureReason: FailureReason; at: string };
/** The command that records a released hold. */
export type FundsReleased = { type: 'recordFundsReleased'; at: string };
/** The command that completes a transaction. */
export type Complete = { type: 'complete'; at: string };

/** What a capture moves besides the hold itself (see HoldSettle). */
export type Capture = Pick<HoldSettle.Request, 'destination' | 'fee' | 'credit'> & { destination: string };

/** A decision of another service (4xx), as opposed to a fault worth retrying. */
export function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && HTTP_STATUS_OF[error.code] < 500;
}

/** A refusal's message without its leading `field: `, to quote it inside another message. */
const withoutField = (message: string): string => message.replace(/^[A-Za-z.]+: /, '');

/** How a transaction fails when the ledger refused its hold (most often: the balance no longer covers it). */
export function holdRefused(error: AppError): { reason: string; failureReason: FailureReason } {
  return {
    reason: `The wallet could not be debited: ${withoutField(error.message)}`,
    failureReason: error.reason === 'INSUFFICIENT_BALANCE' ? 'INSUFFICIENT_BALANCE' : 'TRANSACTION_FAILED',
  };
}

/** The `fail` step of a transaction that is failing: ends it with the reason its failure started with. */
export function failingEnds(state: { failing?: string; failureReason?: FailureReason }): Fail {
  return { type: 'fail', reason: state.failing ?? 'failed', failureReason: state.failureReason ?? 'TRANSACTION_FAILED', at: now() };
}

/** The ledger steps of a service's transactions, over its request/reply client. */
export class LedgerSteps {
  constructor(private readonly rpc: Pick<RpcClient, 'call'>) {}

  /**
   * Holds the wallet's funds for the transaction `holdId`. A refusal (the balance no longer covers it, most often)
   * fails the transaction; so does a hold found settled already: a failure released it (or recorded it as never
   * placed) while this placement was in flight, so it took nothing. A fault (the ledger down) is thrown: retried.
   */
  async placeHold(tenant: Tenant, holdId: string, terms: HoldTerms): Promise<FundsHeld | Fail> {
    try {
      const hold = await this.rpc.call(HoldPlace.contract, tenant, { holdId, ...terms });
      if (hold.status !== 'held')
        return { type: 'fail', reason: `The wallet could not be debited: the hold is already ${hold.status}`, failureReason: 'TRANSACTION_FAILED', at: now() };
      return { type: 'recordFundsHeld', at: now() };
    } catch (error) {
      if (!isRefusal(error)) throw error;
      return { type: 'fail', ...holdRefused(error), at: now() };
    }
  }

  /**
   * Gives the wallet its held funds back. A hold that was never placed (its placement refused, or still in flight) is
   * recorded as released with the same terms, so that a placement arriving later finds it settled and takes nothing.
   */
  async releaseHold(tenant: Tenant, holdId: string, terms: HoldTerms): Promise<FundsReleased> {
    await this.rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'release', ifMissing: terms });
    return { type: 'recordFundsReleased', at: now() };
  }

  /** Captures the hold: the funds leave for `destination` (less a fee kept as revenue, plus a credit of what they bought). */
  async captureHold(tenant: Tenant, holdId: string, capture: Capture): Promise<Complete> {
    await this.rpc.call(HoldSettle.contract, tenant, { holdId, outcome: 'capture', ...capture });
    return { type: 'complete', at: now() };
  }

  /** Credits a managed wallet from an external account, once per entry id (an on-ramp's delivery). */
  async credit(tenant: Tenant, credit: WalletCredit.Request): Promise<void> {
    await this.rpc.call(WalletCredit.contract, tenant, credit);
  }
}
