import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { smartAccountAddress } from '@ramp/bookkeeping';
import { parseAddress, tokenDecimals } from '@ramp/chains';
import { Config } from '@ramp/config';
import {
  HoldPlace,
  HoldSettle,
  invalidField,
  newId,
  notFound,
  QuoteConsume,
  QuotePeek,
  WalletGet,
  type OfframpInitiate,
  type OfframpQuote,
  type Tenant,
} from '@ramp/contracts';
import { beforeAnyEffect, RpcClient } from '@ramp/messaging';
import { dec, parseAmount } from '@ramp/money';
import { formatDuration, sandboxHash, type OfframpRails } from '@ramp/providers';
import {
  nextOfframpStep,
  offrampDecider,
  offrampView,
  type OfframpCommand,
  type OfframpEvent,
  type OfframpState,
  type OfframpStep,
} from '@ramp/ramping';
import type { TransactionView } from '@ramp/transactions';
import { PG_POOL } from '@ramp/service-kit';
import { checkWalletCanPay, isRefusal, JobQueue, optionalString, parseCallbackUrl, StreamProcess, withoutField, type Job } from '@ramp/process-kit';
import { RAMP_LOG } from '../process/log';
import { AllowedHosts } from '@ramp/webhooks';

export const OFFRAMP_RAILS = Symbol('OFFRAMP_RAILS');
/** Where the off-ramp provider's capture goes in the ledger. */
const OFFRAMP_PROVIDER = 'offramp-provider';

/** The off-ramp use cases: initiation, reads, the sandbox deposit, and each step of the process. */
@Injectable()
export class OfframpService {
  private readonly stepDelayMs: number;
  private readonly depositWindowSeconds: number;
  readonly process: StreamProcess<OfframpState, OfframpCommand, OfframpEvent, OfframpStep>;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(OFFRAMP_RAILS) private readonly rails: OfframpRails,
    @Inject(JobQueue) jobs: JobQueue,
    @Inject(Config) config: Config,
    @Inject(AllowedHosts) private readonly callbackHosts: AllowedHosts,
  ) {
    this.stepDelayMs = config.int('sandboxStepDelayMs');
    this.depositWindowSeconds = config.int('sandboxDepositWindowSeconds', 1);
    this.process = new StreamProcess(pool, RAMP_LOG, jobs, {
      systemActor: 'system:ramp',
      prefix: 'offramp',
      decider: offrampDecider,
      nextStep: nextOfframpStep,
      dueAt: (step) => this.dueAt(step),
      tenantOf: (state) => state.initiated?.tenant,
    });
  }

  /**
   * Checks everything that can be a 4xx first (the quote without using it, the wallet and its balance, the source
   * address), then uses the quote once for this transaction and records the initiation with its first step.
   */
  async initiate(tenant: Tenant, request: OfframpInitiate.Request, requestId?: string): Promise<OfframpInitiate.Response> {
    if (typeof request.quoteId !== 'string' || request.quoteId === '') throw invalidField('quoteId', 'is required');
    const walletId = optionalString(request.walletId, 'walletId');
    const sourceAddressRaw = optionalString(request.sourceAddress, 'sourceAddress');
    if (walletId && sourceAddressRaw) throw invalidField('walletId', 'give walletId (custodial) or sourceAddress (non-custodial), not both');
    if (!walletId && !sourceAddressRaw) throw invalidField('walletId', 'is required unless sourceAddress is given (non-custodial)');
    const reference = optionalString(request.reference, 'reference') ?? null;
    const callbackUrl = parseCallbackUrl(request.callbackUrl, this.callbackHosts);

    const quoteId = request.quoteId;
    const { quote, wallet } = await beforeAnyEffect(async () => ({
      quote: (await this.rpc.call(QuotePeek.contract, tenant, { quoteId, kind: 'offramp' }, { requestId })).quote as OfframpQuote.Response,
      wallet: walletId ? await this.rpc.call(WalletGet.contract, tenant, { walletId }, { requestId }) : undefined,
    }));
    let sourceAddress: string | null = null;
    if (wallet) checkWalletCanPay(wallet, quote.chain, quote.tokenSymbol, quote.cryptoAmount);
    else sourceAddress = parseAddress(quote.chain as 'base', sourceAddressRaw, 'sourceAddress');

    const transactionId = newId('txn');
    await this.rpc.call(QuoteConsume.contract, tenant, { quoteId, kind: 'offramp', consumer: transactionId }, { requestId });
    const now = new Date();
    const depositAddress = sourceAddress ? smartAccountAddress(quote.chain as 'base' | 'bsc', transactionId) : null;
    await this.process.apply(transactionId, tenant, {
      type: 'initiate',
      data: {
        transactionId,
        tenant,
        quote,
        walletId: walletId ?? null,
        sourceAddress,
        depositAddress,
        depositExpiresAt: depositAddress ? new Date(now.getTime() + this.depositWindowSeconds * 1000).toISOString() : null,
        reference,
        callbackUrl,
        at: now.toISOString(),
      },
    }, { causationId: requestId ?? transactionId, actor: `key:${tenant.keyId}`, requestId });
    const steps = quote.tokenSymbol === 'CNGN' ? 1 : 2;
    return {
      transactionId,
      reference,
      status: 'pending',
      depositAddress,
      estimatedFiatAmount: quote.payoutAmount,
      estimatedArrival: formatDuration(Math.max(1, Math.round((steps * this.stepDelayMs) / 1000))),
    };
  }

  async get(tenant: Tenant, transactionId: unknown): Promise<TransactionView> {
    return offrampView(await this.stateOf(tenant, transactionId));
  }

  /** The sandbox's deposit of a non-custodial off-ramp (test keys only). */
  async sandboxDeposit(tenant: Tenant, transactionId: unknown, amount: unknown): Promise<TransactionView> {
    if (tenant.environment !== 'test') throw notFound('Sandbox endpoints exist for test keys only');
    const state = await this.stateOf(tenant, transactionId);
    const quote = state.initiated!.quote;
    const decimals = tokenDecimals(quote.tokenSymbol, quote.chain);
    const value = amount === undefined ? dec(quote.cryptoAmount) : parseAmount(amount, 'amount', decimals);
    const id = state.initiated!.transactionId;
    await this.process.apply(
      id,
      tenant,
      { type: 'recordDeposit', amount: value.toString(), transactionHash: sandboxHash(id, 'deposit', value.toString()), at: new Date().toISOString() },
      { causationId: `sandbox:${id}`, actor: 'sandbox' },
    );
    return this.get(tenant, id);
  }

  /** Runs a claimed job of an off-ramp (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    await this.process.runJob(job, ({ transactionId, state, step, tenant }) => this.perform(transactionId, state, step, tenant));
  }

  /** Performs one step and answers the command that records its outcome. */
  private async perform(transactionId: string, state: OfframpState, step: OfframpStep, tenant: Tenant): Promise<OfframpCommand> {
    const at = () => new Date().toISOString();
    const quote = state.initiated!.quote;
    const walletId = state.initiated!.walletId;
    switch (step.kind) {
      case 'placeHold':
        try {
          await this.rpc.call(HoldPlace.contract, tenant, { holdId: transactionId, walletId: walletId!, tokenSymbol: quote.tokenSymbol, amount: quote.cryptoAmount });
          return { type: 'recordFundsHeld', at: at() };
        } catch (error) {
          if (!isRefusal(error)) throw error;
          return { type: 'fail', reason: `The wallet could not be debited: ${withoutField(error.message)}`, at: at() };
        }
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
        await this.rpc.call(HoldSettle.contract, tenant, { holdId: transactionId, outcome: 'capture', destination: OFFRAMP_PROVIDER });
        return { type: 'complete', at: at() };
      case 'complete':
        return { type: 'complete', at: at() };
      case 'releaseHold':
        await this.rpc.call(HoldSettle.contract, tenant, { holdId: transactionId, outcome: 'release' });
        return { type: 'recordFundsReleased', at: at() };
      case 'refundDeposit': {
        const refund = await this.rails.refundDeposit({ transactionId, to: state.initiated!.sourceAddress!, amount: state.deposit!.amount, tokenSymbol: quote.tokenSymbol });
        return { type: 'recordDepositRefunded', transactionHash: refund.transactionHash, at: at() };
      }
      case 'fail':
        return { type: 'fail', reason: state.failing ?? 'failed', at: at() };
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  private dueAt(step: OfframpStep): Date {
    if (step.kind === 'awaitDeposit') return new Date(step.until);
    if (step.kind === 'swapToCngn' || step.kind === 'payout') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }

  private async stateOf(tenant: Tenant, transactionId: unknown): Promise<OfframpState> {
    return this.process.ownedBy(tenant, transactionId);
  }

}
