import type { OfframpQuote } from '@ramp/contracts';

/**
 * An off-ramp quote of 100 USDC on base paying 149,010.75 NGN to a GTBank account: the one the live payout tests
 * (the step's unit test and the end-to-end test) pay out, with the account they name.
 */
export function liveOfframpQuote(accountNumber = '0123456789', at = new Date().toISOString()): OfframpQuote.Response {
  return {
    quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D',
    expiresAt: at,
    cryptoAmount: '100',
    tokenSymbol: 'USDC',
    chain: 'base',
    fiatAmount: '149250.00',
    fiatCurrency: 'NGN',
    rate: '1492.5',
    fees: { providerFee: '199.25', platformFee: '20.00', swapFee: '20.00', totalFee: '239.25' },
    payoutAmount: '149010.75',
    bankAccount: { bankName: 'Guaranty Trust Bank', bankCode: '058', accountNumber, accountName: 'ADA OBI' },
  };
}
