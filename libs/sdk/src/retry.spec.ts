import { backoffDelay, DEFAULT_RETRY, isRetryable, parseRetryAfter, retryDelay } from './retry';

describe('retries - which failures are retried', () => {
  it.each([
    ['get', 429, true],
    ['post', 429, true],
    ['delete', 429, true],
    ['get', 503, true],
    ['get', 500, true],
    ['post', 503, false],
    ['post', 500, false],
    ['get', 502, true],
    ['post', 502, true],
    ['post', 504, true],
    ['delete', 503, false],
    ['post', 501, false],
    ['post', 400, false],
    ['post', 401, false],
    ['get', 403, false],
    ['get', 404, false],
    ['post', 409, false],
    ['post', 413, false],
  ] as const)('%s answered %i: retried %s', (method, status, expected) => {
    expect(isRetryable(method, { status })).toBe(expected);
  });

  it('retries a POST answered 503 only when the gateway said when (nothing ran), never one whose outcome is unknown', () => {
    expect(isRetryable('post', { status: 503, retryAfter: true })).toBe(true);
    expect(isRetryable('post', { status: 503, retryAfter: false })).toBe(false);
    expect(isRetryable('post', { status: 500, retryAfter: true })).toBe(false);
    expect(isRetryable('delete', { status: 503, retryAfter: true })).toBe(false);
  });

  it('retries a request that got no response when it is a POST (Idempotency-Key) or a GET, never a DELETE', () => {
    expect(isRetryable('post', { networkError: true })).toBe(true);
    expect(isRetryable('get', { networkError: true })).toBe(true);
    expect(isRetryable('delete', { networkError: true })).toBe(false);
  });
});

describe('retries - Retry-After', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date, a past one as now', () => {
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:59:00 GMT', now)).toBe(0);
  });

  it.each([null, undefined, '', '-1', '1.5', 'soon', '12abc'])('ignores %p', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('retries - exponential backoff with jitter', () => {
  const options = { baseDelayMs: 500, maxDelayMs: 8000 };

  it('doubles from the base on each retry, between half and all of the step', () => {
    expect([1, 2, 3, 4].map((retry) => backoffDelay(retry, options, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((retry) => backoffDelay(retry, options, () => 0.999999))).toEqual([500, 1000, 2000, 4000]);
  });

  it('never grows past maxDelayMs', () => {
    expect(backoffDelay(20, options, () => 0.999999)).toBe(8000);
    expect(backoffDelay(20, options, () => 0)).toBe(4000);
  });

  it('spreads clients that failed together', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(3, options)));
    expect(delays.size).toBeGreaterThan(10);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(1000);
  });
});

describe('retries - the delay before each retry', () => {
  const policy = { ...DEFAULT_RETRY, maxAttempts: 3 };

  it('waits at least Retry-After when the server gave one, even beyond the backoff', () => {
    for (const random of [0, 0.5, 0.999]) {
      const delay = retryDelay(1, 5000, policy, () => random)!;
      expect(delay).toBeGreaterThanOrEqual(5000);
      expect(delay).toBeLessThan(5000 + 500);
    }
    expect(retryDelay(1, 0, policy, () => 0)).toBe(0);
  });

  it('uses the backoff without Retry-After', () => {
    expect(retryDelay(2, undefined, policy, () => 0)).toBe(backoffDelay(2, policy, () => 0));
  });

  it('stops after maxAttempts attempts in all', () => {
    expect(retryDelay(2, undefined, policy)).toBeDefined();
    expect(retryDelay(3, undefined, policy)).toBeUndefined();
    expect(retryDelay(1, 1000, { ...policy, maxAttempts: 1 })).toBeUndefined();
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs: the error goes to the caller at once', () => {
    expect(retryDelay(1, 61_000, policy)).toBeUndefined();
    expect(retryDelay(1, 60_000, policy)).toBeGreaterThanOrEqual(60_000);
  });
});
