import {
  AuthenticationError,
  ConflictError,
  errorFromResponse,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RampError,
  RateLimitError,
  ServiceUnavailableError,
} from './errors';
import type { ErrorReason as PlatformReason, FailureReason as PlatformFailureReason } from '@ramp/contracts';
import type { ErrorReason, FailureReason } from './types';

// The SDK's reason unions (generated from the OpenAPI document) are exactly the platform's catalogues, both ways
// (checked by the type check): a reason added on one side only fails the build.
const _reasonToSdk = (reason: PlatformReason): ErrorReason => reason;
const _reasonToPlatform = (reason: ErrorReason): PlatformReason => reason;
const _failureToSdk = (reason: PlatformFailureReason): FailureReason => reason;
const _failureToPlatform = (reason: FailureReason): PlatformFailureReason => reason;

const envelope = (code: string, message: string, field?: string) => JSON.stringify({ success: false, error: { code, message, ...(field ? { field } : {}) } });

describe('errors - the envelope becomes a typed error', () => {
  it.each([
    [400, 'INVALID_REQUEST', InvalidRequestError],
    [401, 'UNAUTHORIZED', AuthenticationError],
    [403, 'FORBIDDEN', PermissionError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'CONFLICT', ConflictError],
    [429, 'RATE_LIMITED', RateLimitError],
    [500, 'INTERNAL_ERROR', InternalServerError],
    [503, 'SERVICE_UNAVAILABLE', ServiceUnavailableError],
  ])('%i %s', (status, code, Class) => {
    const error = errorFromResponse({ status, text: envelope(code, `${code} happened`), requestId: 'req_1' });
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(RampError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code, status, message: `${code} happened`, requestId: 'req_1', name: Class.name });
    expect(error.rawBody).toBeUndefined();
  });

  it('carries the reason, typed, for programs to branch on', () => {
    const text = JSON.stringify({
      success: false,
      error: { code: 'INVALID_REQUEST', reason: 'QUOTE_EXPIRED', message: 'quoteId: the quote expired', field: 'quoteId' },
    });
    const error = errorFromResponse({ status: 400, text });
    const reason: ErrorReason | undefined = error.reason;
    expect(reason).toBe('QUOTE_EXPIRED');
    expect(errorFromResponse({ status: 502, text: '<html>bad gateway</html>' }).reason).toBeUndefined();
  });

  it('carries the field at fault and Retry-After', () => {
    const invalid = errorFromResponse({ status: 400, text: envelope('INVALID_REQUEST', 'amount: must be greater than zero', 'amount') });
    expect(invalid).toMatchObject({ code: 'INVALID_REQUEST', field: 'amount' });
    const limited = errorFromResponse({ status: 429, text: envelope('RATE_LIMITED', 'Rate limit exceeded; retry in 2 seconds'), retryAfter: 2 });
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 2, field: undefined });
  });

  it("trusts the envelope's code over the status (413 is INVALID_REQUEST)", () => {
    expect(errorFromResponse({ status: 413, text: envelope('INVALID_REQUEST', 'body: too large') })).toBeInstanceOf(InvalidRequestError);
  });

  it('keeps a code this SDK does not know, as a plain RampError', () => {
    const error = errorFromResponse({ status: 402, text: envelope('PAYMENT_REQUIRED', 'pay up') });
    expect(error.constructor).toBe(RampError);
    expect(error.code).toBe('PAYMENT_REQUIRED');
  });
});

describe('errors - a response that is not the envelope still becomes a typed error', () => {
  it("a proxy's HTML 502 is SERVICE_UNAVAILABLE with the page kept", () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>';
    const error = errorFromResponse({ status: 502, statusText: 'Bad Gateway', text: html });
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 502, rawBody: html });
    expect(error.message).toBe("HTTP 502 Bad Gateway without the API's error envelope");
  });

  it.each([
    [401, '', AuthenticationError],
    [404, 'Not Found', NotFoundError],
    [429, 'slow down', RateLimitError],
    [500, '{"message":"boom"}', InternalServerError],
    [504, '', ServiceUnavailableError],
    [418, '{"success":false}', InvalidRequestError],
    [400, '{"success":false,"error":{"code":5}}', InvalidRequestError],
  ])('%i with %p', (status, text, Class) => {
    expect(errorFromResponse({ status, text })).toBeInstanceOf(Class);
  });

  it('cuts a large body to 2 KiB', () => {
    expect(errorFromResponse({ status: 500, text: 'x'.repeat(10_000) }).rawBody).toHaveLength(2048);
  });
});
