import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { parseAddress } from '@ramp/chains';
import { Config } from '@ramp/config';
import { invalidField, newId, notFound, QuoteConsume, QuotePeek, WalletCredit, WalletGet, type OnrampQuote, type Tenant } from '@ramp/contracts';
import { beforeAnyEffect, RpcClient } from '@ramp/messaging';
import { dec, parseAmount } from '@ramp/money';
import type { OnrampRails } from '@ramp/providers';
import { cngnToMint, nextOnrampStep, onrampDecider, onrampView, type OnrampCommand, type OnrampEvent, type OnrampState, type OnrampStep } from '@ramp/ramping';
import type { TransactionView } from '@ramp/transactions';
import { PG_POOL } from '@ramp/service-kit';
import { checkWalletChain, JobQueue, optionalString, parseCallbackUrl, StreamProcess, type Job } from '@ramp/process-kit';
import { RAMP_LOG } from '../process/log';
import { AllowedHosts } from '@ramp/webhooks';

export const ONRAMP_RAILS = Symbol('ONRAMP_RAILS');
/** Where delivered tokens come from in the ledger: the platform's liquidity outside it. */
const ONRAMP_LIQUIDITY = 'onramp-liquidity';

/** The on-ramp use cases: initiation with payment instructions, reads, the sandbox payment, and each step. */
@Injectable()
export class OnrampService {
  private readonly stepDelayMs: number;
  private readonly paymentWindowSeconds: number;
  readonly process: StreamProcess<OnrampState, OnrampCommand, OnrampEvent, OnrampStep>;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(ONRAMP_RAILS) private readonly rails: OnrampRails,
    @Inject(JobQueue) jobs: JobQueue,
    @Inject(Config) config: Config,
    @Inject(AllowedHosts) private readonly callbackHosts: AllowedHosts,
  ) {
    this.stepDelayMs = config.int('sandboxStepDelayMs');
    this.paymentWindowSeconds = config.int('sandboxDepositWindowSeconds', 1);
    this.process = new StreamProcess(pool, RAMP_LOG, jobs, {
      systemActor: 'system:ramp',
      prefix: 'onramp',
      decider: onrampDecider,
      nextStep: nextOnrampStep,
      dueAt: (step) => this.dueAt(step),
      tenantOf: (state) => state.initiated?.tenant,
    });
  }

  /** Checks the quote (without using it) and the wallet or address, then uses the quote and opens the virtual account. */
  async initiate(tenant: Tenant, request: Record<string, unknown>, requestId?: string): Promise<TransactionView> {
    if (typeof request['quoteId'] !== 'string' || request['quoteId'] === '') throw invalidField('quoteId', 'is required');
    const quoteId = request['quoteId'];
    const walletId = optionalString(request['walletId'], 'walletId');
    const addressRaw = optionalString(request['destinationAddress'], 'destinationAddress');
    if (walletId && addressRaw) throw invalidField('walletId', 'give walletId (a managed wallet) or destinationAddress, not both');
    if (!walletId && !addressRaw) throw invalidField('walletId', 'is required unless destinationAddress is given');
    const reference = optionalString(request['reference'], 'reference') ?? null;
    const callbackUrl = parseCallbackUrl(request['callbackUrl'], this.callbackHosts);

    const { quote, wallet } = await beforeAnyEffect(async () => ({
      quote: (await this.rpc.call(QuotePeek.contract, tenant, { quoteId, kind: 'onramp' }, { requestId })).quote as OnrampQuote.Response,
      wallet: walletId ? await this.rpc.call(WalletGet.contract, tenant, { walletId }, { requestId }) : undefined,
    }));
    let destinationAddress: string | null = null;
    if (wallet) checkWalletChain(wallet, quote.chain);
    else destinationAddress = parseAddress(quote.chain as 'base', addressRaw, 'destinationAddress');

    const transactionId = newId('txn');
    await this.rpc.call(QuoteConsume.contract, tenant, { quoteId, kind: 'onramp', consumer: transactionId }, { requestId });
    const now = new Date();
    const virtualAccount = this.rails.virtualAccount({
      transactionId,
      amount: quote.fiatAmount,
      expiresAt: new Date(now.getTime() + this.paymentWindowSeconds * 1000).toISOString(),
    });
    const state = await this.process.apply(
      transactionId,
      tenant,
      {
        type: 'initiate',
        data: { transactionId, tenant, quote, walletId: walletId ?? null, destinationAddress, virtualAccount, reference, callbackUrl, at: now.toISOString() },
      },
      { causationId: requestId ?? transactionId, actor: `key:${tenant.keyId}`, requestId },
    );
    return onrampView(state);
  }

  async get(tenant: Tenant, transactionId: unknown): Promise<TransactionView> {
    return onrampView(await this.process.ownedBy(tenant, transactionId));
  }

  /** The sandbox's NGN payment into the virtual account (test keys only). */
  async sandboxPayment(tenant: Tenant, transactionId: unknown, amount: unknown): Promise<TransactionView> {
    if (tenant.environment !== 'test') throw notFound('Sandbox endpoints exist for test keys only');
    const state = await this.process.ownedBy(tenant, transactionId);
    const id = state.initiated!.transactionId;
    const value = amount === undefined ? dec(state.initiated!.virtualAccount.amount) : parseAmount(amount, 'amount', 2);
    await this.process.apply(
      id,
      tenant,
      { type: 'recordPayment', amount: value.toFixed(2), payerReference: `SANDBOX-${id.slice(-10)}`, at: new Date().toISOString() },
      { causationId: `sandbox:${id}`, actor: 'sandbox' },
    );
    return this.get(tenant, id);
  }

  /** Runs a claimed job of an on-ramp (see StreamProcess.runJob). */
  async runStep(job: Job): Promise<void> {
    await this.process.runJob(job, ({ transactionId, state, step, tenant }) => this.perform(transactionId, state, step, tenant));
  }

  /** Performs one step and answers the command that records its outcome. */
  private async perform(transactionId: string, state: OnrampState, step: OnrampStep, tenant: Tenant): Promise<OnrampCommand> {
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
          await this.rpc.call(WalletCredit.contract, tenant, { entryId: transactionId, walletId, tokenSymbol: quote.tokenSymbol, amount, source: ONRAMP_LIQUIDITY });
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
        return { type: 'fail', reason: state.failing ?? 'failed', at: at() };
      case 'none':
        throw new Error(`${transactionId} has no step to perform`);
    }
  }

  private dueAt(step: OnrampStep): Date {
    if (step.kind === 'awaitPayment') return new Date(step.until);
    if (step.kind === 'mintCngn' || step.kind === 'swapFromCngn' || step.kind === 'deliver') return new Date(Date.now() + this.stepDelayMs);
    return new Date();
  }
}
