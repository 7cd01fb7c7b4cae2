/**
 * The lane a send goes out through: the one with the fewest sends open (queued, or signed and not final), the first of
 * them on a tie, so that a lane that is stuck or slow gets none until it catches up. `open`: each ready lane's open
 * sends, in the order of preference (the chain service lists the hot wallet last); at least one.
 */
export function leastLoaded(open: readonly number[]): number {
  if (open.length === 0) throw new Error('no lane to choose from');
  let best = 0;
  for (let i = 1; i < open.length; i++) if (open[i]! < open[best]!) best = i;
  return best;
}
