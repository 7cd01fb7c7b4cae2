import { offrampSettlementAmount, offrampSwapMinimum, onrampSwapMinimum, rampSwapMinimum, RAMP_SWAP_TOLERANCE } from './onchain';

describe('ramps on chain - what the swaps must give and what the provider is sent', () => {
  const fees = { providerFee: '199.25', platformFee: '20.00', swapFee: '20.00', totalFee: '239.25' };

  it('tolerates 1% below the quote before a ramp swap reverts', () => {
    expect(RAMP_SWAP_TOLERANCE).toBe('0.01');
    expect(rampSwapMinimum('100', 6)).toBe('99');
  });

  it("an off-ramp's swap must give the quote's Naira less 1% in CNGN, cut down to CNGN's decimals", () => {
    expect(offrampSwapMinimum({ fiatAmount: '149250.00' }, 6)).toBe('147757.5');
    expect(offrampSwapMinimum({ fiatAmount: '1234.57' }, 6)).toBe('1222.2243');
    expect(offrampSwapMinimum({ fiatAmount: '0.01' }, 2)).toBe('0');
  });

  it("an on-ramp's swap must give the quoted token less 1%, cut down to the token's decimals", () => {
    expect(onrampSwapMinimum({ cryptoAmount: '33.074626' }, 6)).toBe('32.743879');
    expect(onrampSwapMinimum({ cryptoAmount: '0.012345678901234567' }, 18)).toBe('0.012222222112222221');
  });

  it('sends the provider the payout and its own fee; the platform keeps its fees', () => {
    expect(offrampSettlementAmount({ payoutAmount: '149010.75', fees })).toBe('149210');
    expect(offrampSettlementAmount({ payoutAmount: '4975.00', fees: { ...fees, providerFee: '4.98' } })).toBe('4979.98');
  });
});
