import { tokenDecimals } from '@ramp/chains';
import { AppError, ChainTransfer, platformTenant, type DepositCredited, type Tenant } from '@ramp/contracts';
import type { RpcClient } from '@ramp/messaging';
import type { Logger } from '@ramp/service-kit';
import { failingEnds, type ChainLegs, type LedgerSteps, type StepContext, type WithInitiation } from '@ramp/process-kit';
import { OfframpPayouts, SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS, type LegResult, type LivePayouts, type OfframpRails } from '@ramp/providers';
import {
  OFFRAMP_DEPOSITS,
  OFFRAMP_PROVIDER,
  offrampSettlementAmount,
  offrampSwapMinimum,
  payoutStarted,
  refundAddressOf,
  type OfframpCommand,
  type OfframpState,
  type OfframpStep,
} from '@ramp/ramping';
import type { HoldTerms } from '@ramp/transactions';
import { ApprovalGate } from '../approvals/approval-gate';
import type { DenylistFile } from '../screening/denylist-file';
import { LivePayoutStep, type LivePayoutOptions } from './live-payout.step';

/** What a custodial off-ramp holds in its wallet: the quoted amount of the token. */
export function offrampHold(state: WithInitiation<OfframpState>): HoldTerms {
  const { walletId, quote } = state.initiated;
  return { walletId: walletId!, tokenSymbol: quote.tokenSymbol, amount: quote.cryptoAmount };
}

/**
 * Each step of an off-ramp (see nextOfframpStep): the ledger's hold, release and capture (LedgerSteps, as for every
 * transaction); on a chain with the platform's pools (settlement `onchain`) the swap to CNGN through them and the CNGN's
 * transfer to the provider's settlement address from the hot wallet (ChainLegs), else the off-ramp rails'; then the
 * bank's payout, and a deposit's refund. Each answers the command that records its outcome.
 */
export class OfframpSteps {
  constructor(
    private readonly rails: OfframpRails,
    private readonly ledger: Pick<LedgerSteps, 'placeHold' | 'releaseHold' | 'captureHold'>,
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly chain: Pick<ChainLegs, 'swap' | 'transfer' | 'fundFromWallet' | 'giveBackToWallet'>,
    private readonly stepDelayMs: number,
    private readonly logger?: Pick<Logger, 'warn'>,
    /** Test keys: the sandbox's rails; live keys: the bank partners (LivePayoutStep), or none configured. */
    private readonly payouts = new OfframpPayouts(undefined),
    private readonly livePayoutOptions: LivePayoutOptions = { verifyMs: 60_000, count: () => undefined },
    /** A live payout above LIVE_APPROVAL_ABOVE_NGN waits for an operator's approval. */
    private readonly approvals = new ApprovalGate(undefined),
    /** The screening denylist (SCREENING_DENYLIST_FILE) a live off-ramp's depositor is checked against. */
    private readonly screening?: Pick<DenylistFile, 'screen'>,
  ) {}

  /** The live payout step over the partners of PAYOUT_PROVIDERS, built at the first live payout. */
  private livePayout: LivePayoutStep | undefined;

  private livePayoutOver(partners: LivePayouts): LivePayoutStep {
    return (this.livePayout ??= new LivePayoutStep(partners, this.livePayoutOptions));
  }

  /** The sandbox's rails, which never serve a live key: a live off-ramp reaching them is a defect, retried and logged. */
  private sandboxRails(tenant: Tenant): OfframpRails {
    if (tenant.environment !== 'test')
      throw new Error(`a live off-ramp reached the sandbox's rails: nothing is simulated for a live key; an operator must look`);
    return this.rails;
  }

  async perform({ transactionId, state, step, tenant, job, version }: StepContext<OfframpState, OfframpStep>): Promise<OfframpCommand> {
    const at = () => new Date().toISOString();
    const quote = state.initiated.quote;
    if (tenant.environment === 'live' && (step.kind === 'swapToCngn' || step.kind === 'payout' || step.kind === 'refundDeposit')) {
      // Before anything moves (the deposit swapped, the Naira paid against it, or it sent back): a depositor on the
      // screening denylist holds the off-ramp for compliance (a refund would pay the listed address).
      const listed = this.screening?.screen([
        { address: state.deposit?.from, role: 'deposit sender' },
        { address: state.initiated.sourceAddress, role: 'source address' },
      ]);
      if (listed) {
        this.logger?.warn({ transactionId, ...listed }, 'a live off-ramp is held for compliance: its counterparty is on the screening denylist');
        return { type: 'holdForCompliance', ...listed, at: at() };
      }
    }
    switch (step.kind) {
      case 'placeHold':
        return this.ledger.placeHold(tenant, transactionId, offrampHold(state));
      case 'awaitDeposit':
        return { type: 'expireDeposit', at: at() };
      case 'swapToCngn': {
        if (state.initiated.settlement === 'onchain') return this.swapOnChain(transactionId, state, tenant);
        const swap = await this.sandboxRails(tenant).swapToCngn({
          transactionId,
          tokenSymbol: quote.tokenSymbol,
          amount: quote.cryptoAmount,
          expectedCngn: quote.fiatAmount,
        });
        return swap.ok
          ? { type: 'recordSwap', ok: true, cngnAmount: swap.cngnAmount, transactionHash: swap.transactionHash, at: at() }
          : { type: 'recordSwap', ok: false, reason: swap.reason, at: at() };
      }
      case 'payout': {
        // Refused (LIVE_MODE_DISABLED) for a live off-ramp when no payout partner is configured.
        const payout = this.payouts.of(tenant.environment);
        // A live payout above the threshold waits for an operator's approval before anything moves (once no attempt
        // exists: one already asked of a partner is followed to its end).
        if (payout.kind === 'live' && !state.payoutAttempts?.length) {
          const waits = this.approvals.check(transactionId, state.approval, quote.payoutAmount);
          if (waits) return waits;
        }
        // A managed wallet's CNGN (no swap) leaves its account for the hot wallet first, in one sponsored operation, as
        // a swapped token's does in its swap (for a forwarder wallet, whose funds the hot wallet holds, nothing moves):
        // before any bank partner is asked, so that Naira is never paid for CNGN still in the account. Asked again on
        // every run of the step, it answers the one transfer's outcome.
        const funded = await this.fundFromWallet(transactionId, state, tenant);
        if (funded && !funded.ok) {
          if (payoutStarted(state))
            throw new Error(`the wallet's CNGN of ${transactionId} could not be taken after its payout was asked: ${funded.reason}; an operator must look`);
          return { type: 'recordPayout', ok: false, reason: `the wallet's CNGN could not be taken: ${funded.reason}`, at: at() };
        }
        if (payout.kind === 'live') return this.livePayoutOver(payout.payouts).perform({ transactionId, state, job, version });
        // On chain, the CNGN goes to the provider's settlement address first (a real transfer, once per key); the bank
        // pays the Naira against it, and that transfer's hash is the settlement's.
        // A transfer that fails (the hot wallet short of CNGN, say) is not the bank's rejection: the swap gave the CNGN,
        // so the step is tried again later and logged for an operator, as a refund that cannot be sent is.
        const settled = state.initiated.settlement === 'onchain' ? await this.settleOnChain(transactionId, state, tenant) : undefined;
        if (settled && !settled.ok)
          throw new Error(`the CNGN of ${transactionId} could not be sent to the off-ramp provider: ${settled.reason}; an operator must look`);
        const paid = await this.sandboxRails(tenant).payout({
          transactionId,
          bankCode: quote.bankAccount.bankCode,
          accountNumber: quote.bankAccount.accountNumber,
          amount: quote.payoutAmount,
        });
        return paid.ok
          ? {
              type: 'recordPayout',
              ok: true,
              transactionHash: settled?.transactionHash ?? paid.transactionHash,
              payoutReference: paid.payoutReference,
              at: at(),
            }
          : { type: 'recordPayout', ok: false, reason: paid.reason, at: at() };
      }
      case 'captureHold':
        return this.ledger.captureHold(tenant, transactionId, { destination: OFFRAMP_PROVIDER });
      case 'complete':
        return { type: 'complete', at: at() };
      case 'releaseHold': {
        const { walletId } = state.initiated;
        // A CNGN off-ramp's funding (asked again: its outcome, never a second transfer) moved them to the hot wallet.
        const funded = state.swap ? undefined : await this.fundFromWallet(transactionId, state, tenant);
        if (walletId && state.initiated.settlement === 'onchain' && (state.swap || funded?.ok)) {
          // The swap took the held tokens out of the wallet (its own account, when its address is one): the hot wallet
          // gives them back before the hold is released, so the account holds what the books say (for a forwarder
          // wallet, whose funds the hot wallet holds, nothing moves).
          await this.chain.giveBackToWallet({
            environment: tenant.environment,
            chain: quote.chain,
            idempotencyKey: `${transactionId}:release:wallet`,
            walletId,
            tokenSymbol: quote.tokenSymbol,
            amount: quote.cryptoAmount,
            account: OFFRAMP_PROVIDER,
            paysOut: transactionId,
          });
        }
        return this.ledger.releaseHold(tenant, transactionId, offrampHold(state));
      }
      case 'refundDeposit': {
        const deposit = state.deposit!;
        if (deposit.from !== undefined) {
          // It arrived on chain: it goes back on chain, from the hot wallet it was swept to, to its sender, exactly as it
          // arrived (the chain service checks the terms against the deposit it names).
          const refund = await this.chain.transfer({
            environment: tenant.environment,
            chain: quote.chain,
            idempotencyKey: `refund:${transactionId}`,
            to: refundAddressOf(state),
            tokenSymbol: deposit.tokenSymbol ?? quote.tokenSymbol,
            amount: deposit.amount,
            account: OFFRAMP_DEPOSITS,
            paysOut: transactionId,
            organizationId: tenant.organizationId,
            ...(deposit.depositId !== undefined && { refundOf: deposit.depositId }),
          });
          if (!refund.ok) throw new Error(`the refund of ${transactionId} failed on chain: ${refund.reason}; an operator must look`);
          return { type: 'recordDepositRefunded', transactionHash: refund.transactionHash, at: at() };
        }
        const refund = await this.sandboxRails(tenant).refundDeposit({
          transactionId,
          to: refundAddressOf(state),
          amount: state.deposit!.amount,
          tokenSymbol: quote.tokenSymbol,
        });
        return { type: 'recordDepositRefunded', transactionHash: refund.transactionHash, at: at() };
      }
      case 'fail':
        return failingEnds(state);
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  /**
   * The swap to CNGN through the pools, into the hot wallet: from the hot wallet, where a swept deposit is (and a
   * forwarder wallet's tokens), or from the managed wallet's own account when its address is one (`fromWallet`: one
   * sponsored operation); exactly the quoted amount in, at least the quote's Naira value less the tolerance out
   * (RAMP_SWAP_TOLERANCE), or it reverts and the off-ramp gives back what it took.
   */
  private async swapOnChain(transactionId: string, state: WithInitiation<OfframpState>, tenant: Tenant): Promise<OfframpCommand> {
    const { quote } = state.initiated;
    const swap = await this.chain.swap({
      environment: tenant.environment,
      chain: quote.chain,
      idempotencyKey: `${transactionId}:swap`,
      fromToken: quote.tokenSymbol,
      toToken: 'CNGN',
      amountIn: quote.cryptoAmount,
      minimumOut: offrampSwapMinimum(quote, tokenDecimals('CNGN', quote.chain)),
      account: OFFRAMP_PROVIDER,
      paysOut: transactionId,
      organizationId: tenant.organizationId,
      ...(state.initiated.walletId && { fromWallet: state.initiated.walletId }),
    });
    const at = new Date().toISOString();
    return swap.ok
      ? {
          type: 'recordSwap',
          ok: true,
          cngnAmount: swap.amountOut,
          transactionHash: swap.transactionHash,
          ...(swap.userOperationHash !== undefined && { userOperationHash: swap.userOperationHash }),
          at,
        }
      : { type: 'recordSwap', ok: false, reason: swap.reason, at };
  }

  /**
   * A custodial off-ramp of CNGN (no swap) on chain: the held amount moved from the wallet to the hot wallet, once per
   * off-ramp (`<id>:fund`), from its account in one sponsored operation when its address is one; for a forwarder
   * wallet, whose funds the hot wallet holds, nothing moves. Undefined for any other off-ramp (one with a swap, which
   * takes the tokens itself; a deposit's; the sandbox's rails) and where the chain service runs no such chain.
   */
  private async fundFromWallet(transactionId: string, state: WithInitiation<OfframpState>, tenant: Tenant): Promise<LegResult | undefined> {
    const { walletId, quote, settlement } = state.initiated;
    if (!walletId || settlement !== 'onchain' || quote.tokenSymbol !== 'CNGN') return undefined;
    return this.chain.fundFromWallet({
      environment: tenant.environment,
      chain: quote.chain,
      idempotencyKey: `${transactionId}:fund`,
      walletId,
      tokenSymbol: quote.tokenSymbol,
      amount: quote.cryptoAmount,
      account: OFFRAMP_PROVIDER,
      paysOut: transactionId,
      organizationId: tenant.organizationId,
    });
  }

  /**
   * The CNGN the provider pays the Naira against (offrampSettlementAmount: the payout and the provider's fee), from the
   * hot wallet to the provider's settlement address on the off-ramp's chain, netted with the other off-ramps' of the
   * moment (ChainTransfer's `net`: one transfer for them all, each share booked on its own). A payout the bank then rejects leaves it
   * with the provider, as a credit toward the platform's next settlement (docs/chains.md): the customer is made whole
   * from the platform's side.
   */
  private async settleOnChain(transactionId: string, state: WithInitiation<OfframpState>, tenant: Tenant) {
    const { quote } = state.initiated;
    return this.chain.transfer({
      environment: tenant.environment,
      chain: quote.chain,
      idempotencyKey: `${transactionId}:settle`,
      to: SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS,
      tokenSymbol: 'CNGN',
      amount: offrampSettlementAmount(quote),
      account: OFFRAMP_PROVIDER,
      paysOut: transactionId,
      organizationId: tenant.organizationId,
      // Sent with the other off-ramps' settlements to the provider within CHAIN_SETTLEMENT_NET_MS, as one transfer.
      net: true,
    });
  }

  /**
   * A deposit nobody takes (one of another token, a second one to an off-ramp's address, or one to the address of an
   * off-ramp that was never recorded) goes back to its sender, in its own token and exactly its amount: queued once per
   * deposit, and final without anyone waiting for it. A live one whose sender is on the screening denylist is not sent
   * back (it would pay the listed address): it stays in the books as an off-ramp deposit, logged for an operator.
   */
  async refundExtraDeposit(deposit: DepositCredited): Promise<void> {
    if (/^0x0{40}$/i.test(deposit.from)) throw new Error(`deposit ${deposit.depositId} was minted to the address: there is no sender to refund`);
    const listed = deposit.environment === 'live' ? this.screening?.screen([{ address: deposit.from, role: 'deposit sender' }]) : undefined;
    if (listed) {
      this.logger?.warn(
        { depositId: deposit.depositId, chain: deposit.chain, tokenSymbol: deposit.tokenSymbol, amount: deposit.amount, ...listed },
        'an extra deposit is held for compliance, not sent back: its sender is on the screening denylist',
      );
      return;
    }
    try {
      await this.rpc.call(ChainTransfer.contract, systemTenant(deposit.environment), {
        environment: deposit.environment,
        chain: deposit.chain,
        idempotencyKey: `refund:${deposit.depositId}`,
        to: deposit.from,
        tokenSymbol: deposit.tokenSymbol,
        amount: deposit.amount,
        account: OFFRAMP_DEPOSITS,
        refundOf: deposit.depositId,
      });
    } catch (error) {
      // Refused for the deposit itself: a reorganisation removed it meanwhile (it is no longer a credited deposit), so
      // there is nothing to give back; the chain service says why. Anything else is a fault, retried.
      if (error instanceof AppError && error.field === 'refundOf') {
        this.logger?.warn({ depositId: deposit.depositId, reason: error.message }, 'an extra deposit is not given back: the chain service refused its refund');
        return;
      }
      throw error;
    }
  }

  /**
   * When a step runs: at the deposit's expiry, after the sandbox provider's delay (a swap on its rails, and the bank's
   * payout), or now (a swap on chain takes the chain's own time).
   */
  dueAt(step: OfframpStep, state: OfframpState): Date {
    if (step.kind === 'awaitDeposit') return new Date(step.until);
    // A live payout's next move (send, look up) is due at once: the partner takes its own time, and its event wakes it.
    if (step.kind === 'payout' && state.initiated?.tenant.environment === 'live') return new Date();
    const onchainSwap = step.kind === 'swapToCngn' && state.initiated?.settlement === 'onchain';
    if ((step.kind === 'swapToCngn' && !onchainSwap) || step.kind === 'payout') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}

/** The platform acting for itself toward the chain service (its requests name no customer's key). */
const systemTenant = (environment: 'test' | 'live') => platformTenant(environment, 'ramp');
