import { dec, minDec, NGN_DECIMALS, ROUND_HALF_UP, type Decimal } from '@ramp/money';

/** A ramp fee schedule, in Naira (decimal strings). */
export interface RampFeeSchedule {
  platformFee: string;
  /** Processing fee as a fraction of the fiat amount (0.001 = 0.1%). */
  processingRate: string;
  processingCap: string;
  stampDuty: string;
  /** Stamp duty applies when the fiat amount is this or more. */
  stampDutyThreshold: string;
  /** Charged when the token is not CNGN, for the conversion to or from CNGN. */
  swapFee: string;
}

/** The spec's off-ramp rules. */
export const DEFAULT_OFFRAMP_FEES: RampFeeSchedule = {
  platformFee: '20',
  processingRate: '0.001',
  processingCap: '200',
  stampDuty: '50',
  stampDutyThreshold: '10000',
  swapFee: '20',
};

/** On-ramps use the same schedule unless configured otherwise (ONRAMP_FEES). */
export const DEFAULT_ONRAMP_FEES: RampFeeSchedule = { ...DEFAULT_OFFRAMP_FEES };

export interface RampFeeBreakdown {
  platformFee: Decimal;
  processingFee: Decimal;
  stampDuty: Decimal;
  /** The bank-side charges: processing fee plus stamp duty. */
  providerFee: Decimal;
  swapFee: Decimal;
  totalFee: Decimal;
}

const kobo = (value: Decimal) => value.toDecimalPlaces(NGN_DECIMALS, ROUND_HALF_UP);

/** The fees of a ramp of `fiatAmount` Naira in `tokenSymbol`, each rounded half-up to the kobo. */
export function rampFees(fiatAmount: Decimal, tokenSymbol: string, schedule: RampFeeSchedule): RampFeeBreakdown {
  const platformFee = kobo(dec(schedule.platformFee));
  const processingFee = kobo(minDec(fiatAmount.mul(schedule.processingRate), dec(schedule.processingCap)));
  const stampDuty = fiatAmount.greaterThanOrEqualTo(schedule.stampDutyThreshold) ? kobo(dec(schedule.stampDuty)) : dec(0);
  const swapFee = tokenSymbol === 'CNGN' ? dec(0) : kobo(dec(schedule.swapFee));
  const providerFee = processingFee.add(stampDuty);
  return { platformFee, processingFee, stampDuty, providerFee, swapFee, totalFee: platformFee.add(providerFee).add(swapFee) };
}
