import { Inject, Injectable } from '@nestjs/common';
import { smartAccountAddress } from '@ramp/bookkeeping';
import { tokenDecimals } from '@ramp/chains';
import { Config } from '@ramp/config';
import { RecordedWaits } from '@ramp/database';
import {
  AppError,
  depositAddressOrSimulated,
  DepositAddressWatch,
  FaucetSend,
  sandboxOnly,
  type DepositCredited,
  type DepositReversed,
  type OfframpInitiate,
  type Tenant,
} from '@ramp/contracts';
import { RpcClient } from '@ramp/messaging';
import { dec, parseAmount } from '@ramp/money';
import { ChainLegs, LedgerSteps, ProcessFactory, QuoteInitiation, type Job, type StreamProcess, type WithInitiation } from '@ramp/process-kit';
import { Metrics } from '@ramp/observability';
import { formatDuration, livePayoutsFrom, OfframpPayouts, partnerObserver, sandboxHash, type OfframpRails } from '@ramp/providers';
import { Counter } from 'prom-client';
import {
  isRecordedDeposit,
  nextOfframpStep,
  offrampDecider,
  offrampView,
  type OfframpCommand,
  type OfframpEvent,
  type OfframpState,
  type OfframpStep,
  type RampSettlement,
} from '@ramp/ramping';
import { LOGGER, type Logger } from '@ramp/service-kit';
import type { TransactionView } from '@ramp/transactions';
import { ApprovalGate, approvalThreshold } from '../approvals/approval-gate';
import { DenylistFile } from '../screening/denylist-file';
import { OfframpSteps } from './offramp.steps';

export const OFFRAMP_RAILS = Symbol('OFFRAMP_RAILS');

/** How long the sandbox deposit waits for the faucet's transfer to reach the off-ramp (it answers once it has). */
const SANDBOX_DEPOSIT_WAIT_MS = 25_000;
const FAUCET_TIMEOUT_MS = 20_000;

/** The off-ramp use cases: initiation, reads, the sandbox deposit, and each step of the process (OfframpSteps). */
@Injectable()
export class OfframpService {
  private readonly stepDelayMs: number;
  private readonly depositWindowSeconds: number;
  private readonly steps: OfframpSteps;
  readonly process: StreamProcess<OfframpState, OfframpCommand, OfframpEvent, OfframpStep>;
  /** Who pays an off-ramp's Naira, by environment (the sandbox's rails, or PAYOUT_PROVIDERS). */
  readonly payouts: OfframpPayouts;
  readonly payoutsCounted: Counter<'provider' | 'outcome'>;

  constructor(
    @Inject(ProcessFactory) processes: ProcessFactory,
    @Inject(ChainLegs) private readonly chain: ChainLegs,
    @Inject(OFFRAMP_RAILS) rails: OfframpRails,
    @Inject(LedgerSteps) ledger: LedgerSteps,
    @Inject(QuoteInitiation) private readonly initiation: QuoteInitiation,
    @Inject(Config) config: Config,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RecordedWaits) private readonly waits: RecordedWaits,
    @Inject(Metrics) metrics: Metrics,
    @Inject(DenylistFile) screening: DenylistFile,
  ) {
    this.stepDelayMs = config.int('sandboxStepDelayMs');
    this.depositWindowSeconds = config.int('sandboxDepositWindowSeconds', 1);
    this.payouts = new OfframpPayouts(livePayoutsFrom(config, partnerObserver(metrics.partnerCallSeconds)));
    this.payoutsCounted = new Counter({
      name: 'ramp_payouts_total',
      help: "Live payouts' moves by provider and outcome: sent, paid, failed, rejected, held (stopped at the partner for a person), reversed (the bank sent it back), unresolved (refused after an unanswered ask: it may have paid, so it is asked again, never sent elsewhere), waiting_for_balance (the partner balance does not cover it: top it up), no_partner (every partner out of rotation), failed_after_swap (every attempt failed after a live swap on chain: held for an operator).",
      labelNames: ['provider', 'outcome'],
      registers: [metrics.registry],
    });
    this.steps = new OfframpSteps(
      rails,
      ledger,
      rpc,
      this.chain,
      this.stepDelayMs,
      logger,
      this.payouts,
      {
        verifyMs: config.int('payoutVerifyMs', 1000),
        count: (provider, outcome) => this.payoutsCounted.inc({ provider, outcome }),
        logger,
      },
      new ApprovalGate(approvalThreshold(config.string('liveApprovalAboveNgn')), logger),
      screening,
    );
    this.process = processes.define({
      prefix: 'offramp',
      decider: offrampDecider,
      nextStep: nextOfframpStep,
      dueAt: (step, state) => this.steps.dueAt(step, state),
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
      prepare: async ({ transactionId, quote, request: initiation, side, at }) => {
        const settlement = await this.settlementOf(tenant, quote.chain);
        const onchain = side.address ? await this.depositAddress(tenant, quote.chain, transactionId) : undefined;
        const depositAddress = side.address ? (onchain ?? smartAccountAddress(quote.chain as 'base' | 'bsc', transactionId)) : null;
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
          ...(onchain && { depositOnchain: true }),
          ...(settlement === 'onchain' && { settlement }),
          at: at.toISOString(),
        };
      },
    });
    const { quote, reference, depositAddress } = state.initiated;
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

  /**
   * Where the off-ramp's swap to CNGN and the CNGN's transfer to the provider run: on chain where the chain service has
   * the platform's pools on the quote's chain (the local test chains), on the sandbox's rails elsewhere. A live
   * off-ramp runs on its live chain (its quote was priced from that chain's DEX, or is of CNGN): the swap on the DEX
   * into the hot wallet, where the CNGN stays while a bank partner pays the Naira from its balance. A live chain the
   * chain service does not run now (taken out since the quote) refuses the initiation before anything is recorded
   * (LIVE_MODE_DISABLED; the quote stays unused): nothing live ever stops at the sandbox's rails.
   */
  private async settlementOf(tenant: Tenant, chain: string): Promise<RampSettlement> {
    const network = await this.chain.network(tenant.environment, chain);
    if (tenant.environment === 'live') {
      if (!network)
        throw new AppError('LIVE_MODE_DISABLED', `${chain} has no live chain on this platform now: the off-ramp cannot run; try again later`, 'chain');
      return 'onchain';
    }
    return network?.contracts.dex && network.faucet ? 'onchain' : 'simulated';
  }

  /**
   * The deposit address of a non-custodial off-ramp: a deposit address of the chain service, watched from now on (what
   * arrives is recorded by recordChainDeposit), or, for a test key on a chain its environment has not configured,
   * undefined (a simulated address, whose deposits only the sandbox plays); a live key is refused there.
   */
  private async depositAddress(tenant: Tenant, chain: string, transactionId: string): Promise<string | undefined> {
    return depositAddressOrSimulated(tenant.environment, chain, async () => {
      const request = { environment: tenant.environment, chain, owner: `offramp:${transactionId}` };
      return (await this.rpc.call(DepositAddressWatch.contract, tenant, request)).address;
    });
  }

  /**
   * A deposit the chain service confirmed at an off-ramp's address. The first one of the quoted token funds the off-ramp
   * (or fails it, for another amount, and is refunded); one of another token, one that arrives when the off-ramp already
   * has its deposit, or one for no known off-ramp, is sent back to its sender at once, in its own token and exactly what
   * arrived: nothing that arrives is kept, and nothing is sent back that did not arrive.
   */
  async recordChainDeposit(deposit: DepositCredited, tenant: Tenant, causationId: string): Promise<void> {
    const transactionId = /^offramp:(.+)$/.exec(deposit.owner)?.[1];
    // Dust (below its token's minimum) is recorded by the chain service and kept: it funds nothing and goes back to nobody.
    if (!transactionId || deposit.dust) return;
    let state: OfframpState;
    try {
      state = await this.process.apply(
        transactionId,
        tenant,
        {
          type: 'recordDeposit',
          amount: deposit.amount,
          transactionHash: deposit.transactionHash,
          from: deposit.from,
          tokenSymbol: deposit.tokenSymbol,
          depositId: deposit.depositId,
          ...(deposit.credit !== undefined && { credit: deposit.credit }),
          at: new Date().toISOString(),
        },
        { causationId, actor: 'system:chain' },
      );
    } catch (error) {
      if (!(error instanceof AppError && error.reason === 'TRANSACTION_NOT_FOUND')) throw error;
      await this.steps.refundExtraDeposit(deposit);
      return;
    }
    if (!isRecordedDeposit(state, deposit)) await this.steps.refundExtraDeposit(deposit);
  }

  /**
   * A deposit at an off-ramp's address that a reorganisation removed after its credit: the off-ramp it funded fails
   * (before its payout), or is flagged for an operator with the loss booked (after it). See decideReversal.
   */
  async recordChainReversal(reversed: DepositReversed, tenant: Tenant, causationId: string): Promise<void> {
    const transactionId = /^offramp:(.+)$/.exec(reversed.owner)?.[1];
    if (!transactionId || reversed.dust) return;
    let state: OfframpState;
    try {
      state = await this.process.apply(
        transactionId,
        tenant,
        {
          type: 'recordDepositReversed',
          depositId: reversed.depositId,
          transactionHash: reversed.transactionHash,
          credit: reversed.credit,
          refunded: reversed.refunded,
          at: new Date().toISOString(),
        },
        { causationId, actor: 'system:chain' },
      );
    } catch (error) {
      if (error instanceof AppError && error.reason === 'TRANSACTION_NOT_FOUND') return;
      throw error;
    }
    if (state.depositReversal?.afterPayout && isRecordedDeposit(state, reversed)) {
      this.logger.error(
        { transactionId, depositId: reversed.depositId, amount: reversed.amount, token: reversed.tokenSymbol, chain: reversed.chain },
        'a reorganisation removed the deposit of an off-ramp already paid out: the loss is booked (reorg-loss); an operator must look',
      );
    }
  }

  get(tenant: Tenant, transactionId: unknown): Promise<TransactionView> {
    return this.process.get(tenant, transactionId);
  }

  /**
   * The sandbox's deposit of a non-custodial off-ramp (test keys only). To an address on a real test chain, it is a
   * transfer from the chain's faucet, recorded like any deposit when the chain service credits it; the answer waits
   * for that. To a simulated address, the deposit is recorded at once with a derived hash.
   */
  async sandboxDeposit(tenant: Tenant, transactionId: unknown, amount: unknown): Promise<TransactionView> {
    sandboxOnly(tenant.environment);
    const { state, history } = await this.process.readOwned(tenant, transactionId);
    const quote = state.initiated.quote;
    const decimals = tokenDecimals(quote.tokenSymbol, quote.chain);
    const value = amount === undefined ? dec(quote.cryptoAmount) : parseAmount(amount, 'amount', decimals);
    const id = state.initiated.transactionId;
    if (state.initiated.depositOnchain) return this.depositFromFaucet(tenant, state, value.toFixed());
    const recorded = await this.process.apply(
      id,
      tenant,
      { type: 'recordDeposit', amount: value.toString(), transactionHash: sandboxHash(id, 'deposit', value.toString()), at: new Date().toISOString() },
      { causationId: `sandbox:${id}`, actor: 'sandbox' },
      undefined,
      // Decided on the stream the ownership was read from (no second read).
      history,
    );
    // As the command left it: no second read.
    return this.process.definition.view(recorded);
  }

  private async depositFromFaucet(tenant: Tenant, state: WithInitiation<OfframpState>, amount: string): Promise<TransactionView> {
    const { transactionId, quote, depositAddress } = state.initiated;
    // Recorded already (asked again): as it stands.
    if (state.deposit || state.status !== 'pending') return this.process.definition.view(state);
    const sent = FaucetSend.signed(
      await this.rpc.call(
        FaucetSend.contract,
        tenant,
        { chain: quote.chain, address: depositAddress!, tokenSymbol: quote.tokenSymbol, amount, idempotencyKey: `offramp-deposit:${transactionId}` },
        { timeoutMs: FAUCET_TIMEOUT_MS },
      ),
    );
    // The off-ramp as the look that found the deposit read it (no read after it).
    const recorded = await this.waits.until(async () => {
      const now = await this.process.ownedBy(tenant, transactionId);
      return now.deposit?.transactionHash === sent.transactionHash ? now : undefined;
    }, SANDBOX_DEPOSIT_WAIT_MS);
    if (!recorded)
      throw new AppError('SERVICE_UNAVAILABLE', `The faucet sent ${sent.transactionHash}, which has not reached the off-ramp yet: read it in a moment`);
    return this.process.definition.view(recorded);
  }

  /** Runs a claimed job of an off-ramp (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    await this.process.runJob(job, (context) => this.steps.perform(context));
  }
}
