import { AppError } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { checkAmountLimits } from './limits';
import { DEFAULT_SWAP_FEES, parseSlippage, priceSwap, priceTransfer } from './swap-quotes';

const base = {
  fromDecimals: 6,
  toDecimals: 18,
  fromUsd: dec('1'),
  toUsd: dec('3200'),
  ngnPerUsd: dec('1500'),
  slippagePercent: dec('0.5'),
  schedule: DEFAULT_SWAP_FEES,
};

function ruleOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  throw new Error('expected an error');
}

describe('priceSwap', () => {
  it('given a same-chain swap, then no bridge fee and 0.3% platform fee', () => {
    const quote = priceSwap({ ...base, fromAmount: dec('250'), crossChain: false });
    expect(quote.fees).toEqual({ platformFee: '0.75', platformFeeFiat: '1125.00', bridgeFee: '0', totalFee: '0.75' });
    // (250 − 0.75) / 3200 = 0.077890625
    expect(quote.toAmount).toBe('0.077890625');
    expect(quote.rate).toBe('0.0003125');
    // × (1 − 0.005) = 0.077501171875
    expect(quote.minimumToAmount).toBe('0.077501171875');
  });

  it('given a small cross-chain swap, then the bridge fee is the 0.50 USD floor', () => {
    const quote = priceSwap({ ...base, toUsd: dec('1'), toDecimals: 18, fromAmount: dec('100'), crossChain: true });
    expect(quote.fees.bridgeFee).toBe('0.5');
    expect(quote.fees.totalFee).toBe('0.8');
    expect(quote.toAmount).toBe('99.2');
  });

  it('given a large cross-chain swap, then the bridge fee is 0.05%', () => {
    const quote = priceSwap({ ...base, toUsd: dec('1'), fromAmount: dec('10000'), crossChain: true });
    expect(quote.fees.bridgeFee).toBe('5');
  });

  it('refuses an amount the fees swallow', () => {
    expect(ruleOf(() => priceSwap({ ...base, toUsd: dec('1'), fromAmount: dec('0.4'), crossChain: true }))).toMatch(/^amount: is too small/);
  });
});

describe('priceTransfer', () => {
  it('keeps the amount one to one when the token stays, less the fees', () => {
    const quote = priceTransfer({ ...base, toUsd: dec('1'), toDecimals: 6, fromAmount: dec('100'), crossChain: true });
    expect(quote).toMatchObject({ fromAmount: '100', toAmount: '99.2', rate: '1' });
  });
});

describe('parseSlippage', () => {
  it.each([
    [undefined, '0.5'],
    [1, '1'],
    [0.25, '0.25'],
    ['2.5', '2.5'],
    [50, '50'],
  ])('accepts %p', (raw, expected) => {
    expect(parseSlippage(raw).toFixed()).toBe(expected);
  });

  it.each([0, -1, 50.01, 75, Number.NaN, Number.POSITIVE_INFINITY, 'lots', '1e1', true, {}])('refuses %p', (raw) => {
    expect(ruleOf(() => parseSlippage(raw))).toBe('slippage: must be a number greater than 0 and at most 50 (percent)');
  });
});

describe('checkAmountLimits', () => {
  it('names the limit and the symbol', () => {
    expect(ruleOf(() => checkAmountLimits(dec('0.5'), 'USDC', 'amount'))).toBe('amount: must be at least 1 USDC');
    expect(ruleOf(() => checkAmountLimits(dec('50000000.01'), 'NGN', 'amount'))).toBe('amount: must be at most 50000000 NGN');
    expect(() => checkAmountLimits(dec('1'), 'USDC', 'amount')).not.toThrow();
    expect(() => checkAmountLimits(dec('0.0000001'), 'UNLISTED', 'amount')).not.toThrow();
  });
});
