import type Redis from 'ioredis';
import { limitOf, type RateLimitDecision, type RateLimitPolicy } from './gcra';

/**
 * Both GCRAs of gcra.ts in one atomic script on Redis' own clock, so every gateway replica shares one limit exactly
 * and clock skew between replicas does not matter. KEYS are hash-tagged on the subject: both live in one slot, so
 * the script also runs on Redis Cluster. A denied request changes nothing.
 */
const SCRIPT = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local mInterval, mTolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local sInterval, sTolerance = tonumber(ARGV[3]), tonumber(ARGV[4])
local mTat = tonumber(redis.call('GET', KEYS[1]) or '0')
local sTat = tonumber(redis.call('GET', KEYS[2]) or '0')
local mBase = math.max(mTat, now)
local sBase = math.max(sTat, now)
local mNext = mBase + mInterval
local sNext = sBase + sInterval
local mWait = mNext - now - (mTolerance + mInterval)
local sWait = sNext - now - (sTolerance + sInterval)
local allowed = 0
local tat = mBase
if mWait <= 0 and sWait <= 0 then
  allowed = 1
  tat = mNext
  redis.call('SET', KEYS[1], string.format('%.0f', mNext), 'PX', math.ceil((mNext - now) / 1000) + 1000)
  redis.call('SET', KEYS[2], string.format('%.0f', sNext), 'PX', math.ceil((sNext - now) / 1000) + 1000)
end
local headroom = mTolerance + mInterval - (tat - now)
local remaining = math.max(0, math.floor(headroom / mInterval))
local reset = math.max(0, math.ceil((tat - now) / 1000000))
local retry = 0
if allowed == 0 then retry = math.max(1, math.ceil(math.max(mWait, sWait) / 1000000)) end
return { allowed, remaining, reset, retry }
`;

type LimiterRedis = Redis & { rateLimitGcra(minuteKey: string, secondKey: string, ...args: number[]): Promise<[number, number, number, number]> };

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
    const [allowed, remaining, resetSeconds, retryAfterSeconds] = await this.redis.rateLimitGcra(
      `${this.prefix}{${subject}}:m`,
      `${this.prefix}{${subject}}:s`,
      minute.interval,
      minute.tolerance,
      second.interval,
      second.tolerance,
    );
    return { allowed: allowed === 1, limit: policy.perMinute, remaining, resetSeconds, retryAfterSeconds };
  }
}
