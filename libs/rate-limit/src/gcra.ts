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

export interface RateLimitDecision {
  allowed: boolean;
  /** The per-minute limit (X-RateLimit-Limit). */
  limit: number;
  /** Requests left in the per-minute allowance right now (X-RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until the per-minute allowance is full again (X-RateLimit-Reset). */
  resetSeconds: number;
  /** When denied: whole seconds (≥ 1) until both limits allow a request; 0 when allowed. */
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

export function gcraDecide(state: GcraState, now: number, policy: RateLimitPolicy): { decision: RateLimitDecision; next: GcraState } {
  const minute = limitOf(policy.perMinute, MINUTE_US);
  const second = limitOf(policy.burstPerSecond, SECOND_US);
  const minuteBase = Math.max(state.minuteTat, now);
  const secondBase = Math.max(state.secondTat, now);
  const minuteNext = minuteBase + minute.interval;
  const secondNext = secondBase + second.interval;
  // How long until each limit would allow this request (≤ 0: allowed now).
  const minuteWait = minuteNext - now - (minute.tolerance + minute.interval);
  const secondWait = secondNext - now - (second.tolerance + second.interval);
  const allowed = minuteWait <= 0 && secondWait <= 0;
  const tat = allowed ? minuteNext : minuteBase;
  const next = allowed ? { minuteTat: minuteNext, secondTat: secondNext } : state;
  const headroom = minute.tolerance + minute.interval - (tat - now);
  return {
    decision: {
      allowed,
      limit: policy.perMinute,
      remaining: Math.max(0, Math.floor(headroom / minute.interval)),
      resetSeconds: Math.max(0, Math.ceil((tat - now) / SECOND_US)),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(Math.max(minuteWait, secondWait) / SECOND_US)),
    },
    next,
  };
}
