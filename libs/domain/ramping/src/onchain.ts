import type { OfframpQuote, OnrampQuote } from '@ramp/contracts';
import { dec, formatToken, ROUND_DOWN } from '@ramp/money';

/**
 * How a ramp's crypto side runs: on the platform's pools and hot wallet of a chain that has them (`onchain`, decided at
 * initiation and recorded, so that a replay runs it the same way), or on the sandbox's rails (`simulated`: a chain
 * without a node, or one the environment did not configure).
 */
export type RampSettlement = 'onchain' | 'simulated';

/**
 * How far a ramp's swap may fall short of its quote before it reverts: 1%. The customer is paid (or credited) exactly
 * what was quoted; within this tolerance the platform's treasury makes up the difference (or keeps the surplus), and
 * beyond it the swap reverts on chain and the ramp gives back what it took.
 */
export const RAMP_SWAP_TOLERANCE = '0.01';

/** The ledger's accounts the ramps' chain sends are charged to (the off-ramp provider's; off-ramps' deposits). */
export { OFFRAMP_DEPOSITS, OFFRAMP_PROVIDER } from '@ramp/bookkeeping';

/** Where on-ramped tokens come from in the ledger: the platform's liquidity, and the chain's side of its swap and delivery. */
export const ONRAMP_LIQUIDITY = 'onramp-liquidity';

/** The least a ramp's swap must give for `quoted` (in a token of `decimals`): the quoted amount less the tolerance, cut down. */
export function rampSwapMinimum(quoted: string, decimals: number): string {
  return formatToken(dec(quoted).mul(dec(1).sub(RAMP_SWAP_TOLERANCE)).toDecimalPlaces(decimals, ROUND_DOWN), decimals);
}

/**
 * The CNGN an off-ramp sends the provider: what the bank account receives plus the provider's fee (CNGN is 1:1 with the
 * Naira). The platform's own fees stay in its treasury.
 */
export function offrampSettlementAmount(quote: Pick<OfframpQuote.Response, 'payoutAmount' | 'fees'>): string {
  return dec(quote.payoutAmount).add(quote.fees.providerFee).toFixed();
}

/** The least CNGN an off-ramp's swap to CNGN must give: its quoted Naira value less the tolerance. */
export function offrampSwapMinimum(quote: Pick<OfframpQuote.Response, 'fiatAmount'>, cngnDecimals: number): string {
  return rampSwapMinimum(quote.fiatAmount, cngnDecimals);
}

/** The least an on-ramp's swap from CNGN must give of the bought token: the quoted amount less the tolerance. */
export function onrampSwapMinimum(quote: Pick<OnrampQuote.Response, 'cryptoAmount'>, decimals: number): string {
  return rampSwapMinimum(quote.cryptoAmount, decimals);
}
