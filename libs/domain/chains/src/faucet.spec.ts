import { AppError } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { checkFaucetAmount, faucetLimitOf } from './faucet';

describe('faucet limits - what one request to a test chain faucet may send', () => {
  it('allows up to the token limit, to the last unit', () => {
    expect(() => checkFaucetAmount('USDC', dec('1000000'))).not.toThrow();
    expect(() => checkFaucetAmount('BNB', dec('1000'))).not.toThrow();
    expect(faucetLimitOf('cbBTC')).toBe('100');
  });

  it('refuses more with AMOUNT_TOO_LARGE naming the field and the limit', () => {
    const refuse = () => checkFaucetAmount('USDC', dec('1000000.000001'));
    expect(refuse).toThrow(AppError);
    expect(refuse).toThrow('amount: the faucet sends at most 1000000 USDC per request');
    try {
      refuse();
    } catch (error) {
      expect(error).toMatchObject({ reason: 'AMOUNT_TOO_LARGE', field: 'amount' });
    }
  });

  it('bounds a token it does not name', () => {
    expect(faucetLimitOf('POL')).toBe('1000000');
    expect(() => checkFaucetAmount('POL', dec('1000001'))).toThrow('at most 1000000 POL');
  });
});
