import { parseSponsorshipBudgets, sponsorshipBudgetOf, sponsorshipRefusal } from './sponsorship-budgets';

describe("sponsorship budgets - what the paymaster sponsors for one organization's wallets in a day", () => {
  it('reads budgets by chain, for every organization and for some of their own; empty: none', () => {
    expect(parseSponsorshipBudgets(undefined)).toEqual({});
    expect(parseSponsorshipBudgets({ 'live-base': { perOrganizationPerDay: '0.05', organizations: { org_big: '2.5', org_none: '0' } } })).toEqual({
      'live-base': { perOrganizationPerDay: '0.05', organizations: { org_big: '2.5', org_none: '0' } },
    });
  });

  it('refuses a budget it cannot read, naming where', () => {
    expect(() => parseSponsorshipBudgets([])).toThrow('CHAIN_SPONSORED_GAS_BUDGETS must be an object of chains');
    expect(() => parseSponsorshipBudgets({ 'live-base': { perOrganisationPerDay: '1' } })).toThrow(
      'CHAIN_SPONSORED_GAS_BUDGETS.live-base.perOrganisationPerDay is not a budget',
    );
    expect(() => parseSponsorshipBudgets({ 'live-base': { perOrganizationPerDay: 0.05 } })).toThrow('live-base.perOrganizationPerDay must be a decimal string');
    expect(() => parseSponsorshipBudgets({ 'live-base': { organizations: { org_a: '-1' } } })).toThrow(
      'live-base.organizations.org_a must be a decimal string',
    );
  });

  it("takes an organization's own budget before everyone's, and none where neither is set", () => {
    const budget = { perOrganizationPerDay: '0.05', organizations: { org_big: '2.5', org_none: '0' } };
    expect(sponsorshipBudgetOf(budget, 'org_big')).toBe('2.5');
    expect(sponsorshipBudgetOf(budget, 'org_none')).toBe('0');
    expect(sponsorshipBudgetOf(budget, 'org_other')).toBe('0.05');
    expect(sponsorshipBudgetOf({ organizations: { org_big: '1' } }, 'org_other')).toBeUndefined();
    expect(sponsorshipBudgetOf(undefined, 'org_big')).toBeUndefined();
  });

  it('sponsors while the last 24 hours are below the budget, and refuses from the moment they reach it', () => {
    const landed = (spent: string) => ({ spent, open: 0, reserve: '0.001' });
    expect(sponsorshipRefusal(undefined, landed('100'))).toBeUndefined();
    expect(sponsorshipRefusal('0.05', landed('0.049999999999999999'))).toBeUndefined();
    expect(sponsorshipRefusal('0.05', landed('0.05'))).toEqual({ budget: '0.05', spent: '0.05', reserved: '0' });
    expect(sponsorshipRefusal('0.05', landed('0.0612'))).toEqual({ budget: '0.05', spent: '0.0612', reserved: '0' });
    expect(sponsorshipRefusal('0', landed('0'))).toEqual({ budget: '0', spent: '0', reserved: '0' });
  });

  it('reserves what the operations still on their way may cost, so that a burst asked at once cannot pass the budget', () => {
    // 0.01 spent and 39 on their way at 0.001 each: one more fits, the fortieth does not.
    expect(sponsorshipRefusal('0.05', { spent: '0.01', open: 39, reserve: '0.001' })).toBeUndefined();
    expect(sponsorshipRefusal('0.05', { spent: '0.01', open: 40, reserve: '0.001' })).toEqual({ budget: '0.05', spent: '0.01', reserved: '0.04' });
  });
});
