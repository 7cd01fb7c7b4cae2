import { Inject, Injectable } from '@nestjs/common';
import { Config } from '@ramp/config';
import { AppError, sandboxOnly, type InitiatedTransaction, type Tenant } from '@ramp/contracts';
import { dec, parseAmount } from '@ramp/money';
import { ChainLegs, LedgerSteps, ProcessFactory, QuoteInitiation, type Job, type StreamProcess } from '@ramp/process-kit';
import type { OnrampRails } from '@ramp/providers';
import {
  nextOnrampStep,
  parseOnrampCustomer,
  onrampDecider,
  onrampView,
  type OnrampCommand,
  type OnrampEvent,
  type OnrampState,
  type OnrampStep,
  type RampSettlement,
} from '@ramp/ramping';
import { initiationOf, type TransactionView } from '@ramp/transactions';
import { RpcClient } from '@ramp/messaging';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { ApprovalGate, approvalThreshold } from '../approvals/approval-gate';
import { DenylistFile } from '../screening/denylist-file';
import { OnrampCollectionAccounts } from './onramp-collections';
import { OnrampSteps } from './onramp.steps';

export const ONRAMP_RAILS = Symbol('ONRAMP_RAILS');

/** The on-ramp use cases: initiation with payment instructions, reads, the sandbox payment, and each step (OnrampSteps). */
@Injectable()
export class OnrampService {
  private readonly paymentWindowSeconds: number;
  private readonly steps: OnrampSteps;
  readonly process: StreamProcess<OnrampState, OnrampCommand, OnrampEvent, OnrampStep>;

  constructor(
    @Inject(ProcessFactory) processes: ProcessFactory,
    @Inject(ChainLegs) private readonly chain: ChainLegs,
    @Inject(ONRAMP_RAILS) private readonly rails: OnrampRails,
    @Inject(LedgerSteps) ledger: LedgerSteps,
    @Inject(QuoteInitiation) private readonly initiation: QuoteInitiation,
    @Inject(Config) config: Config,
    @Inject(OnrampCollectionAccounts) private readonly collections: OnrampCollectionAccounts,
    @Inject(LOGGER) logger: Logger,
    @Inject(RpcClient) rpc: RpcClient,
    @Inject(DenylistFile) screening: DenylistFile,
  ) {
    this.paymentWindowSeconds = config.int('sandboxDepositWindowSeconds', 1);
    this.steps = new OnrampSteps(
      rails,
      ledger,
      this.chain,
      config.int('sandboxStepDelayMs'),
      collections,
      new ApprovalGate(approvalThreshold(config.string('liveApprovalAboveNgn')), logger),
      rpc,
      screening,
      logger,
    );
    this.process = processes.define({
      prefix: 'onramp',
      decider: onrampDecider,
      nextStep: nextOnrampStep,
      dueAt: (step, state) => this.steps.dueAt(step, state),
      view: onrampView,
    });
  }

  /**
   * Initiates an on-ramp from its quote (see QuoteInitiation) to a managed wallet on the quote's chain or to
   * `destinationAddress`, with the virtual account to pay the NGN into: the sandbox's (test keys), or the payer's
   * dedicated account opened at a bank partner (live keys, COLLECTION_PROVIDERS), with the on-ramp's exact amount.
   */
  async initiate(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<InitiatedTransaction> {
    // Checked before the quote is used: a payer refused leaves the quote as it was. The sandbox's account needs none.
    const payer = parseOnrampCustomer(request.customer, tenant.environment);
    const live = tenant.environment === 'live';
    // A live key with no collection partner is refused here too (LIVE_MODE_DISABLED), never given the sandbox's account.
    if (live) this.collections.live();
    const { state } = await this.initiation.initiateFromQuote({
      kind: 'onramp',
      tenant,
      request,
      requestId,
      process: this.process,
      prepare: async ({ transactionId, quote, request: initiation, side, at }) => {
        // Decided before the payer's account is opened: a live on-ramp refused here has asked nothing of the partner.
        const settlement = await this.settlementOf(tenant, quote.chain);
        if (live && quote.tokenSymbol === 'CNGN' && initiation.walletId) {
          // A forwarder wallet's CNGN is the hot wallet's already: its delivery would be a credit with no transaction of
          // its own to show, which a live on-ramp's view must have.
          throw new AppError('LIVE_MODE_DISABLED', 'A live on-ramp of CNGN into a managed wallet is not offered yet: give a destinationAddress', 'walletId');
        }
        const expiresAt = new Date(at.getTime() + this.paymentWindowSeconds * 1000).toISOString();
        const collected = live
          ? await this.collections.open(tenant, transactionId, payer!, quote.fiatAmount, expiresAt)
          : { virtualAccount: this.rails.virtualAccount({ transactionId, amount: quote.fiatAmount, expiresAt }) };
        return {
          transactionId,
          tenant,
          quote,
          walletId: initiation.walletId ?? null,
          destinationAddress: side.address,
          ...collected,
          reference: initiation.reference,
          callbackUrl: initiation.callbackUrl,
          ...(settlement === 'onchain' && { settlement }),
          at: at.toISOString(),
        };
      },
    });
    return initiationOf(onrampView(state));
  }

  /**
   * Where the on-ramp's CNGN, swap and delivery run: on chain where the chain service has the platform's pools and a
   * faucet (the sandbox issuer that mints the CNGN) on the quote's chain, on the sandbox's rails elsewhere. A live
   * on-ramp runs on its live chain, from the treasury's CNGN in the hot wallet (no mint), swapped on the chain's DEX.
   * One initiated while the chain service does not run its chain (a quote the quote service would have refused, written
   * by hand; the chain taken out since) is recorded as before live chains: its CNGN steps refuse for a live key, so
   * once paid it waits for an operator (its step's error names it), never simulated. Its collection still works.
   */
  private async settlementOf(tenant: Tenant, chain: string): Promise<RampSettlement> {
    const network = await this.chain.network(tenant.environment, chain);
    if (tenant.environment === 'live') return network ? 'onchain' : 'simulated';
    return network?.contracts.dex && network.faucet ? 'onchain' : 'simulated';
  }

  get(tenant: Tenant, transactionId: unknown): Promise<TransactionView> {
    return this.process.get(tenant, transactionId);
  }

  /** The sandbox's NGN payment into the virtual account (test keys only). */
  async sandboxPayment(tenant: Tenant, transactionId: unknown, amount: unknown): Promise<TransactionView> {
    sandboxOnly(tenant.environment);
    const { state, history } = await this.process.readOwned(tenant, transactionId);
    const id = state.initiated.transactionId;
    const value = amount === undefined ? dec(state.initiated.virtualAccount.amount) : parseAmount(amount, 'amount', 2);
    // Decided on the stream the ownership was read from (no second read).
    const recorded = await this.process.apply(
      id,
      tenant,
      { type: 'recordPayment', amount: value.toFixed(2), payerReference: `SANDBOX-${id.slice(-10)}`, at: new Date().toISOString() },
      { causationId: `sandbox:${id}`, actor: 'sandbox' },
      undefined,
      history,
    );
    // As the command left it: no second read.
    return this.process.definition.view(recorded);
  }

  /** Runs a claimed job of an on-ramp (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    await this.process.runJob(job, (context) => this.steps.perform(context));
  }
}
