import { dec } from '@ramp/money';

/**
 * What the platform's paymaster sponsors for one organization's managed wallets on one chain in any 24 hours
 * (CHAIN_SPONSORED_GAS_BUDGETS), in the chain's native coin: `perOrganizationPerDay` for every organization, and
 * `organizations` for those with a budget of their own.
 */
export interface SponsorshipBudget {
  perOrganizationPerDay?: string;
  organizations?: Record<string, string>;
}

/** CHAIN_SPONSORED_GAS_BUDGETS: by chain (`live-base`, `test-bsc`). */
export type SponsorshipBudgets = Record<string, SponsorshipBudget>;

const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * CHAIN_SPONSORED_GAS_BUDGETS checked once, at start: every budget a decimal string (0: sponsor nothing), under a known
 * key, so that a typo stops the chain service with its name instead of sponsoring without a budget. Empty: no budget.
 */
export function parseSponsorshipBudgets(raw: unknown, setting = 'CHAIN_SPONSORED_GAS_BUDGETS'): SponsorshipBudgets {
  if (raw === undefined) return {};
  const problem = (path: string, what: string) => new Error(`${setting}.${path} ${what}`);
  const amount = (path: string, value: unknown): string => {
    if (typeof value !== 'string' || !DECIMAL.test(value)) throw problem(path, `must be a decimal string of the native coin, got ${JSON.stringify(value)}`);
    return dec(value).toFixed();
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${setting} must be an object of chains`);
  const budgets: SponsorshipBudgets = {};
  for (const [chain, budget] of Object.entries(raw)) {
    if (budget === null || typeof budget !== 'object' || Array.isArray(budget))
      throw problem(chain, 'must be an object with perOrganizationPerDay and organizations');
    const parsed: SponsorshipBudget = {};
    for (const [key, value] of Object.entries(budget as Record<string, unknown>)) {
      if (key === 'perOrganizationPerDay') parsed.perOrganizationPerDay = amount(`${chain}.${key}`, value);
      else if (key === 'organizations') {
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          throw problem(`${chain}.organizations`, 'must be an object of organization ids');
        parsed.organizations = Object.fromEntries(
          Object.entries(value as Record<string, unknown>).map(([organizationId, each]) => [
            organizationId,
            amount(`${chain}.organizations.${organizationId}`, each),
          ]),
        );
      } else throw problem(`${chain}.${key}`, 'is not a budget (perOrganizationPerDay, organizations)');
    }
    budgets[chain] = parsed;
  }
  return budgets;
}

/** An organization's budget on a chain: its own, else every organization's; undefined when it has none. */
export function sponsorshipBudgetOf(budget: SponsorshipBudget | undefined, organizationId: string): string | undefined {
  return budget?.organizations?.[organizationId] ?? budget?.perOrganizationPerDay;
}

/**
 * Whether an organization may have one more operation sponsored, given what its operations of the last 24 hours cost:
 * `spent` by those that landed, and `open` operations still on their way, whose cost is not known yet and is reserved
 * at `reserve` each (the most one of the chain's latest landed operations cost, whatever their age). Refused once spent and reserved reach the
 * budget, so that a burst of operations asked at once cannot all pass before the first lands. Undefined: it may.
 */
export function sponsorshipRefusal(
  budget: string | undefined,
  usage: { spent: string; open: number; reserve: string },
): { budget: string; spent: string; reserved: string } | undefined {
  if (budget === undefined) return undefined;
  const reserved = dec(usage.reserve).mul(usage.open);
  if (dec(usage.spent).add(reserved).lt(budget)) return undefined;
  return { budget, spent: dec(usage.spent).toFixed(), reserved: reserved.toFixed() };
}
