import { randomUUID } from 'crypto';
import Redis from 'ioredis';
import { gcraDecide, PLAN_POLICIES, type RateLimitPolicy } from './gcra';
import { RedisRateLimiter } from './redis-rate-limiter';

describe('rate limiter - the Lua script on a real Redis', () => {
  const prefix = `rl-test-${randomUUID()}:`;
  const first = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const second = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

  afterAll(async () => {
    const keys = await first.keys(`${prefix}*`);
    if (keys.length > 0) await first.del(...keys);
    await Promise.all([first.quit(), second.quit()]);
  });

  it('two replicas firing at once share one limit exactly: 10 of 30 pass on the free plan', async () => {
    const replicas = [new RedisRateLimiter(first, { prefix }), new RedisRateLimiter(second, { prefix })];
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 2]!.check('key:shared', PLAN_POLICIES.free)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    const denied = decisions.filter((decision) => !decision.allowed);
    // Refused by the burst: the headers say so, with nothing left and Reset equal to Retry-After.
    expect(denied.every((d) => d.retryAfterSeconds >= 1 && d.resetSeconds === d.retryAfterSeconds && d.limit === 10 && d.remaining === 0)).toBe(true);
  });

  // Each case: the state before (TATs as offsets from Redis' clock, absent when unset) and the number of requests.
  // Between them they take every path of the script: burst refusal, minute refusal, both refusing (either deciding, or a tie),
  // passing with the burst tighter, with the minute tighter, and on a tie.
  const cases: { name: string; policy: RateLimitPolicy; given?: { minute: number; second: number }; requests: number }[] = [
    { name: 'the burst refuses', policy: { perMinute: 5, burstPerSecond: 3 }, requests: 5 },
    { name: 'the minute refuses', policy: { perMinute: 3, burstPerSecond: 5 }, requests: 5 },
    { name: 'the minute is tighter', policy: PLAN_POLICIES.free, given: { minute: 55_000_000, second: 0 }, requests: 6 },
    { name: 'both refuse, the burst longer', policy: PLAN_POLICIES.free, given: { minute: 59_050_000, second: 1_000_000 }, requests: 2 },
    { name: 'both refuse, the minute longer', policy: PLAN_POLICIES.free, given: { minute: 59_500_000, second: 1_000_000 }, requests: 2 },
    { name: 'both refuse as long: the minute', policy: PLAN_POLICIES.free, given: { minute: 59_100_000, second: 1_000_000 }, requests: 2 },
    { name: 'a tie shows the minute', policy: PLAN_POLICIES.free, given: { minute: 50_000_000, second: 0 }, requests: 1 },
  ];

  it('auto-pipelined, as the gateway connects: checks sent in one write count exactly, even when Redis has lost the script', async () => {
    const pipelined = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
    try {
      const limiter = new RedisRateLimiter(pipelined, { prefix });
      // A restarted Redis has no scripts: the pipeline's EVALSHA hears NOSCRIPT and must load and run it, once per check.
      await pipelined.script('FLUSH');
      const decisions = await Promise.all(Array.from({ length: 30 }, () => limiter.check('key:pipelined', PLAN_POLICIES.free)));
      expect(pipelined.autoPipelineQueueSize).toBe(0);
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
      expect(decisions.filter((decision) => decision.allowed).map((decision) => decision.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    } finally {
      await pipelined.quit();
    }
  });

  it.each(cases)('agrees with the pure model, header for header: $name', async ({ name, policy, given, requests }) => {
    const limiter = new RedisRateLimiter(first, { prefix });
    const subject = `key:model:${name}`;
    const [seconds, micros] = await first.time();
    const now = Number(seconds) * 1_000_000 + Number(micros);
    const start = given ? { minuteTat: now + given.minute, secondTat: now + given.second } : { minuteTat: 0, secondTat: 0 };
    if (given) {
      await first.set(`${prefix}{${subject}}:m`, String(start.minuteTat), 'PX', 120_000);
      await first.set(`${prefix}{${subject}}:s`, String(start.secondTat), 'PX', 120_000);
    }
    const fromRedis = [];
    for (let i = 0; i < requests; i++) fromRedis.push(await limiter.check(subject, policy));
    // Redis' clock moves some microseconds between calls; none of these cases is that close to a boundary, so the
    // model at one instant must give the same decisions, every header included.
    let state = start;
    const fromModel = [];
    for (let i = 0; i < requests; i++) {
      const { decision, next } = gcraDecide(state, now, policy);
      fromModel.push(decision);
      state = next;
    }
    expect(fromRedis).toEqual(fromModel);
  });

  it('keeps state only as long as it matters, and in one cluster slot', async () => {
    const limiter = new RedisRateLimiter(first, { prefix });
    await limiter.check('key:ttl', PLAN_POLICIES.growth);
    const ttl = await first.pttl(`${prefix}{key:ttl}:m`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000 + 1_000);
    expect(await first.pttl(`${prefix}{key:ttl}:s`)).toBeGreaterThan(0);
  });
});
