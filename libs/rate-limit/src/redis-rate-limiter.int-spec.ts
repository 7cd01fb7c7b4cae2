import { randomUUID } from 'crypto';
import Redis from 'ioredis';
import { gcraDecide, PLAN_POLICIES } from './gcra';
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
    expect(denied.every((decision) => decision.retryAfterSeconds >= 1 && decision.limit === 60)).toBe(true);
  });

  it('agrees with the pure model on a sequence at one instant', async () => {
    const limiter = new RedisRateLimiter(first, { prefix });
    const policy = { perMinute: 5, burstPerSecond: 3 };
    const fromRedis = [];
    for (let i = 0; i < 5; i++) fromRedis.push(await limiter.check('key:model', policy));
    // Redis' clock moves a few microseconds between calls; at that scale the model at one instant must agree.
    let state = { minuteTat: 0, secondTat: 0 };
    const now = 1_800_000_000_000_000;
    const fromModel = [];
    for (let i = 0; i < 5; i++) {
      const { decision, next } = gcraDecide(state, now, policy);
      fromModel.push(decision);
      state = next;
    }
    expect(fromRedis.map((d) => d.allowed)).toEqual(fromModel.map((d) => d.allowed));
    expect(fromRedis.map((d) => d.remaining)).toEqual(fromModel.map((d) => d.remaining));
    expect(fromRedis.map((d) => d.retryAfterSeconds)).toEqual(fromModel.map((d) => d.retryAfterSeconds));
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
