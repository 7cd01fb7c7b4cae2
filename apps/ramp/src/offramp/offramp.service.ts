import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { smartAccountAddress } from '@ramp/bookkeeping';
import { tokenDecimals } from '@ramp/chains';
import { Config } from '@ramp/config';
import { AppError, type OfframpInitiate, type Tenant } from '@ramp/contracts';
import { dec, parseAmount } from '@ramp/money';
import { JobQueue, LedgerSteps, QuoteInitiation, StreamProcess, type Job } from '@ramp/process-kit';
import { formatDuration, sandboxHash, type OfframpRails } from '@ramp/providers';
import { nextOfframpStep, offrampDecider, offrampView, type OfframpCommand, type OfframpEvent, type OfframpState, type OfframpStep } from '@ramp/ramping';
import { PG_POOL } from '@ramp/service-kit';
import type { TransactionView } from '@ramp/transactions';
import { RAMP_LOG } from '../process/log';
import { OfframpSteps } from './offramp.steps';

export const OFFRAMP_RAILS = Symbol('OFFRAMP_RAILS');

/** The off-ramp use cases: initiation, reads, the sandbox deposit, and each step of the process (OfframpSteps). */
@Injectable()
export class OfframpService {
  private readonly stepDelayMs: number;
  private readonly depositWindowSeconds: number;
  private readonly steps: OfframpSteps;
  readonly process: StreamProcess<OfframpState, OfframpCommand, OfframpEvent, OfframpStep>;

  constructor(
    @Inject(PG_POOL) pool: Pool,
    @Inject(OFFRAMP_RAILS) rails: OfframpRails,
    @Inject(LedgerSteps) ledger: LedgerSteps,
    @Inject(QuoteInitiation) private readonly initiation: QuoteInitiation,
    @Inject(JobQueue) jobs: JobQueue,
    @Inject(Config) config: Config,
  ) {
    this.stepDelayMs = config.int('sandboxStepDelayMs');
    this.depositWindowSeconds = config.int('sandboxDepositWindowSeconds', 1);
    this.steps = new OfframpSteps(rails, ledger, this.stepDelayMs);
    this.process = new StreamProcess(pool, RAMP_LOG, jobs, {
      systemActor: 'system:ramp',
      prefix: 'offramp',
      decider: offrampDecider,
      nextStep: nextOfframpStep,
      dueAt: (step) => this.steps.dueAt(step),
      tenantOf: (state) => state.initiated?.tenant,
      view: offrampView,
    });
  }

  /**
   * Initiates an off-ramp from its quote (see QuoteInitiation): custodial from a managed wallet that can pay it (held
   * at once), or non-custodial from `sourceAddress`, which deposits to an address of the transaction's own.
   */
  async initiate(tenant: Tenant, request: OfframpInitiate.Request, requestId?: string): Promise<OfframpInitiate.Response> {
    const { transactionId, state } = await this.initiation.initiateFromQuote({
      kind: 'offramp',
      tenant,
      request: { ...request },
      requestId,
      process: this.process,
      prepare: ({ transactionId, quote, request: initiation, side, at }) => {
        const depositAddress = side.address ? smartAccountAddress(quote.chain as 'base' | 'bsc', transactionId) : null;
        return {
          transactionId,
          tenant,
          quote,
          walletId: initiation.walletId ?? null,
          sourceAddress: side.address,
          depositAddress,
          depositExpiresAt: depositAddress ? new Date(at.getTime() + this.depositWindowSeconds * 1000).toISOString() : null,
          reference: initiation.reference,
          callbackUrl: initiation.callbackUrl,
          at: at.toISOString(),
        };
      },
    });
    const { quote, reference, depositAddress } = state.initiated!;
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
    return offrampView(await this.process.ownedBy(tenant, transactionId));
  }

  /** The sandbox's deposit of a non-custodial off-ramp (test keys only). */
  async sandboxDeposit(tenant: Tenant, transactionId: unknown, amount: unknown): Promise<TransactionView> {
    if (tenant.environment !== 'test') throw new AppError('SANDBOX_ONLY', 'Sandbox endpoints exist for test keys only');
    const state = await this.process.ownedBy(tenant, transactionId);
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
    await this.process.runJob(job, (context) => this.steps.perform(context));
  }
}
