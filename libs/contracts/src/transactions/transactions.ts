/**
 * The lists of values a transaction's fields take, declared once: the services use them, and the gateway's DTOs and
 * OpenAPI enums are derived from them (apps/gateway/src/openapi/enums.spec.ts holds the document to them).
 */

/** The four transaction types; each has its quote kind, its initiation and its two integration events. */
export const TRANSACTION_TYPES = ['onramp', 'offramp', 'swap', 'transfer'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** How a transaction ends; the second half of its integration event's name (`offramp.completed`). */
export const TRANSACTION_OUTCOMES = ['completed', 'failed'] as const;
export type TransactionOutcome = (typeof TRANSACTION_OUTCOMES)[number];

/** A transaction is `pending` until it ends in one of its outcomes. */
export const TRANSACTION_STATUSES = ['pending', ...TRANSACTION_OUTCOMES] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** A step of a swap's or transfer's route: a DEX swap on one chain, or a bridge between two. */
export const ROUTE_STEP_KINDS = ['swap', 'bridge'] as const;
export type RouteStepKind = (typeof ROUTE_STEP_KINDS)[number];

/** `reversed`: unwound after a later failure; `skipped`: a failure before it meant it never ran. */
export const ROUTE_STEP_STATUSES = ['pending', 'completed', 'failed', 'reversed', 'skipped'] as const;

/**
 * The hashes of an on-ramp or off-ramp, by what they are: an off-ramp's `deposit` (non-custodial), its `swap` to CNGN,
 * the CNGN's `settlement` to the off-ramp provider and a `refund` of the deposit; an on-ramp's CNGN `mint`, its `swap`
 * to the bought token and the `delivery`.
 */
export const RAMP_HASH_STEPS = ['deposit', 'swap', 'settlement', 'refund', 'mint', 'delivery'] as const;
export type RampHashStep = (typeof RAMP_HASH_STEPS)[number];
export type RouteStepStatus = (typeof ROUTE_STEP_STATUSES)[number];

/** The fiat currency of on-ramps and off-ramps. */
export const FIAT_CURRENCY = 'NGN';
export type FiatCurrency = typeof FIAT_CURRENCY;
