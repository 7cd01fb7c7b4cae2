import { AppError } from '@ramp/contracts';
import { dec, formatNgnDown, formatRate } from '@ramp/money';
import { DEFAULT_OFFRAMP_FEES, rampFees } from './ramp-fees';
import { priceOfframp, priceOnramp } from './ramp-quotes';

const fees = (fiat: string, token = 'USDC') => {
  const breakdown = rampFees(dec(fiat), token, DEFAULT_OFFRAMP_FEES);
  return Object.fromEntries(Object.entries(breakdown).map(([name, value]) => [name, value.toFixed(2)]));
};

describe('off-ramp fee rules (API-SPEC)', () => {
  it('given 9,999.99 NGN, then no stamp duty', () => {
    expect(fees('9999.99')).toMatchObject({ processingFee: '10.00', stampDuty: '0.00', providerFee: '10.00', totalFee: '50.00' });
  });

  it('given exactly 10,000 NGN, then stamp duty of 50', () => {
    expect(fees('10000')).toMatchObject({ processingFee: '10.00', stampDuty: '50.00', providerFee: '60.00', totalFee: '100.00' });
  });

  it('caps the processing fee at 200 NGN: reached at 200,000 and held above it', () => {
    expect(fees('50000').processingFee).toBe('50.00');
    expect(fees('199999.99').processingFee).toBe('200.00');
    expect(fees('200000').processingFee).toBe('200.00');
    expect(fees('1000000').processingFee).toBe('200.00');
  });

  it('rounds 0.1% half-up to the kobo', () => {
    expect(fees('12345.67').processingFee).toBe('12.35');
    expect(fees('12344.99').processingFee).toBe('12.34');
    expect(fees('10005').processingFee).toBe('10.01');
  });

  it('charges the swap fee only when the token is not CNGN', () => {
    expect(fees('50000', 'CNGN').swapFee).toBe('0.00');
    for (const token of ['USDC', 'USDT', 'ETH', 'cbBTC', 'BNB']) expect(fees('50000', token).swapFee).toBe('20.00');
  });

  it.each(['1000', '9999.99', '10000', '123456.78', '200000', '5000000'])('totalFee is the sum of its parts for %s NGN', (fiat) => {
    const f = rampFees(dec(fiat), 'ETH', DEFAULT_OFFRAMP_FEES);
    expect(f.totalFee.eq(f.platformFee.add(f.providerFee).add(f.swapFee))).toBe(true);
    expect(f.providerFee.eq(f.processingFee.add(f.stampDuty))).toBe(true);
  });
});

describe('priceOfframp', () => {
  it('worked example: 100 USDC at 1,492.50 NGN', () => {
    const quote = priceOfframp({ cryptoAmount: dec('100'), tokenSymbol: 'USDC', tokenDecimals: 6, rate: dec('1492.5'), schedule: DEFAULT_OFFRAMP_FEES });
    expect(quote).toEqual({
      cryptoAmount: '100',
      fiatAmount: '149250.00',
      rate: '1492.5',
      fees: { providerFee: '199.25', platformFee: '20.00', swapFee: '20.00', totalFee: '239.25' },
      payoutAmount: '149010.75',
    });
  });

  it('rounds the fiat value down to the kobo', () => {
    const quote = priceOfframp({ cryptoAmount: dec('0.001234'), tokenSymbol: 'ETH', tokenDecimals: 18, rate: dec('4776000'), schedule: DEFAULT_OFFRAMP_FEES });
    // 0.001234 × 4,776,000 = 5,893.584 → 5,893.58
    expect(quote.fiatAmount).toBe('5893.58');
    expect(quote.fees.providerFee).toBe('5.89');
    expect(quote.payoutAmount).toBe('5847.69');
  });

  it('prices from the market when it can say (the pools): fiatAmount is what the crypto buys there, the rate what it got', () => {
    const market = (amount: any) => amount.mul('1494.123456789');
    const quote = priceOfframp({
      cryptoAmount: dec('100'),
      tokenSymbol: 'USDC',
      tokenDecimals: 6,
      rate: dec('1492.5'),
      schedule: DEFAULT_OFFRAMP_FEES,
      market,
    });
    expect(quote.fiatAmount).toBe('149412.34');
    expect(quote.rate).toBe(formatRate(dec('149412.34').div(100)));
    expect(quote.payoutAmount).toBe(formatNgnDown(dec('149412.34').sub(quote.fees.totalFee)));
    // A market that cannot say leaves the rate to price it.
    expect(
      priceOfframp({
        cryptoAmount: dec('100'),
        tokenSymbol: 'USDC',
        tokenDecimals: 6,
        rate: dec('1492.5'),
        schedule: DEFAULT_OFFRAMP_FEES,
        market: () => undefined,
      }).fiatAmount,
    ).toBe('149250.00');
  });

  it('refuses an amount whose fees exceed its value', () => {
    try {
      priceOfframp({ cryptoAmount: dec('0.01'), tokenSymbol: 'USDC', tokenDecimals: 6, rate: dec('1492.5'), schedule: DEFAULT_OFFRAMP_FEES });
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).field).toBe('amount');
      expect((error as AppError).message).toContain('too small');
    }
  });
});

describe('priceOnramp', () => {
  it('takes the fees from the Naira paid and cuts the token down to its decimals', () => {
    const quote = priceOnramp({ fiatAmount: dec('50000'), tokenSymbol: 'USDC', tokenDecimals: 6, rate: dec('1507.5'), schedule: DEFAULT_OFFRAMP_FEES });
    // fees: 20 + 50 (0.1%) + 50 (stamp) + 20 (swap) = 140; (50,000 − 140) / 1,507.5 = 33.07462686…
    expect(quote.fees).toEqual({ providerFee: '100.00', platformFee: '20.00', swapFee: '20.00', totalFee: '140.00' });
    expect(quote.cryptoAmount).toBe('33.074626');
    expect(quote.fiatAmount).toBe('50000.00');
  });

  it('buys on the market when it can say: the Naira after fees goes in as CNGN, the rate is what it got', () => {
    const seen: string[] = [];
    const market = (cngn: any) => {
      seen.push(cngn.toFixed());
      return cngn.div('1500.123');
    };
    const quote = priceOnramp({ fiatAmount: dec('50000'), tokenSymbol: 'USDC', tokenDecimals: 6, rate: dec('1507.5'), schedule: DEFAULT_OFFRAMP_FEES, market });
    expect(seen).toEqual(['49860']);
    expect(quote.cryptoAmount).toBe('33.237274');
    expect(quote.rate).toBe(formatRate(dec('49860').div('33.237274')));
  });

  it('converts CNGN one to one with no swap fee', () => {
    const quote = priceOnramp({ fiatAmount: dec('5000'), tokenSymbol: 'CNGN', tokenDecimals: 6, rate: dec('1'), schedule: DEFAULT_OFFRAMP_FEES });
    expect(quote.cryptoAmount).toBe('4975');
    expect(quote.fees.totalFee).toBe('25.00');
  });
});
