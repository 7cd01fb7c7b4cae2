import { ratio, renderSection } from './report';

describe('bench report', () => {
  it('gives throughput as a share of its baseline, and latency or memory as a multiple of it', () => {
    expect(ratio({ baseline: 9793, result: 2257, better: 'higher' })).toBe('23%');
    expect(ratio({ baseline: 1000, result: 42, better: 'higher' })).toBe('4.2%');
    expect(ratio({ baseline: 5, result: 99, better: 'lower' })).toBe('19.8×');
    expect(ratio({ baseline: 122, result: 258, better: 'lower' })).toBe('2.11×');
  });

  it('says n/a rather than dividing by a baseline of zero or reading a missing figure', () => {
    expect(ratio({ baseline: 0, result: 3, better: 'lower' })).toBe('n/a');
    expect(ratio({ baseline: 10, result: NaN, better: 'higher' })).toBe('n/a');
  });

  it('renders each figure beside its baseline, with the ratio, the target and the command', () => {
    const text = renderSection({
      title: 'Quote path',
      command: 'npm run bench:quote',
      rows: [
        { measure: 'throughput', baselineLabel: 'bare Fastify endpoint', baseline: 9793.4, result: 2257.2, unit: 'req/s', better: 'higher', target: '≥ 15%' },
      ],
      notes: ['no errors'],
    });
    expect(text).toBe(
      [
        '## Quote path',
        '',
        '`npm run bench:quote`',
        '',
        '| measure | baseline (same run) | result | ratio | target |',
        '|---|---|---|---|---|',
        '| throughput | bare Fastify endpoint: 9,793 req/s | 2,257 req/s | 23% | ≥ 15% |',
        '',
        '- no errors',
        '',
      ].join('\n'),
    );
  });
});
