import { outflowRefusal, parseOutflowLimits } from './outflow-limits';

describe('outflow limits - what may leave a hot wallet for the outside', () => {
  it('takes positive decimal strings under the three kinds, and names the setting, chain, token and kind of anything else', () => {
    expect(parseOutflowLimits(undefined)).toEqual({});
    expect(parseOutflowLimits({ 'live-base': { USDC: { perSend: '50000', perHour: '500000.5' } } })).toEqual({
      'live-base': { USDC: { perSend: '50000', perHour: '500000.5' } },
    });
    expect(() => parseOutflowLimits({ 'live-base': { USDC: { perSend: 50000 } } })).toThrow(
      'CHAIN_OUTFLOW_LIMITS.live-base.USDC.perSend must be a positive decimal string, got 50000',
    );
    expect(() => parseOutflowLimits({ 'live-base': { USDC: { perSend: '1,000' } } })).toThrow(
      'CHAIN_OUTFLOW_LIMITS.live-base.USDC.perSend must be a positive decimal string',
    );
    expect(() => parseOutflowLimits({ 'live-base': { USDC: { perHour: '0' } } })).toThrow('perHour must be a positive decimal string');
    expect(() => parseOutflowLimits({ 'live-base': { USDC: { perDay: '10' } } })).toThrow('CHAIN_OUTFLOW_LIMITS.live-base.USDC.perDay is not a limit');
    expect(() => parseOutflowLimits({ 'live-base': ['USDC'] })).toThrow('CHAIN_OUTFLOW_LIMITS.live-base must be an object of token symbols');
  });

  it('refuses a send above the cap, or one the last hour of the chain or of the organization cannot take, in that order', () => {
    const limit = { perSend: '6', perHour: '10', perOrganizationPerHour: '6' };
    expect(outflowRefusal(limit, '6.000001', { chain: '0', organization: '0' })).toBe('perSend');
    expect(outflowRefusal(limit, '6', { chain: '0', organization: '0' })).toBeUndefined();
    expect(outflowRefusal(limit, '2', { chain: '4', organization: '4' })).toBeUndefined();
    expect(outflowRefusal(limit, '3', { chain: '4', organization: '4' })).toBe('perOrganizationPerHour');
    expect(outflowRefusal(limit, '3', { chain: '9', organization: '0' })).toBe('perHour');
    // A send naming no organization is judged by the chain's hour alone.
    expect(outflowRefusal(limit, '5', { chain: '4' })).toBeUndefined();
    expect(outflowRefusal({}, '1000000', { chain: '1000000' })).toBeUndefined();
  });
});
