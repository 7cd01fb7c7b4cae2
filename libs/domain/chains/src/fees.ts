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

/** What a transaction cost its sender in gas, in wei. */
export function gasCost(gasUsed: bigint, effectiveGasPrice: bigint): bigint {
  return gasUsed * effectiveGasPrice;
}

function max(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b > a ? b : a));
}
