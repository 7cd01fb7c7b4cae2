/** What a send of the hot wallet mined but not final yet did, that the books do not hold yet. */
export interface MinedSend {
  /** Its gas, in base units of the native coin. */
  gas: bigint;
  /** What it moved: positive what left the hot wallet, negative what arrived. */
  moved: { symbol: string; units: bigint }[];
}

/**
 * What the books should hold per token, from what the chain shows at one block: the balances of the hot wallet and the
 * unswept deposit addresses, less what was seen arriving but not credited yet (`uncredited`), plus what sends mined but
 * not final yet took out (their gas and what they moved out; less what they brought in).
 */
export function bookedHoldings(
  balances: ReadonlyMap<string, bigint>,
  uncredited: { symbol: string; units: bigint }[],
  mined: MinedSend[],
  nativeSymbol: string,
): Map<string, bigint> {
  const held = new Map(balances);
  for (const deposit of uncredited) held.set(deposit.symbol, held.get(deposit.symbol)! - deposit.units);
  for (const send of mined) {
    held.set(nativeSymbol, held.get(nativeSymbol)! + send.gas);
    for (const moved of send.moved) held.set(moved.symbol, held.get(moved.symbol)! + moved.units);
  }
  return held;
}
