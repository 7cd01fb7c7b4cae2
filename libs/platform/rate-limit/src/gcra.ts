/**
 * The arithmetic of the rate limiter: two GCRAs (generic cell rate algorithm) checked together, one for the
 * per-minute limit and one for the per-second burst. The Lua script in redis-rate-limiter.ts does exactly this
 * inside Redis; this pure model exists so the arithmetic can be unit-tested and the script checked against it.
 *
 * GCRA keeps one number per limit, the theoretical arrival time (TAT). With emission interval T (the time one
 * request "costs") and tolerance τ (how far ahead of schedule a client may be), a request at `now` is allowed when
 * max(TAT, now) + T − now ≤ τ + T, and then TAT becomes max(TAT, now) + T. All times are whole microseconds.
 */
export interface RateLimitPolicy {
  perMinute: number;
  burstPerSecond: number;
}

/**
 * One request's verdict, and the one limit its headers describe: on a refusal the limit that refused it (the one
 * with the longer wait when both did; the per-minute one on a tie), otherwise the tighter limit (fewer requests left;
 * the per-minute one on a tie).
 */
export interface RateLimitDecision {
  allowed: boolean;
  /** The window of the limit described: 60 for the per-minute limit, 1 for the burst (as in X-RateLimit-Policy). */
  windowSeconds: 60 | 1;
  /** Requests that limit allows per window (X-RateLimit-Limit). */
  limit: number;
  /** Requests left under that limit right now; 0 when refused (X-RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until that limit is full again; when refused, equal to retryAfterSeconds (X-RateLimit-Reset). */
  resetSeconds: number;
  /** When refused: whole seconds (≥ 1) until both limits allow a request; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface GcraState {
  minuteTat: number;
  secondTat: number;
}

export const PLAN_POLICIES = {
  free: { perMinute: 60, burstPerSecond: 10 },
  growth: { perMinute: 300, burstPerSecond: 50 },
} as const satisfies Record<string, RateLimitPolicy>;

const MINUTE_US = 60_000_000;
const SECOND_US = 1_000_000;

interface Limit {
  interval: number;
  tolerance: number;
}

/** Emission interval and tolerance of a limit of `count` requests per `window` microseconds (integer division). */
export function limitOf(count: number, window: number): Limit {
  const interval = Math.floor(window / count);
  return { interval, tolerance: interval * (count - 1) };
}

/** One limit at `now` from its stored TAT: the TAT this request would leave, and how long until it would pass (≤ 0: now). */
function check(limit: Limit, tat: number, now: number): { base: number; next: number; wait: number } {
  const base = Math.max(tat, now);
  const next = base + limit.interval;
  return { base, next, wait: next - now - (limit.tolerance + limit.interval) };
}

/** Requests left under a limit whose TAT is `tat`, and whole seconds until it is full again. */
function allowance(limit: Limit, tat: number, now: number): { remaining: number; resetSeconds: number } {
  const headroom = limit.tolerance + limit.interval - (tat - now);
  return { remaining: Math.max(0, Math.floor(headroom / limit.interval)), resetSeconds: Math.max(0, Math.ceil((tat - now) / SECOND_US)) };
}

export function gcraDecide(state: GcraState, now: number, policy: RateLimitPolicy): { decision: RateLimitDecision; next: GcraState } {
  const minuteLimit = limitOf(policy.perMinute, MINUTE_US);
  const secondLimit = limitOf(policy.burstPerSecond, SECOND_US);
  const minute = check(minuteLimit, state.minuteTat, now);
  const second = check(secondLimit, state.secondTat, now);

  if (minute.wait > 0 || second.wait > 0) {
    // Refused, and nothing is consumed. Retry-After is when both limits allow a request: the longer wait decides.
    const byMinute = minute.wait >= second.wait;
    const retryAfterSeconds = Math.max(1, Math.ceil(Math.max(minute.wait, second.wait) / SECOND_US));
    return {
      decision: {
        allowed: false,
        windowSeconds: byMinute ? 60 : 1,
        limit: byMinute ? policy.perMinute : policy.burstPerSecond,
        remaining: 0,
        resetSeconds: retryAfterSeconds,
        retryAfterSeconds,
      },
      next: state,
    };
  }

  const afterMinute = allowance(minuteLimit, minute.next, now);
  const afterSecond = allowance(secondLimit, second.next, now);
  const byMinute = afterMinute.remaining <= afterSecond.remaining;
  return {
    decision: {
      allowed: true,
      windowSeconds: byMinute ? 60 : 1,
      limit: byMinute ? policy.perMinute : policy.burstPerSecond,
      ...(byMinute ? afterMinute : afterSecond),
      retryAfterSeconds: 0,
    },
    next: { minuteTat: minute.next, secondTat: second.next },
  };
}
