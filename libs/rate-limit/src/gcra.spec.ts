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

  it('free plan: given 11 requests at one instant, then the burst of 10 passes and the 11th waits 1 second', () => {
    const decisions = run(PLAN_POLICIES.free, Array(11).fill(t0));
    expect(decisions.slice(0, 10).every((d) => d.allowed)).toBe(true);
    expect(decisions[10]).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
  });

  it('counts the per-minute allowance down and grows the reset as it is used', () => {
    const decisions = run(PLAN_POLICIES.free, [t0, t0, t0]);
    expect(decisions.map((d) => d.remaining)).toEqual([59, 58, 57]);
    expect(decisions.map((d) => d.resetSeconds)).toEqual([1, 2, 3]);
    expect(decisions.every((d) => d.limit === 60)).toBe(true);
  });

  it('given requests at the burst rate, the 61st inside the allowance is denied by the minute limit, with its wait', () => {
    // 10 per second for 6 seconds: 60 requests; the minute allowance refills one per second meanwhile.
    const instants = Array.from({ length: 70 }, (_, i) => t0 + Math.floor(i / 10) * SECOND + (i % 10) * 1000);
    const decisions = run(PLAN_POLICIES.free, instants);
    const firstDenied = decisions.findIndex((d) => !d.allowed);
    // 60 banked plus the ones refilled during the first 6 seconds.
    expect(firstDenied).toBe(66);
    expect(decisions[firstDenied]!.remaining).toBe(0);
    expect(decisions[firstDenied]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('a denied request consumes nothing', () => {
    const policy = { perMinute: 2, burstPerSecond: 10 };
    const afterTwo = run(policy, [t0, t0]);
    expect(afterTwo.every((d) => d.allowed)).toBe(true);
    let state = { minuteTat: t0 + 60 * SECOND, secondTat: t0 + 200_000 };
    for (let i = 0; i < 5; i++) {
      const { decision, next } = gcraDecide(state, t0, policy);
      expect(decision.allowed).toBe(false);
      expect(next).toEqual(state);
      state = next;
    }
    // One interval (30 s) later exactly one more is allowed.
    expect(gcraDecide(state, t0 + 30 * SECOND, policy).decision.allowed).toBe(true);
  });

  it('growth plan: 50 at once, then the 51st waits', () => {
    const decisions = run(PLAN_POLICIES.growth, Array(51).fill(t0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect(decisions[50]).toMatchObject({ allowed: false, limit: 300, retryAfterSeconds: 1 });
    expect(decisions[49]!.remaining).toBe(250);
  });

  it('an idle client gets its whole allowance back', () => {
    const used = run(PLAN_POLICIES.free, Array(10).fill(t0));
    expect(used[9]!.remaining).toBe(50);
    const later = run(PLAN_POLICIES.free, [t0 + 120 * SECOND], { minuteTat: t0 + 10 * SECOND, secondTat: t0 + SECOND });
    expect(later[0]).toMatchObject({ allowed: true, remaining: 59, resetSeconds: 1 });
  });
});
