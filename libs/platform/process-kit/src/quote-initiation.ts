import { newId, QuoteConsume, QuotePeek, WalletGet, type QuoteKind, type Tenant, type WalletView } from '@ramp/contracts';
import { beforeAnyEffect, type RpcClient } from '@ramp/messaging';
import { checkWalletSide, parseInitiation, type InitiationRequest, type PayingKind, type QuoteOf, type WalletSide } from '@ramp/transactions';
import type { AllowedHosts } from '@ramp/webhooks';
import type { Fail, FundsHeld, LedgerSteps } from './ledger-steps';
import { isInitiated, type Cause, type InitiatedState, type WithInitiation } from './stream-process';

/** What a kind's own part of an initiation gets: the quote and the wallet, checked, and the new transaction's id. */
export interface Preparation<K extends QuoteKind> {
  transactionId: string;
  quote: QuoteOf<K>;
  /** The managed wallet named by the request (on its quote's chain, and able to pay when it pays). */
  wallet: WalletView | undefined;
  request: InitiationRequest;
  /** The address given instead of a wallet (checked on the quote's chain), and the hold a paying wallet needs. */
  side: WalletSide;
  /** The time of the initiation. */
  at: Date;
}

/** The commands an initiation applies: the initiation, and for a kind whose wallet pays, the hold placed at once. */
export type InitiationCommand<K extends QuoteKind, Data> = { type: 'initiate'; data: Data } | (K extends PayingKind ? FundsHeld | Fail : never);

/** The transaction's stream, as far as an initiation goes (a StreamProcess). */
export interface InitiatedProcess<K extends QuoteKind, State, Data> {
  apply(transactionId: string, tenant: Tenant, command: InitiationCommand<K, Data>, cause: Cause): Promise<State>;
}

export interface QuoteInitiationOptions<K extends QuoteKind, Data, State> {
  kind: K;
  tenant: Tenant;
  /** The request as received: its common fields are checked here (see parseInitiation), the kind's own in `prepare`. */
  request: Record<string, unknown>;
  requestId?: string;
  process: InitiatedProcess<K, State, Data>;
  /**
   * The kind's own checks and reads, which may still refuse (4xx) because the quote is not used yet, and the data of
   * the transaction's initiated event.
   */
  prepare(preparation: Preparation<K>): Promise<Data> | Data;
}

/** The transaction an initiation started, its state initiated. */
export interface NewTransaction<State extends InitiatedState> {
  transactionId: string;
  state: WithInitiation<State>;
}

/** Where a hold that could not be placed at initiation is reported (its job places it shortly). */
export type InitiationLogger = { warn(fields: object, message: string): void };

/**
 * The one way a transaction is initiated from a quote, whatever its kind. Everything that can refuse comes first, so
 * that a refusal leaves the quote usable: the request's fields, then the quote read without using it and the wallet
 * (if one is named) read together, answering SERVICE_UNAVAILABLE with nothing done when either service is down; the
 * wallet checked against the quote (its chain; its available balance when it pays) or the address given instead; the
 * kind's own checks. Then the quote is used, once, for the new transaction, whose stream starts with its initiation
 * and the job of its first step. A paying wallet's funds are held at once, so that its balance shows the hold in the
 * answer; if the ledger cannot be reached now, the job written with the initiation places the hold shortly.
 */
export class QuoteInitiation {
  constructor(
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly ledger: Pick<LedgerSteps, 'placeHold'>,
    private readonly callbackHosts: AllowedHosts,
    private readonly logger: InitiationLogger,
  ) {}

  async initiateFromQuote<K extends QuoteKind, Data, State extends InitiatedState>(
    options: QuoteInitiationOptions<K, Data, State>,
  ): Promise<NewTransaction<State>> {
    const { kind, tenant, requestId, process } = options;
    const request = parseInitiation(kind, options.request, this.callbackHosts);
    const { quoteId, walletId } = request;
    const { quote, wallet } = await beforeAnyEffect(async () => ({
      quote: (await this.rpc.call(QuotePeek.contract, tenant, { quoteId, kind }, { requestId })).quote as QuoteOf<K>,
      wallet: walletId ? await this.rpc.call(WalletGet.contract, tenant, { walletId }, { requestId }) : undefined,
    }));
    const side = checkWalletSide(kind, request, quote, wallet);
    const transactionId = newId('txn');
    const data = await options.prepare({ transactionId, quote, wallet, request, side, at: new Date() });

    await this.rpc.call(QuoteConsume.contract, tenant, { quoteId, kind, consumer: transactionId }, { requestId });
    const cause = initiationCause(tenant, transactionId, requestId);
    let state = await process.apply(transactionId, tenant, { type: 'initiate', data }, cause);
    if (side.hold) {
      try {
        const placed = await this.ledger.placeHold(tenant, transactionId, side.hold);
        // Only a paying kind has a hold (see checkWalletSide), and its process takes the hold's commands.
        state = await process.apply(transactionId, tenant, placed as InitiationCommand<K, Data>, cause);
      } catch (error) {
        this.logger.warn({ err: error, transactionId }, 'hold not placed at initiation; its job places it');
      }
    }
    // The decider's initiated event was just appended: a state without it is a defect of the kind's decider.
    if (!isInitiated(state)) throw new Error(`${transactionId} has no initiation after its initiate command`);
    return { transactionId, state };
  }
}

/** The cause of what an initiation records: the request (or the transaction, without a request id) and its key. */
export function initiationCause(tenant: Tenant, transactionId: string, requestId: string | undefined): Cause {
  return { causationId: requestId ?? transactionId, actor: `key:${tenant.keyId}`, requestId };
}
