export interface Bank {
  /**
   * The code integrators send as `bankCode`: the 3-digit CBN code of a commercial, merchant or non-interest bank,
   * or the 6-digit NIBSS institution code of a microfinance bank, payment service bank or mobile money operator.
   */
  code: string;
  name: string;
}

/**
 * The institutions a Naira payout can reach, sorted by name: every licensed commercial, non-interest and the main
 * merchant banks (CBN codes), then the payment service banks, fintechs and microfinance banks people actually
 * hold accounts with (NIBSS codes). Heritage Bank (030) is absent: its licence was revoked in 2024.
 */
export const NIGERIAN_BANKS: readonly Bank[] = Object.freeze(
  [
    { code: '120001', name: '9 Payment Service Bank' },
    { code: '090270', name: 'AB Microfinance Bank' },
    { code: '044', name: 'Access Bank' },
    { code: '090134', name: 'Accion Microfinance Bank' },
    { code: '090136', name: 'Baobab Microfinance Bank' },
    { code: '100026', name: 'Carbon' },
    { code: '023', name: 'Citibank Nigeria' },
    { code: '559', name: 'Coronation Merchant Bank' },
    { code: '050', name: 'Ecobank Nigeria' },
    { code: '090551', name: 'FairMoney Microfinance Bank' },
    { code: '070', name: 'Fidelity Bank' },
    { code: '011', name: 'First Bank of Nigeria' },
    { code: '214', name: 'First City Monument Bank' },
    { code: '501', name: 'FSDH Merchant Bank' },
    { code: '103', name: 'Globus Bank' },
    { code: '058', name: 'Guaranty Trust Bank' },
    { code: '120002', name: 'HopePSB' },
    { code: '301', name: 'Jaiz Bank' },
    { code: '082', name: 'Keystone Bank' },
    { code: '090267', name: 'Kuda Microfinance Bank' },
    { code: '090177', name: 'LAPO Microfinance Bank' },
    { code: '303', name: 'Lotus Bank' },
    { code: '090405', name: 'Moniepoint Microfinance Bank' },
    { code: '120003', name: 'MTN MoMo Payment Service Bank' },
    { code: '100004', name: 'OPay' },
    { code: '107', name: 'Optimus Bank' },
    { code: '100002', name: 'Paga' },
    { code: '100033', name: 'PalmPay' },
    { code: '104', name: 'Parallex Bank' },
    { code: '076', name: 'Polaris Bank' },
    { code: '105', name: 'PremiumTrust Bank' },
    { code: '101', name: 'Providus Bank' },
    { code: '502', name: 'Rand Merchant Bank' },
    { code: '090198', name: 'Renmoney Microfinance Bank' },
    { code: '090175', name: 'Rubies Microfinance Bank' },
    { code: '106', name: 'Signature Bank' },
    { code: '120004', name: 'SmartCash Payment Service Bank' },
    { code: '090325', name: 'Sparkle Microfinance Bank' },
    { code: '221', name: 'Stanbic IBTC Bank' },
    { code: '068', name: 'Standard Chartered Bank' },
    { code: '232', name: 'Sterling Bank' },
    { code: '100', name: 'SunTrust Bank' },
    { code: '302', name: 'TAJBank' },
    { code: '102', name: 'Titan Trust Bank' },
    { code: '032', name: 'Union Bank of Nigeria' },
    { code: '033', name: 'United Bank for Africa' },
    { code: '215', name: 'Unity Bank' },
    { code: '090110', name: 'VFD Microfinance Bank' },
    { code: '035', name: 'Wema Bank' },
    { code: '057', name: 'Zenith Bank' },
  ].map((bank) => Object.freeze(bank)),
);

const BANKS_BY_CODE: ReadonlyMap<string, Bank> = new Map(NIGERIAN_BANKS.map((bank) => [bank.code, bank]));

/** The bank with exactly this code (no padding or trimming: "58" is not GTBank). */
export function findBank(code: string): Bank | undefined {
  return BANKS_BY_CODE.get(code);
}
