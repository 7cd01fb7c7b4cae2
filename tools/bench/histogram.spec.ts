import { bucketsSince, observations, quantile, readBuckets, readBucketsBy, sumBuckets } from './histogram';

const scrape = (settle: number[], pay: number[]) =>
  [
    '# HELP ramp_job_step_duration_seconds Seconds a step held a slot.',
    '# TYPE ramp_job_step_duration_seconds histogram',
    ...['0.01', '0.1', '1', '+Inf'].map(
      (le, i) => `ramp_job_step_duration_seconds_bucket{le="${le}",step="settle",outcome="done",service="ramp"} ${settle[i]}`,
    ),
    'ramp_job_step_duration_seconds_sum{step="settle",outcome="done",service="ramp"} 3.2',
    ...['0.01', '0.1', '1', '+Inf'].map((le, i) => `ramp_job_step_duration_seconds_bucket{le="${le}",step="pay",outcome="pending",service="ramp"} ${pay[i]}`),
    'ramp_job_step_duration_seconds_bucket_total{le="0.01"} 999',
    'ramp_rpc_server_duration_seconds_bucket{le="0.01",subject="x",outcome="ok",service="ramp"} 500',
  ].join('\n');

describe('bench histograms - quantiles from two scrapes of a Prometheus histogram', () => {
  it('sums the series of one histogram, and only those whose labels match', () => {
    const text = scrape([10, 60, 100, 100], [0, 0, 30, 40]);
    expect([...readBuckets(text, 'ramp_job_step_duration_seconds')]).toEqual([
      [0.01, 10],
      [0.1, 60],
      [1, 130],
      [Infinity, 140],
    ]);
    expect(observations(readBuckets(text, 'ramp_job_step_duration_seconds', { outcome: 'pending' }))).toBe(40);
    const bySteps = readBucketsBy(text, 'ramp_job_step_duration_seconds', 'step');
    expect([...bySteps.keys()].sort()).toEqual(['pay', 'settle']);
    expect(observations(bySteps.get('settle')!)).toBe(100);
    expect(readBucketsBy(text, 'ramp_job_step_duration_seconds', 'step', { outcome: 'done' }).get('pay')).toEqual(new Map());
  });

  it('counts what was observed between two scrapes, and adds services together', () => {
    const before = readBuckets(scrape([10, 20, 20, 20], [0, 0, 0, 0]), 'ramp_job_step_duration_seconds');
    const after = readBuckets(scrape([10, 60, 100, 100], [0, 0, 30, 40]), 'ramp_job_step_duration_seconds');
    const since = bucketsSince(before, after);
    expect([...since.values()]).toEqual([0, 40, 110, 120]);
    expect(observations(sumBuckets(since, since))).toBe(240);
  });

  it('interpolates within the bucket the rank falls in, as histogram_quantile does', () => {
    const buckets = new Map([
      [0.01, 0],
      [0.1, 50],
      [1, 100],
      [Infinity, 100],
    ]);
    expect(quantile(buckets, 0.5)).toBeCloseTo(0.1);
    expect(quantile(buckets, 0.25)).toBeCloseTo(0.055);
    expect(quantile(buckets, 0.99)).toBeCloseTo(0.982);
  });

  it('gives the highest finite bound for a rank in +Inf, and NaN with nothing observed', () => {
    expect(
      quantile(
        new Map([
          [1, 1],
          [Infinity, 10],
        ]),
        0.99,
      ),
    ).toBe(1);
    expect(
      quantile(
        new Map([
          [1, 0],
          [Infinity, 0],
        ]),
        0.5,
      ),
    ).toBeNaN();
  });
});
