import { failingEnds, type LedgerSteps, type StepContext } from '@ramp/process-kit';
import type { OnrampRails } from '@ramp/providers';
import { cngnToMint, type OnrampCommand, type OnrampState, type OnrampStep } from '@ramp/ramping';

/** Where delivered tokens come from in the ledger: the platform's liquidity outside it. */
const ONRAMP_LIQUIDITY = 'onramp-liquidity';

/**
 * Each step of an on-ramp (see nextOnrampStep): the on-ramp rails' mint, swap, send and refund, and the ledger's
 * credit of a managed wallet (LedgerSteps, as for every transaction). Each answers the command that records its outcome.
 */
export class OnrampSteps {
  constructor(
    private readonly rails: OnrampRails,
    private readonly ledger: Pick<LedgerSteps, 'credit'>,
    private readonly stepDelayMs: number,
  ) {}

  async perform({ transactionId, state, step, tenant }: StepContext<OnrampState, OnrampStep>): Promise<OnrampCommand> {
    const at = () => new Date().toISOString();
    const { quote, walletId, destinationAddress } = state.initiated!;
    switch (step.kind) {
      case 'awaitPayment':
        return { type: 'expirePayment', at: at() };
      case 'mintCngn': {
        const mint = await this.rails.mintCngn({ transactionId, ngnAmount: cngnToMint(quote) });
        return { type: 'recordMint', amount: mint.amount, transactionHash: mint.transactionHash, at: at() };
      }
      case 'swapFromCngn': {
        const swap = await this.rails.swapFromCngn({ transactionId, tokenSymbol: quote.tokenSymbol, cngnAmount: state.mint!.amount, expectedAmount: quote.cryptoAmount, ngnAmount: quote.fiatAmount });
        return swap.ok ? { type: 'recordSwap', ok: true, amount: swap.amount, transactionHash: swap.transactionHash, at: at() } : { type: 'recordSwap', ok: false, reason: swap.reason, at: at() };
      }
      case 'deliver': {
        const amount = state.swap?.amount ?? quote.cryptoAmount;
        if (walletId) {
          await this.ledger.credit(tenant, { entryId: transactionId, walletId, tokenSymbol: quote.tokenSymbol, amount, source: ONRAMP_LIQUIDITY });
          return { type: 'recordDelivery', transactionHash: state.swap?.transactionHash ?? state.mint!.transactionHash, at: at() };
        }
        const sent = await this.rails.sendToAddress({ transactionId, chain: quote.chain, tokenSymbol: quote.tokenSymbol, amount, address: destinationAddress! });
        return { type: 'recordDelivery', transactionHash: sent.transactionHash, at: at() };
      }
      case 'refundPayment': {
        const refund = await this.rails.refundPayment({ transactionId, amount: state.payment!.amount });
        return { type: 'recordRefund', refundReference: refund.refundReference, at: at() };
      }
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /** When a step runs: at the payment window's end, after the provider's delay, or now. */
  dueAt(step: OnrampStep): Date {
    if (step.kind === 'awaitPayment') return new Date(step.until);
    if (step.kind === 'mintCngn' || step.kind === 'swapFromCngn' || step.kind === 'deliver') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
