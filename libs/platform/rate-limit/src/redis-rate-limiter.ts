import type Redis from 'ioredis';
import { limitOf, type RateLimitDecision, type RateLimitPolicy } from './gcra';

/**
 * Both GCRAs of gcra.ts in one atomic script on Redis' own clock, so every gateway replica shares one limit exactly
 * and clock skew between replicas does not matter. KEYS are hash-tagged on the subject: both live in one slot, so
 * the script also runs on Redis Cluster. A denied request changes nothing. It answers as gcraDecide does, the limit
 * described being given by its window (60 or 1): { allowed, window, remaining, reset, retry }.
 */
const SCRIPT = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local mInterval, mTolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local sInterval, sTolerance = tonumber(ARGV[3]), tonumber(ARGV[4])
local mNext = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now) + mInterval
local sNext = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), now) + sInterval
local mWait = mNext - now - (mTolerance + mInterval)
local sWait = sNext - now - (sTolerance + sInterval)
if mWait > 0 or sWait > 0 then
  local window = 60
  if sWait > mWait then window = 1 end
  local retry = math.max(1, math.ceil(math.max(mWait, sWait) / 1000000))
  return { 0, window, 0, retry, retry }
end
redis.call('SET', KEYS[1], string.format('%.0f', mNext), 'PX', math.ceil((mNext - now) / 1000) + 1000)
redis.call('SET', KEYS[2], string.format('%.0f', sNext), 'PX', math.ceil((sNext - now) / 1000) + 1000)
local mRemaining = math.max(0, math.floor((mTolerance + mInterval - (mNext - now)) / mInterval))
local sRemaining = math.max(0, math.floor((sTolerance + sInterval - (sNext - now)) / sInterval))
if mRemaining <= sRemaining then
  return { 1, 60, mRemaining, math.max(0, math.ceil((mNext - now) / 1000000)), 0 }
end
return { 1, 1, sRemaining, math.max(0, math.ceil((sNext - now) / 1000000)), 0 }
`;

type LimiterRedis = Redis & { rateLimitGcra(minuteKey: string, secondKey: string, ...args: number[]): Promise<[number, 60 | 1, number, number, number]> };

export class RedisRateLimiter {
  private readonly redis: LimiterRedis;
  private readonly prefix: string;

  constructor(redis: Redis, options: { prefix?: string } = {}) {
    if (!(redis as unknown as Partial<LimiterRedis>).rateLimitGcra) redis.defineCommand('rateLimitGcra', { numberOfKeys: 2, lua: SCRIPT });
    this.redis = redis as LimiterRedis;
    this.prefix = options.prefix ?? 'rl:';
  }

  /** Counts one request of `subject` (e.g. `key:<keyId>` or `ip:<address>`) against `policy`. */
  async check(subject: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const minute = limitOf(policy.perMinute, 60_000_000);
    const second = limitOf(policy.burstPerSecond, 1_000_000);
    const [allowed, windowSeconds, remaining, resetSeconds, retryAfterSeconds] = await this.redis.rateLimitGcra(
      `${this.prefix}{${subject}}:m`,
      `${this.prefix}{${subject}}:s`,
      minute.interval,
      minute.tolerance,
      second.interval,
      second.tolerance,
    );
    const limit = windowSeconds === 60 ? policy.perMinute : policy.burstPerSecond;
    return { allowed: allowed === 1, windowSeconds, limit, remaining, resetSeconds, retryAfterSeconds };
  }
}
