import { gcraDecide, PLAN_POLICIES, type GcraState, type RateLimitDecision, type RateLimitPolicy } from './gcra';

const SECOND = 1_000_000;

/** Runs requests at the given instants (µs) through the model and returns the decisions. */
function run(policy: RateLimitPolicy, instants: number[], start: GcraState = { minuteTat: 0, secondTat: 0 }): RateLimitDecision[] {
  let state = start;
  return instants.map((now) => {
    const { decision, next } = gcraDecide(state, now, policy);
    state = next;
    return decision;
  });
}

describe('GCRA arithmetic of the rate limiter', () => {
  const t0 = 1_700_000_000 * SECOND;

  it('free plan: given 11 requests at one instant, then the burst of 10 passes and the 11th is refused by the burst, headers and all', () => {
    const decisions = run(PLAN_POLICIES.free, Array(11).fill(t0));
    expect(decisions.slice(0, 10).every((d) => d.allowed)).toBe(true);
    // The burst refused it: its headers describe the burst, with nothing left and Reset equal to Retry-After.
    expect(decisions[10]).toEqual({ allowed: false, windowSeconds: 1, limit: 10, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
  });

  it('given requests at the burst rate, the 67th is refused by the per-minute limit, whose headers it carries', () => {
    // 10 per second: the burst always has room for the next second's 10, while the minute allowance (60, refilling one
    // per second) runs out after 60 banked plus the ones refilled during the first 6 seconds.
    const instants = Array.from({ length: 70 }, (_, i) => t0 + Math.floor(i / 10) * SECOND + (i % 10) * 1000);
    const decisions = run(PLAN_POLICIES.free, instants);
    const firstDenied = decisions.findIndex((d) => !d.allowed);
    expect(firstDenied).toBe(66);
    const refusal = decisions[firstDenied]!;
    expect(refusal).toMatchObject({ windowSeconds: 60, limit: 60, remaining: 0 });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.resetSeconds).toBe(refusal.retryAfterSeconds);
  });

  it('when both limits refuse, the headers describe the one with the longer wait (the minute on a tie), which Retry-After is', () => {
    // The minute allowance is back in 0.05 s, the burst in 0.1 s: the burst decides.
    const burstLonger = gcraDecide({ minuteTat: t0 + 59_050_000, secondTat: t0 + SECOND }, t0, PLAN_POLICIES.free).decision;
    expect(burstLonger).toEqual({ allowed: false, windowSeconds: 1, limit: 10, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
    // The minute allowance is back in 30 s, the burst in 0.1 s: the minute decides.
    const minuteLonger = gcraDecide({ minuteTat: t0 + 89 * SECOND, secondTat: t0 + SECOND }, t0, PLAN_POLICIES.free).decision;
    expect(minuteLonger).toEqual({ allowed: false, windowSeconds: 60, limit: 60, remaining: 0, resetSeconds: 30, retryAfterSeconds: 30 });
    // Both back in 0.1 s: the per-minute limit.
    const asLong = gcraDecide({ minuteTat: t0 + 59_100_000, secondTat: t0 + SECOND }, t0, PLAN_POLICIES.free).decision;
    expect(asLong).toEqual({ allowed: false, windowSeconds: 60, limit: 60, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
  });

  it('a passing request with the burst tighter shows the burst: its limit, what is left of it and when it is full again', () => {
    const decisions = run(PLAN_POLICIES.free, [t0, t0, t0]);
    expect(decisions.map((d) => [d.allowed, d.windowSeconds, d.limit, d.remaining, d.resetSeconds])).toEqual([
      [true, 1, 10, 9, 1],
      [true, 1, 10, 8, 1],
      [true, 1, 10, 7, 1],
    ]);
  });

  it('a passing request with the per-minute limit tighter shows the per-minute limit', () => {
    // Given 55 requests used of the minute's 60 and an idle burst: after this one, 4 left in the minute, 9 in the burst.
    const { decision } = gcraDecide({ minuteTat: t0 + 55 * SECOND, secondTat: 0 }, t0, PLAN_POLICIES.free);
    expect(decision).toEqual({ allowed: true, windowSeconds: 60, limit: 60, remaining: 4, resetSeconds: 56, retryAfterSeconds: 0 });
  });

  it('a passing request with as many left under both limits shows the per-minute limit', () => {
    const { decision } = gcraDecide({ minuteTat: t0 + 50 * SECOND, secondTat: 0 }, t0, PLAN_POLICIES.free);
    expect(decision).toEqual({ allowed: true, windowSeconds: 60, limit: 60, remaining: 9, resetSeconds: 51, retryAfterSeconds: 0 });
  });

  it('a denied request consumes nothing', () => {
    const policy = { perMinute: 2, burstPerSecond: 10 };
    const afterTwo = run(policy, [t0, t0]);
    expect(afterTwo.every((d) => d.allowed)).toBe(true);
    let state = { minuteTat: t0 + 60 * SECOND, secondTat: t0 + 200_000 };
    for (let i = 0; i < 5; i++) {
      const { decision, next } = gcraDecide(state, t0, policy);
      expect(decision).toMatchObject({ allowed: false, windowSeconds: 60, limit: 2, remaining: 0, resetSeconds: 30, retryAfterSeconds: 30 });
      expect(next).toEqual(state);
      state = next;
    }
    // One interval (30 s) later exactly one more is allowed.
    expect(gcraDecide(state, t0 + 30 * SECOND, policy).decision.allowed).toBe(true);
  });

  it('growth plan: 50 at once, then the 51st is refused by the burst of 50', () => {
    const decisions = run(PLAN_POLICIES.growth, Array(51).fill(t0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(decisions[49]).toMatchObject({ limit: 50, remaining: 0 });
    expect(decisions[50]).toMatchObject({ allowed: false, limit: 50, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 });
  });

  it('an idle client gets its whole allowance back', () => {
    const later = run(PLAN_POLICIES.free, [t0 + 120 * SECOND], { minuteTat: t0 + 10 * SECOND, secondTat: t0 + SECOND });
    // Both limits full again before this request: the burst, with 9 left of 10, is the tighter.
    expect(later[0]).toMatchObject({ allowed: true, limit: 10, remaining: 9, resetSeconds: 1 });
  });
});
