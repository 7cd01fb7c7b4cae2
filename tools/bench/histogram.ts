/**
 * A Prometheus histogram read from the text a service's /metrics serves: its cumulative bucket counts summed over the
 * series that match, so that two scrapes can be subtracted and a quantile read as histogram_quantile does (linear
 * within the bucket it falls in).
 */
export type Buckets = Map<number, number>;

/** The buckets (upper bound → cumulative count) of the histogram `name`, summed over its series whose labels match. */
export function readBuckets(metricsText: string, name: string, labels: Record<string, string> = {}): Buckets {
  const buckets: Buckets = new Map();
  const line = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm');
  for (const [, labelText, value] of metricsText.matchAll(line)) {
    const parsed = Object.fromEntries([...labelText!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key!, text!]));
    if (Object.entries(labels).some(([key, wanted]) => parsed[key] !== wanted)) continue;
    const le = parsed['le'] === '+Inf' ? Infinity : Number(parsed['le']);
    buckets.set(le, (buckets.get(le) ?? 0) + Number(value));
  }
  return buckets;
}

/** The same, one histogram per value of the label `by` (a step, an outcome) among the series whose labels match. */
export function readBucketsBy(metricsText: string, name: string, by: string, labels: Record<string, string> = {}): Map<string, Buckets> {
  const values = new Set([...metricsText.matchAll(new RegExp(`^${name}_bucket\\{[^}]*\\b${by}="((?:[^"\\\\]|\\\\.)*)"`, 'gm'))].map(([, value]) => value!));
  return new Map([...values].map((value) => [value, readBuckets(metricsText, name, { ...labels, [by]: value })]));
}

/** What was observed between two reads of the same histogram (bucket by bucket; the earlier read may be empty). */
export function bucketsSince(before: Buckets, after: Buckets): Buckets {
  return new Map([...after].map(([le, count]) => [le, count - (before.get(le) ?? 0)]));
}

export function sumBuckets(...all: Buckets[]): Buckets {
  const sum: Buckets = new Map();
  for (const buckets of all) for (const [le, count] of buckets) sum.set(le, (sum.get(le) ?? 0) + count);
  return sum;
}

/** How many observations the buckets hold. */
export function observations(buckets: Buckets): number {
  return buckets.get(Infinity) ?? 0;
}

/**
 * The q-quantile (0 < q < 1) of the observations, interpolated linearly within its bucket (the first bucket starts at
 * 0); NaN with no observation; the highest finite bound when it falls in +Inf, as histogram_quantile gives.
 */
export function quantile(buckets: Buckets, q: number): number {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = observations(buckets);
  if (total === 0) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const le of bounds) {
    const count = buckets.get(le)!;
    if (count >= rank) {
      if (le === Infinity) return lower;
      return count === below ? le : lower + ((le - lower) * (rank - below)) / (count - below);
    }
    lower = le;
    below = count;
  }
  return lower;
}
