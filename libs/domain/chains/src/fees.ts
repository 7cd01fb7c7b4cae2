/** EIP-1559 fees of a transaction, in wei per gas. */
export interface Eip1559Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * The fees of a replacement for a stuck transaction: what the network asks now, and at least 12.5% above the stuck
 * one on both fees (nodes refuse a replacement under +10%), rounded up; never above `cap` (the operator's ceiling),
 * which leaves the transaction as it is: undefined is returned when even the minimum bump would pass the cap.
 */
export function replacementFees(stuck: Eip1559Fees, network: Eip1559Fees, cap: bigint): Eip1559Fees | undefined {
  const bump = (value: bigint) => (value * 1125n + 999n) / 1000n;
  const priority = max(bump(stuck.maxPriorityFeePerGas), network.maxPriorityFeePerGas);
  const fee = max(bump(stuck.maxFeePerGas), network.maxFeePerGas, priority);
  if (fee > cap) return undefined;
  return { maxFeePerGas: fee, maxPriorityFeePerGas: priority };
}

/**
 * Gas a storage slot costs more when it is written from zero than from another value (EIP-2200/3529: 22,100 against
 * 5,000 with a cold slot), rounded up.
 */
const ZERO_SLOT_MARGIN = 20_000n;

/**
 * The gas limit of a send from the node's estimate: a fifth more, and one zero slot's write more. The estimate runs on
 * the pending state, which may change before the send is mined: a token's balance emptied meanwhile (a deposit
 * address swept between a mint's estimate and its block) makes the same call write a zero slot, and a send limited to
 * the estimate alone runs out of gas and reverts (seen in chain-faults.e2e: mints of 41,089 gas that needed 51,341).
 * Only the gas used is paid; the limit only bounds it.
 */
export function gasLimitOf(estimate: bigint): bigint {
  return (estimate * 12n) / 10n + ZERO_SLOT_MARGIN;
}

/** What a transaction cost its sender in gas, in wei. */
export function gasCost(gasUsed: bigint, effectiveGasPrice: bigint): bigint {
  return gasUsed * effectiveGasPrice;
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a));
}
