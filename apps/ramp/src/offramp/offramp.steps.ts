import { failingEnds, type LedgerSteps, type StepContext } from '@ramp/process-kit';
import type { OfframpRails } from '@ramp/providers';
import type { OfframpCommand, OfframpState, OfframpStep } from '@ramp/ramping';
import type { HoldTerms } from '@ramp/transactions';

/** Where the off-ramp provider's capture goes in the ledger. */
const OFFRAMP_PROVIDER = 'offramp-provider';

/** What a custodial off-ramp holds in its wallet: the quoted amount of the token. */
export function offrampHold(state: OfframpState): HoldTerms {
  const { walletId, quote } = state.initiated!;
  return { walletId: walletId!, tokenSymbol: quote.tokenSymbol, amount: quote.cryptoAmount };
}

/**
 * Each step of an off-ramp (see nextOfframpStep): the ledger's hold, release and capture (LedgerSteps, as for every
 * transaction), and the off-ramp rails' swap, payout and refund. Each answers the command that records its outcome.
 */
export class OfframpSteps {
  constructor(
    private readonly rails: OfframpRails,
    private readonly ledger: Pick<LedgerSteps, 'placeHold' | 'releaseHold' | 'captureHold'>,
    private readonly stepDelayMs: number,
  ) {}

  async perform({ transactionId, state, step, tenant }: StepContext<OfframpState, OfframpStep>): Promise<OfframpCommand> {
    const at = () => new Date().toISOString();
    const quote = state.initiated!.quote;
    switch (step.kind) {
      case 'placeHold':
        return this.ledger.placeHold(tenant, transactionId, offrampHold(state));
      case 'awaitDeposit':
        return { type: 'expireDeposit', at: at() };
      case 'swapToCngn': {
        const swap = await this.rails.swapToCngn({ transactionId, tokenSymbol: quote.tokenSymbol, amount: quote.cryptoAmount, expectedCngn: quote.fiatAmount });
        return swap.ok
          ? { type: 'recordSwap', ok: true, cngnAmount: swap.cngnAmount, transactionHash: swap.transactionHash, at: at() }
          : { type: 'recordSwap', ok: false, reason: swap.reason, at: at() };
      }
      case 'payout': {
        const payout = await this.rails.payout({ transactionId, bankCode: quote.bankAccount.bankCode, accountNumber: quote.bankAccount.accountNumber, amount: quote.payoutAmount });
        return payout.ok
          ? { type: 'recordPayout', ok: true, transactionHash: payout.transactionHash, payoutReference: payout.payoutReference, at: at() }
          : { type: 'recordPayout', ok: false, reason: payout.reason, at: at() };
      }
      case 'captureHold':
        return this.ledger.captureHold(tenant, transactionId, { destination: OFFRAMP_PROVIDER });
      case 'complete':
        return { type: 'complete', at: at() };
      case 'releaseHold':
        return this.ledger.releaseHold(tenant, transactionId, offrampHold(state));
      case 'refundDeposit': {
        const refund = await this.rails.refundDeposit({ transactionId, to: state.initiated!.sourceAddress!, amount: state.deposit!.amount, tokenSymbol: quote.tokenSymbol });
        return { type: 'recordDepositRefunded', transactionHash: refund.transactionHash, at: at() };
      }
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /** When a step runs: at the deposit's expiry, after the provider's delay, or now. */
  dueAt(step: OfframpStep): Date {
    if (step.kind === 'awaitDeposit') return new Date(step.until);
    if (step.kind === 'swapToCngn' || step.kind === 'payout') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
