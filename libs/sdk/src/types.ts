import type { components, paths } from './generated/openapi';

/**
 * Every type here is derived from the generated OpenAPI types (./generated/openapi.ts), so that a change of the
 * gateway's document shows up as a type error in the SDK rather than as a surprise in production.
 * Amounts are decimal strings throughout: keep them as strings or use a decimal library, never `Number`.
 */

export type HttpMethod = 'get' | 'post' | 'delete';
/** A path template of the API, relative to the base URL (which ends in /v1), e.g. `/offramp/{transactionId}`. */
export type ApiPath = keyof paths;

/** The paths that have an operation of this method. */
export type PathOf<M extends HttpMethod> = { [P in ApiPath]: paths[P] extends { [K in M]: unknown } ? P : never }[ApiPath];

type Operation<P extends ApiPath, M extends HttpMethod> = M extends keyof paths[P] ? NonNullable<paths[P][M]> : never;
type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Responses<O> = O extends { responses: infer R } ? R : never;
type SuccessBody<O> = JsonContent<Responses<O>[Extract<keyof Responses<O>, 200 | 201>]>;

/** The JSON body an operation takes. */
export type RequestBody<P extends ApiPath, M extends HttpMethod> =
  Operation<P, M> extends { requestBody: infer R } ? JsonContent<R> : Operation<P, M> extends { requestBody?: infer R } ? JsonContent<NonNullable<R>> : never;
/** The `data` of an operation's success envelope. */
export type ResponseData<P extends ApiPath, M extends HttpMethod> = SuccessBody<Operation<P, M>> extends { data: infer D } ? D : never;
/** The query parameters of an operation. */
export type QueryParameters<P extends ApiPath, M extends HttpMethod> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The path parameters of an operation, e.g. `{ transactionId: string }`. */
export type PathParameters<P extends ApiPath, M extends HttpMethod> = Operation<P, M> extends { parameters: { path: infer T } } ? T : never;

type Schemas = components['schemas'];

/** `{ success: false, error }`: `code` is one of the API's error codes; `field` names the field at fault. */
export type ErrorEnvelope = Schemas['ErrorEnvelopeSchema'];
export type ApiErrorCode = Schemas['ErrorBodySchema']['code'];
/** `error.reason`: the precise cause, stable for programs to branch on (each always comes with the same code). */
export type ErrorReason = Schemas['ErrorBodySchema']['reason'];
export type PaginationMeta = Schemas['PaginationMetaSchema'];

/** A page of a list: `data` and the pagination `meta` (page, limit, total, totalPages). */
export interface Page<T> {
  data: T[];
  meta: PaginationMeta;
}

export type Transaction = Schemas['TransactionSchema'];
export type TransactionStatus = Transaction['status'];
export type TransactionType = Transaction['type'];
/** Why a failed transaction failed (`failureReason`, on the Transaction and its failed webhook event). */
export type FailureReason = NonNullable<Transaction['failureReason']>;
export type TransactionListQuery = QueryParameters<'/transactions', 'get'>;

export type OnrampQuoteRequest = RequestBody<'/onramp/quote', 'post'>;
export type OnrampQuote = ResponseData<'/onramp/quote', 'post'>;
export type OfframpQuoteRequest = RequestBody<'/offramp/quote', 'post'>;
export type OfframpQuote = ResponseData<'/offramp/quote', 'post'>;
export type SwapQuoteRequest = RequestBody<'/swap/quote', 'post'>;
export type SwapQuote = ResponseData<'/swap/quote', 'post'>;
export type TransferQuoteRequest = RequestBody<'/transfer/quote', 'post'>;
export type TransferQuote = ResponseData<'/transfer/quote', 'post'>;

export type OnrampInitiateRequest = RequestBody<'/onramp/initiate', 'post'>;
export type OfframpInitiateRequest = RequestBody<'/offramp/initiate', 'post'>;
export type OfframpInitiation = ResponseData<'/offramp/initiate', 'post'>;
export type SwapInitiateRequest = RequestBody<'/swap/initiate', 'post'>;
export type TransferInitiateRequest = RequestBody<'/transfer/initiate', 'post'>;

export type SandboxPaymentRequest = RequestBody<'/sandbox/onramp/{transactionId}/pay', 'post'>;
export type SandboxDepositRequest = RequestBody<'/sandbox/offramp/{transactionId}/deposit', 'post'>;
export type WalletFundRequest = RequestBody<'/sandbox/wallets/{walletId}/fund', 'post'>;
export type FundedWallet = ResponseData<'/sandbox/wallets/{walletId}/fund', 'post'>;
export type FaucetRequest = RequestBody<'/sandbox/faucet', 'post'>;
export type FaucetTransfer = ResponseData<'/sandbox/faucet', 'post'>;
export type SandboxReset = ResponseData<'/sandbox/reset', 'post'>;
export type RelayerRequest = RequestBody<'/sandbox/relayer', 'post'>;
export type RelayerSwitch = ResponseData<'/sandbox/relayer', 'post'>;

export type Bank = Schemas['BankSchema'];
export type BankVerifyRequest = RequestBody<'/onramp/banks/verify', 'post'>;
export type VerifiedAccount = ResponseData<'/onramp/banks/verify', 'post'>;
export type Chain = Schemas['ChainSchema'];

export type Wallet = Schemas['WalletSchema'];
export type WalletCreateRequest = RequestBody<'/wallets', 'post'>;
export type WalletListQuery = QueryParameters<'/wallets', 'get'>;

export type Webhook = Schemas['WebhookSchema'];
/** A webhook as registered: with its signing `secret`, which the API returns only once. */
export type CreatedWebhook = ResponseData<'/webhooks', 'post'>;
export type WebhookCreateRequest = RequestBody<'/webhooks', 'post'>;
export type WebhookDeleted = ResponseData<'/webhooks/{webhookId}', 'delete'>;
export type WebhookDelivery = Schemas['DeliverySchema'];
export type WebhookDeliveryListQuery = QueryParameters<'/webhooks/{webhookId}/deliveries', 'get'>;
