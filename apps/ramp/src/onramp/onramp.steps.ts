import { tokenDecimals } from '@ramp/chains';
import { AppError, platformTenant, TreasuryReserve, type Tenant } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import { failingEnds, type ChainLegs, type LedgerSteps, type StepContext, type WithInitiation } from '@ramp/process-kit';
import type { OnrampRails } from '@ramp/providers';
import { cngnSpent, cngnToMint, fromTreasury, ONRAMP_LIQUIDITY, onrampSwapMinimum, type OnrampCommand, type OnrampState, type OnrampStep } from '@ramp/ramping';
import { ApprovalGate } from '../approvals/approval-gate';
import type { DenylistFile } from '../screening/denylist-file';
import type { Logger } from '@ramp/service-kit';
import type { OnrampCollectionAccounts } from './onramp-collections';

/**
 * Each step of an on-ramp (see nextOnrampStep). On a chain with the platform's pools (settlement `onchain`): the sandbox
 * issuer mints the CNGN bought with the Naira into the treasury (the hot wallet), the treasury swaps it to the token
 * through the pools, and the quoted amount is credited to the managed wallet (LedgerSteps) or sent to the destination
 * address from the hot wallet (ChainLegs). Elsewhere the on-ramp rails do the same. A live on-ramp runs on its live
 * chain the same way from the swap on, from the treasury's CNGN already in the hot wallet (no mint: fromTreasury),
 * swapped on the chain's DEX; never on the sandbox's rails. The Naira's refund is the bank's: a live on-ramp's through
 * the partner that took the payment. Each answers the command that records its outcome.
 */
export class OnrampSteps {
  constructor(
    private readonly rails: OnrampRails,
    private readonly ledger: Pick<LedgerSteps, 'credit'>,
    private readonly chain: Pick<ChainLegs, 'swap' | 'transfer' | 'restock'>,
    private readonly stepDelayMs: number,
    private readonly collections?: Pick<OnrampCollectionAccounts, 'live' | 'counted'>,
    /** A live delivery above LIVE_APPROVAL_ABOVE_NGN waits for an operator's approval. */
    private readonly approvals = new ApprovalGate(undefined),
    /** The ledger, which reserves the treasury's CNGN a live on-ramp's swap spends (TreasuryReserve). */
    private readonly treasury?: Pick<RpcClient, 'call'>,
    /** The screening denylist (SCREENING_DENYLIST_FILE) a live on-ramp's destination is checked against. */
    private readonly screening?: Pick<DenylistFile, 'screen'>,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  async perform({ transactionId, state, step, tenant }: StepContext<OnrampState, OnrampStep>): Promise<OnrampCommand> {
    const at = () => new Date().toISOString();
    const { quote, walletId, destinationAddress, settlement } = state.initiated;
    const onchain = settlement === 'onchain';
    if (tenant.environment === 'live' && (step.kind === 'mintCngn' || (!onchain && (step.kind === 'swapFromCngn' || step.kind === 'deliver')))) {
      // A live on-ramp runs on its live chain from the treasury's CNGN (no mint); one recorded before live chains
      // existed, or a mint step reached live, is never run on the sandbox's rails: retried by the job's backoff and
      // logged for an operator; the payment stays recorded.
      throw new AppError('LIVE_MODE_DISABLED', `${transactionId} is paid, but its ${step.kind} step has no live chain to run on: an operator must look`);
    }
    if (tenant.environment === 'live' && (step.kind === 'swapFromCngn' || step.kind === 'deliver' || step.kind === 'refundPayment')) {
      // Before the treasury's tokens go to the destination (or are bought for it), or the Naira goes back: a destination
      // on the screening denylist holds the on-ramp for compliance.
      const listed = this.screening?.screen([{ address: destinationAddress, role: 'destination address' }]);
      if (listed) {
        this.logger?.warn({ transactionId, ...listed }, 'a live on-ramp is held for compliance: its counterparty is on the screening denylist');
        return { type: 'holdForCompliance', ...listed, at: at() };
      }
    }
    switch (step.kind) {
      case 'awaitPayment':
        return { type: 'expirePayment', at: at() };
      case 'mintCngn': {
        const amount = cngnToMint(quote);
        const mint = onchain
          ? {
              amount,
              ...(await this.chain.restock({
                environment: tenant.environment,
                chain: quote.chain,
                idempotencyKey: `onramp:${transactionId}:mint`,
                tokenSymbol: 'CNGN',
                amount,
              })),
            }
          : await this.rails.mintCngn({ transactionId, ngnAmount: amount });
        return { type: 'recordMint', amount: mint.amount, transactionHash: mint.transactionHash, at: at() };
      }
      case 'swapFromCngn': {
        // A live on-ramp worth more than the threshold waits for an operator's approval before the treasury's CNGN is
        // spent (the first step that spends it).
        if (tenant.environment === 'live') {
          const waits = this.approvals.check(transactionId, state.approval, quote.fiatAmount);
          if (waits) return waits;
        }
        if (fromTreasury(state)) {
          // The treasury's CNGN is reserved before the swap spends it: the hot wallet holds customers' CNGN too, and an
          // on-ramp that the free CNGN no longer covers (others took it since its quote) is refunded, never paid from it.
          const reservation = await this.reserveTreasury(transactionId, 'swap', cngnSpent(state), state, tenant);
          if (!reservation.reserved) {
            const reason = `The treasury's free CNGN on ${quote.chain} (${reservation.free}) no longer covers the ${cngnSpent(state)} to swap; the Naira is refunded`;
            return { type: 'fail', reason, failureReason: 'INSUFFICIENT_LIQUIDITY', at: at() };
          }
        }
        const swap = onchain
          ? await this.swapOnChain(transactionId, state, tenant)
          : await this.rails.swapFromCngn({
              transactionId,
              tokenSymbol: quote.tokenSymbol,
              cngnAmount: cngnSpent(state),
              expectedAmount: quote.cryptoAmount,
              ngnAmount: quote.fiatAmount,
            });
        return swap.ok
          ? { type: 'recordSwap', ok: true, amount: swap.amount, transactionHash: swap.transactionHash, at: at() }
          : { type: 'recordSwap', ok: false, reason: swap.reason, at: at() };
      }
      case 'deliver': {
        // A live delivery worth more than the threshold waits for an operator's approval before anything is sent.
        if (tenant.environment === 'live') {
          const waits = this.approvals.check(transactionId, state.approval, quote.fiatAmount);
          if (waits) return waits;
        }
        // The quoted amount, whatever the swap gave within its tolerance: the treasury keeps or makes up the difference.
        const amount = quote.cryptoAmount;
        if (fromTreasury(state) && quote.tokenSymbol === 'CNGN') {
          // A live on-ramp of CNGN has no swap: its delivery spends the treasury's CNGN, reserved first as a swap's is
          // (the hot wallet holds customers' CNGN too); one the free CNGN no longer covers fails, and its Naira is refunded.
          const reservation = await this.reserveTreasury(transactionId, 'deliver', amount, state, tenant);
          if (!reservation.reserved) {
            const reason = `The treasury's free CNGN on ${quote.chain} (${reservation.free}) no longer covers the ${amount} to deliver; the Naira is refunded`;
            return { type: 'fail', reason, failureReason: 'INSUFFICIENT_LIQUIDITY', at: at() };
          }
        }
        if (walletId) {
          // On chain, into the wallet's own account when its address is one (the hot wallet's transfer, within the
          // platform's holdings: neither an outflow nor a deposit); a forwarder wallet's funds are the hot wallet's, so
          // its credit alone delivers. Then the credit, once per entry: a crash between the two sends nothing twice.
          const moved = onchain
            ? await this.chain.transfer({
                environment: tenant.environment,
                chain: quote.chain,
                idempotencyKey: `${transactionId}:deliver`,
                toWallet: walletId,
                tokenSymbol: quote.tokenSymbol,
                amount,
                account: ONRAMP_LIQUIDITY,
                paysOut: transactionId,
              })
            : undefined;
          if (moved && !moved.ok) throw new Error(`the delivery of ${transactionId} to its wallet failed on chain: ${moved.reason}; an operator must look`);
          const shown = moved?.transactionHash ?? state.swap?.transactionHash ?? state.mint?.transactionHash;
          // Refused at initiation (a live on-ramp of CNGN into a wallet): nothing on chain would show the delivery, and
          // nothing is credited.
          if (!shown) throw new Error(`the delivery of ${transactionId} to its wallet has no transaction to show: an operator must look`);
          await this.ledger.credit(tenant, { entryId: transactionId, walletId, tokenSymbol: quote.tokenSymbol, amount, source: ONRAMP_LIQUIDITY });
          return { type: 'recordDelivery', transactionHash: shown, at: at() };
        }
        if (onchain) {
          const sent = await this.chain.transfer({
            environment: tenant.environment,
            chain: quote.chain,
            idempotencyKey: `${transactionId}:deliver`,
            to: destinationAddress!,
            tokenSymbol: quote.tokenSymbol,
            amount,
            account: ONRAMP_LIQUIDITY,
            paysOut: transactionId,
            organizationId: tenant.organizationId,
          });
          // The Naira was turned into the token already: a delivery that fails is an operator's to resend, never a refund.
          if (!sent.ok) throw new Error(`the delivery of ${transactionId} failed on chain: ${sent.reason}; an operator must look`);
          return { type: 'recordDelivery', transactionHash: sent.transactionHash, at: at() };
        }
        const sent = await this.rails.sendToAddress({
          transactionId,
          chain: quote.chain,
          tokenSymbol: quote.tokenSymbol,
          amount,
          address: destinationAddress!,
        });
        return { type: 'recordDelivery', transactionHash: sent.transactionHash, at: at() };
      }
      case 'refundPayment': {
        const { collection } = state.initiated;
        if (collection) return { type: 'recordRefund', refundReference: await this.refundLive(transactionId, collection.provider, state.payment!), at: at() };
        if (tenant.environment === 'live') throw new Error(`${transactionId} is a live on-ramp without a collection partner: an operator must refund it`);
        const refund = await this.rails.refundPayment({ transactionId, amount: state.payment!.amount });
        return { type: 'recordRefund', refundReference: refund.refundReference, at: at() };
      }
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /**
   * A live payment given back by the partner that took it, named by its charge reference (the payment's
   * `payerReference`), which is also the refund's reference. No answer: the job asks again (the partner refuses a
   * second full refund, and only its record of the charge says whether the first was made). Refused: an operator.
   */
  private async refundLive(transactionId: string, provider: string, payment: { amount: string; payerReference: string }): Promise<string> {
    if (!this.collections) throw new Error(`${transactionId}: live refunds need the collections (OnrampCollectionAccounts)`);
    const refund = await this.collections
      .live()
      .refund(provider, { reference: payment.payerReference, amount: payment.amount }, `on-ramp ${transactionId} refunded`);
    if (refund.state === 'unknown') throw new Error(`the refund of ${transactionId}'s payment at ${provider} got no answer (${refund.reason}); asked again`);
    if (refund.state === 'rejected') {
      this.collections.counted.inc({ provider, outcome: 'refund_rejected' });
      throw new Error(`${provider} refused the refund of ${transactionId}'s payment ${payment.payerReference} (${refund.reason}): an operator must look`);
    }
    return payment.payerReference;
  }

  /**
   * The reservation of a live on-ramp's CNGN in the treasury's free inventory, once per send that spends it: its swap,
   * or a CNGN on-ramp's delivery (the send's idempotency key, `<transaction>:swap` or `<transaction>:deliver`).
   */
  private reserveTreasury(
    transactionId: string,
    send: 'swap' | 'deliver',
    amount: string,
    state: WithInitiation<OnrampState>,
    tenant: Tenant,
  ): Promise<TreasuryReserve.Response> {
    if (!this.treasury) throw new Error(`${transactionId}: a live on-ramp's ${send} needs the treasury's reservation (the ledger)`);
    return this.treasury.call(TreasuryReserve.contract, platformTenant(tenant.environment, 'ramp'), {
      environment: tenant.environment,
      chain: state.initiated.quote.chain,
      tokenSymbol: 'CNGN',
      amount,
      reservationId: `${transactionId}:${send}`,
    });
  }

  /**
   * The treasury's swap of the minted CNGN to the bought token through the pools, into the hot wallet: at least the
   * quoted amount less the tolerance (RAMP_SWAP_TOLERANCE), or it reverts and the Naira is refunded.
   */
  private async swapOnChain(
    transactionId: string,
    state: WithInitiation<OnrampState>,
    tenant: Tenant,
  ): Promise<{ ok: true; amount: string; transactionHash: string } | { ok: false; reason: string }> {
    const { quote } = state.initiated;
    const swap = await this.chain.swap({
      environment: tenant.environment,
      chain: quote.chain,
      idempotencyKey: `${transactionId}:swap`,
      fromToken: 'CNGN',
      toToken: quote.tokenSymbol,
      amountIn: cngnSpent(state),
      minimumOut: onrampSwapMinimum(quote, tokenDecimals(quote.tokenSymbol, quote.chain)),
      account: ONRAMP_LIQUIDITY,
      paysOut: transactionId,
      organizationId: tenant.organizationId,
    });
    return swap.ok ? { ok: true, amount: swap.amountOut, transactionHash: swap.transactionHash } : { ok: false, reason: swap.reason };
  }

  /** When a step runs: at the payment window's end, after the sandbox provider's delay on its rails, or now (on chain). */
  dueAt(step: OnrampStep, state: OnrampState): Date {
    if (step.kind === 'awaitPayment') return new Date(step.until);
    const railed = step.kind === 'mintCngn' || step.kind === 'swapFromCngn' || step.kind === 'deliver';
    if (railed && state.initiated?.settlement !== 'onchain') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
