import { waitForTransaction, type WaitOptions } from './polling';
import { Transport, type RequestOptions, type TransportOptions } from './transport';
import type {
  Bank,
  BankVerifyRequest,
  Chain,
  CreatedWebhook,
  OfframpInitiateRequest,
  OfframpInitiation,
  OfframpQuote,
  OfframpQuoteRequest,
  OnrampInitiateRequest,
  OnrampQuote,
  OnrampQuoteRequest,
  Page,
  PathOf,
  PathParameters,
  QueryParameters,
  RequestBody,
  ResponseData,
  SandboxDepositRequest,
  SandboxPaymentRequest,
  SandboxReset,
  SwapInitiateRequest,
  SwapQuote,
  SwapQuoteRequest,
  Transaction,
  TransactionListQuery,
  TransferInitiateRequest,
  TransferQuote,
  TransferQuoteRequest,
  VerifiedAccount,
  Wallet,
  WalletCreateRequest,
  WalletFundRequest,
  FundedWallet,
  FaucetRequest,
  FaucetTransfer,
  RelayerRequest,
  RelayerSwitch,
  WalletListQuery,
  Webhook,
  WebhookCreateRequest,
  WebhookDeleted,
  WebhookDelivery,
  WebhookDeliveryListQuery,
} from './types';

/** How the client reaches the API: key, base URL, timeouts, retries and hooks (see TransportOptions). */
export type RampClientOptions = TransportOptions;

type PathArgs<P extends ApiPathOf, M extends 'get' | 'post' | 'delete'> = [PathParameters<P, M>] extends [never] ? undefined : PathParameters<P, M>;
type ApiPathOf = PathOf<'get'> | PathOf<'post'> | PathOf<'delete'>;
type Item<T> = T extends (infer I)[] ? I : never;

/**
 * The client of the Ramp, Swap and Cross-Chain Transfer API. Every method resolves to the response's `data`
 * (lists to `{ data, meta }`) and rejects with a RampError subclass carrying the API's error code.
 *
 * Every POST carries an Idempotency-Key (a random UUID unless `options.idempotencyKey` is given) that its retries
 * reuse, so a retried initiation never starts a second transaction.
 */
export class RampClient {
  private readonly transport: Transport;

  constructor(options: RampClientOptions) {
    this.transport = new Transport(options);
  }

  /** The typed core of every method: the path template decides the body and the answer (from the OpenAPI types). */
  private async post<P extends PathOf<'post'>>(
    path: P,
    body: RequestBody<P, 'post'>,
    options?: RequestOptions,
    parameters?: PathArgs<P, 'post'>,
  ): Promise<ResponseData<P, 'post'>> {
    return (await this.transport.send<ResponseData<P, 'post'>>({ method: 'post', path, body, pathParameters: parameters }, options)).data;
  }

  private async get<P extends PathOf<'get'>>(path: P, options?: RequestOptions, parameters?: PathArgs<P, 'get'>): Promise<ResponseData<P, 'get'>> {
    return (await this.transport.send<ResponseData<P, 'get'>>({ method: 'get', path, pathParameters: parameters }, options)).data;
  }

  private async list<P extends PathOf<'get'>>(
    path: P,
    query: QueryParameters<P, 'get'>,
    options?: RequestOptions,
    parameters?: PathArgs<P, 'get'>,
  ): Promise<Page<Item<ResponseData<P, 'get'>>>> {
    const envelope = await this.transport.send<Item<ResponseData<P, 'get'>>[]>({ method: 'get', path, pathParameters: parameters, query }, options);
    if (!envelope.meta) throw new TypeError(`${path} answered a list without meta`);
    return { data: envelope.data, meta: envelope.meta };
  }

  readonly onramp = {
    /** A quote for buying crypto with NGN: valid 5 minutes, usable once. */
    quote: (body: OnrampQuoteRequest, options?: RequestOptions): Promise<OnrampQuote> => this.post('/onramp/quote', body, options),
    /** Starts an on-ramp; the pending Transaction carries `paymentInstructions` (the virtual account to pay). */
    initiate: (body: OnrampInitiateRequest, options?: RequestOptions): Promise<Transaction> => this.post('/onramp/initiate', body, options),
    get: (transactionId: string, options?: RequestOptions): Promise<Transaction> => this.get('/onramp/{transactionId}', options, { transactionId }),
    /** Polls the on-ramp until it is completed or failed (see WaitOptions). */
    waitFor: (transactionId: string, options?: WaitOptions): Promise<Transaction> =>
      waitForTransaction(() => this.onramp.get(transactionId, { signal: options?.signal }), options),
  };

  readonly offramp = {
    /** A quote for selling crypto for NGN paid to a bank account (verified, with its holder's name). */
    quote: (body: OfframpQuoteRequest, options?: RequestOptions): Promise<OfframpQuote> => this.post('/offramp/quote', body, options),
    /** Starts an off-ramp: custodial with `walletId`, or non-custodial with `sourceAddress` (send to `depositAddress`). */
    initiate: (body: OfframpInitiateRequest, options?: RequestOptions): Promise<OfframpInitiation> => this.post('/offramp/initiate', body, options),
    get: (transactionId: string, options?: RequestOptions): Promise<Transaction> => this.get('/offramp/{transactionId}', options, { transactionId }),
    /** Polls the off-ramp until it is completed or failed (see WaitOptions). */
    waitFor: (transactionId: string, options?: WaitOptions): Promise<Transaction> =>
      waitForTransaction(() => this.offramp.get(transactionId, { signal: options?.signal }), options),
  };

  readonly swap = {
    quote: (body: SwapQuoteRequest, options?: RequestOptions): Promise<SwapQuote> => this.post('/swap/quote', body, options),
    /** Executes a swap quote from a managed wallet; answers the pending Transaction. */
    initiate: (body: SwapInitiateRequest, options?: RequestOptions): Promise<Transaction> => this.post('/swap/initiate', body, options),
    get: (transactionId: string, options?: RequestOptions): Promise<Transaction> => this.get('/swap/{transactionId}', options, { transactionId }),
    waitFor: (transactionId: string, options?: WaitOptions): Promise<Transaction> =>
      waitForTransaction(() => this.swap.get(transactionId, { signal: options?.signal }), options),
  };

  readonly transfer = {
    quote: (body: TransferQuoteRequest, options?: RequestOptions): Promise<TransferQuote> => this.post('/transfer/quote', body, options),
    /** Executes a transfer quote from a managed wallet; answers the pending Transaction. */
    initiate: (body: TransferInitiateRequest, options?: RequestOptions): Promise<Transaction> => this.post('/transfer/initiate', body, options),
    get: (transactionId: string, options?: RequestOptions): Promise<Transaction> => this.get('/transfer/{transactionId}', options, { transactionId }),
    waitFor: (transactionId: string, options?: WaitOptions): Promise<Transaction> =>
      waitForTransaction(() => this.transfer.get(transactionId, { signal: options?.signal }), options),
    /** The supported chains with their tokens. */
    chains: (options?: RequestOptions): Promise<Chain[]> => this.get('/transfer/chains', options),
  };

  readonly banks = {
    /** Nigerian banks and their codes. */
    list: (options?: RequestOptions): Promise<Bank[]> => this.get('/onramp/banks', options),
    /** Checks an account number (NUBAN) and returns its holder's name. */
    verify: (body: BankVerifyRequest, options?: RequestOptions): Promise<VerifiedAccount> => this.post('/onramp/banks/verify', body, options),
  };

  readonly wallets = {
    /** Creates a managed (gas-sponsored smart account) wallet on base or bsc. */
    create: (body: WalletCreateRequest, options?: RequestOptions): Promise<Wallet> => this.post('/wallets', body, options),
    list: (query: WalletListQuery = {}, options?: RequestOptions): Promise<Page<Wallet>> => this.list('/wallets', query, options),
    get: (walletId: string, options?: RequestOptions): Promise<Wallet> => this.get('/wallets/{walletId}', options, { walletId }),
  };

  readonly transactions = {
    /** Transactions of every type, newest first; filters `type`, `status`, `chain`, `walletId`, `from`, `to`. */
    list: (query: TransactionListQuery = {}, options?: RequestOptions): Promise<Page<Transaction>> => this.list('/transactions', query, options),
    /** Any transaction. The list and this read follow the services' events within milliseconds; the per-type reads are current at once. */
    get: (transactionId: string, options?: RequestOptions): Promise<Transaction> => this.get('/transactions/{transactionId}', options, { transactionId }),
  };

  readonly webhooks = {
    /** Registers an HTTPS URL for event names (or `*`). Store the returned `secret`: it is shown only here. */
    create: (body: WebhookCreateRequest, options?: RequestOptions): Promise<CreatedWebhook> => this.post('/webhooks', body, options),
    /** The registered webhooks, without their secrets. */
    list: (options?: RequestOptions): Promise<Webhook[]> => this.get('/webhooks', options),
    delete: async (webhookId: string, options?: RequestOptions): Promise<WebhookDeleted> =>
      (await this.transport.send<WebhookDeleted>({ method: 'delete', path: '/webhooks/{webhookId}', pathParameters: { webhookId } }, options)).data,
    /** Queues a signed `webhook.test` event to this webhook. */
    test: (webhookId: string, options?: RequestOptions): Promise<WebhookDelivery> => this.post('/webhooks/{webhookId}/test', {}, options, { webhookId }),
    /** The webhook's deliveries with every attempt, newest first. */
    deliveries: (webhookId: string, query: WebhookDeliveryListQuery = {}, options?: RequestOptions): Promise<Page<WebhookDelivery>> =>
      this.list('/webhooks/{webhookId}/deliveries', query, options, { webhookId }),
    /** Sends one delivery again now. */
    retryDelivery: (webhookId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> =>
      this.post('/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {}, options, { webhookId, deliveryId }),
  };

  /** Test keys only (a live key gets NOT_FOUND): drive the sandbox providers. */
  readonly sandbox = {
    /** The test chain's faucet sends tokens to a managed wallet's address; resolves once credited, with the transfer's hash. */
    fundWallet: (walletId: string, body: WalletFundRequest, options?: RequestOptions): Promise<FundedWallet> =>
      this.post('/sandbox/wallets/{walletId}/fund', body, options, { walletId }),
    /** Test tokens (or the test coin) from a local test chain's faucet to any address; resolves with the transfer's hash. */
    faucet: (body: FaucetRequest, options?: RequestOptions): Promise<FaucetTransfer> => this.post('/sandbox/faucet', body, options),
    /** The crypto of a non-custodial off-ramp arrives (by default the quoted amount). */
    depositOfframp: (transactionId: string, body: SandboxDepositRequest = {}, options?: RequestOptions): Promise<Transaction> =>
      this.post('/sandbox/offramp/{transactionId}/deposit', body, options, { transactionId }),
    /** The NGN payment of an on-ramp arrives (by default the expected amount). */
    payOnramp: (transactionId: string, body: SandboxPaymentRequest = {}, options?: RequestOptions): Promise<Transaction> =>
      this.post('/sandbox/onramp/{transactionId}/pay', body, options, { transactionId }),
    /**
     * Holds (`paused: true`) or releases the bridge relayer for your organization: held, the bridge deposits of your
     * swaps and transfers between the test chains are refunded after their deadline, and the transactions fail with
     * BRIDGE_FAILED.
     */
    relayer: (body: RelayerRequest, options?: RequestOptions): Promise<RelayerSwitch> => this.post('/sandbox/relayer', body, options),
    /**
     * Empties your organization's test environment: wallets, balances, transactions, webhooks, quotes and stored
     * Idempotency-Key responses are gone for every test key of the organization once this resolves.
     */
    reset: (options?: RequestOptions): Promise<SandboxReset> => this.post('/sandbox/reset', {}, options),
  };
}
