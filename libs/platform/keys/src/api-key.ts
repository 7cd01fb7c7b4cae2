import { createHash, randomBytes } from 'crypto';
import type { Environment } from '@ramp/contracts';

export const KEY_PREFIXES: Readonly<Record<Environment, string>> = { live: 'service_live_', test: 'service_test_' };
export const SECRET_PREFIX = 'service_secret_';

export const PLANS = ['free', 'growth', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** Default limits of each plan; an enterprise key carries its own (custom rate and burst). */
export const PLAN_LIMITS: Readonly<Record<Plan, { perMinute: number; burstPerSecond: number }>> = {
  free: { perMinute: 60, burstPerSecond: 10 },
  growth: { perMinute: 300, burstPerSecond: 50 },
  enterprise: { perMinute: 6000, burstPerSecond: 500 },
};

export function generateApiKey(environment: Environment): string {
  return KEY_PREFIXES[environment] + randomBytes(24).toString('base64url');
}

export function generateApiSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** Keys are 192-bit random values, so a plain SHA-256 is a safe, fast lookup hash (no slow KDF needed). */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** The environment a presented key claims by its prefix, or undefined for something that is not a key at all. */
export function environmentOfKey(apiKey: string): Environment | undefined {
  if (apiKey.startsWith(KEY_PREFIXES.live)) return 'live';
  if (apiKey.startsWith(KEY_PREFIXES.test)) return 'test';
  return undefined;
}
