import type { ErrorCode } from './codes';
import { ERROR_REASONS, GENERIC_REASON_OF, isErrorReason, type ErrorReason } from './reasons';

export * from './codes';

/** The error object of the envelope: `{ success: false, error: ErrorBody }`. */
export interface ErrorBody {
  code: ErrorCode;
  /** A stable name of the precise cause, from ERROR_REASONS, for programs to branch on. */
  reason: ErrorReason;
  message: string;
  /** The request field at fault, for INVALID_REQUEST. */
  field?: string;
}

/**
 * A typed, expected failure: it crosses NATS as data and becomes the envelope at the gateway. It is made from its
 * reason, which decides its code. Anything thrown that is not an AppError is a bug and is reported as
 * INTERNAL_ERROR without its message.
 */
export class AppError extends Error {
  readonly code: ErrorCode;

  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AppError';
    this.code = ERROR_REASONS[reason].code;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, reason: this.reason, message: this.message };
    if (this.field !== undefined) body.field = this.field;
    return body;
  }

  /** Back from the wire: a reason this peer does not know (a newer one) falls back to its code's generic reason. */
  static fromBody(body: Pick<ErrorBody, 'code' | 'message' | 'field'> & { reason?: unknown }): AppError {
    const reason = isErrorReason(body.reason) && ERROR_REASONS[body.reason].code === body.code ? body.reason : GENERIC_REASON_OF[body.code];
    return new AppError(reason, body.message, body.field);
  }
}

/** INVALID_REQUEST naming the field and the rule it broke: `amount: must be greater than zero`. */
export function invalidField(field: string, rule: string, reason: ErrorReason = 'INVALID_FIELD'): AppError {
  return new AppError(reason, `${field}: ${rule}`, field);
}

/**
 * The guard of every sandbox route and handler: SANDBOX_ONLY unless each environment given (the caller key's, and a
 * request's own where it names one) is `test`. A missing one is not a test key either.
 */
export function sandboxOnly(...environments: (string | undefined)[]): void {
  if (environments.length === 0 || environments.some((environment) => environment !== 'test'))
    throw new AppError('SANDBOX_ONLY', 'Sandbox endpoints exist for test keys only');
}

/**
 * A deposit address asked of the chain service for a chain the key's environment does not run (its UNSUPPORTED_CHAIN):
 * undefined for a test key, whose caller then uses a simulated address the sandbox plays; LIVE_MODE_DISABLED for a live
 * key, since real funds sent to an address nobody watches or can sign for would be lost. Any other error is thrown on.
 */
export async function depositAddressOrSimulated(environment: string, chain: string, watch: () => Promise<string>): Promise<string | undefined> {
  try {
    return await watch();
  } catch (error) {
    if (!(error instanceof AppError && error.reason === 'UNSUPPORTED_CHAIN')) throw error;
    if (environment !== 'test')
      throw new AppError('LIVE_MODE_DISABLED', `${chain} has no live chain on this platform yet: a deposit address must be one it watches on chain`, 'chain');
    return undefined;
  }
}
