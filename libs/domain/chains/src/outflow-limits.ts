import { dec } from '@ramp/money';

/** The limits of one token on one chain (CHAIN_OUTFLOW_LIMITS), each optional, in the token's units. */
export interface OutflowLimit {
  /** The most one send may take out. */
  perSend?: string;
  /** The most that may leave the hot wallet in any hour. */
  perHour?: string;
  /** The most that may leave for one organization's transactions in any hour. */
  perOrganizationPerHour?: string;
}

/** CHAIN_OUTFLOW_LIMITS: by chain (`live-base`, `test-bsc`), then token symbol. */
export type OutflowLimits = Record<string, Record<string, OutflowLimit>>;

const LIMIT_KINDS: readonly (keyof OutflowLimit)[] = ['perSend', 'perHour', 'perOrganizationPerHour'];
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * CHAIN_OUTFLOW_LIMITS checked once, at start: every limit a positive decimal string under a known kind, so that a typo
 * stops the chain service with its name instead of failing every send it meets. Empty: no limit.
 */
export function parseOutflowLimits(raw: unknown, setting = 'CHAIN_OUTFLOW_LIMITS'): OutflowLimits {
  if (raw === undefined) return {};
  const problem = (path: string, what: string) => new Error(`${setting}.${path} ${what}`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${setting} must be an object of chains`);
  const limits: OutflowLimits = {};
  for (const [chain, tokens] of Object.entries(raw)) {
    if (tokens === null || typeof tokens !== 'object' || Array.isArray(tokens)) throw problem(chain, 'must be an object of token symbols');
    limits[chain] = {};
    for (const [symbol, limit] of Object.entries(tokens as Record<string, unknown>)) {
      if (limit === null || typeof limit !== 'object' || Array.isArray(limit)) throw problem(`${chain}.${symbol}`, 'must be an object of limits');
      const parsed: OutflowLimit = {};
      for (const [kind, value] of Object.entries(limit)) {
        if (!LIMIT_KINDS.includes(kind as keyof OutflowLimit)) throw problem(`${chain}.${symbol}.${kind}`, `is not a limit (${LIMIT_KINDS.join(', ')})`);
        if (typeof value !== 'string' || !DECIMAL.test(value) || dec(value).lte(0))
          throw problem(`${chain}.${symbol}.${kind}`, `must be a positive decimal string, got ${JSON.stringify(value)}`);
        parsed[kind as keyof OutflowLimit] = value;
      }
      limits[chain]![symbol] = parsed;
    }
  }
  return limits;
}

/**
 * Which limit a send of `amount` breaks, given what already left in the last hour (on the chain, and for the send's
 * organization when it names one), or undefined when it fits: the per-send cap first, then the hour's.
 */
export function outflowRefusal(limit: OutflowLimit, amount: string, lastHour: { chain: string; organization?: string }): keyof OutflowLimit | undefined {
  const value = dec(amount);
  if (limit.perSend !== undefined && value.gt(limit.perSend)) return 'perSend';
  if (limit.perHour !== undefined && dec(lastHour.chain).add(value).gt(limit.perHour)) return 'perHour';
  if (
    limit.perOrganizationPerHour !== undefined &&
    lastHour.organization !== undefined &&
    dec(lastHour.organization).add(value).gt(limit.perOrganizationPerHour)
  ) {
    return 'perOrganizationPerHour';
  }
  return undefined;
}
