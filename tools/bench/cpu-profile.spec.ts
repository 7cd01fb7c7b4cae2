import { codeOf, renderSummary, summarize, type CpuProfile } from './cpu-profile';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, scriptId: '0', columnNumber: 0 });

/**
 * root ─ program
 *      ├ idle
 *      ├ gc
 *      └ handle (apps/ramp) ─ query (node_modules/pg) ─ parse (node:internal)
 *                           └ append (libs/platform/event-store)
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
    { id: 2, callFrame: frame('(program)') },
    { id: 3, callFrame: frame('(idle)') },
    { id: 4, callFrame: frame('(garbage collector)') },
    { id: 5, callFrame: frame('handle', 'file:///w/dist/apps/ramp/src/ramp/steps.js', 9), children: [6, 8] },
    { id: 6, callFrame: frame('query', 'file:///w/node_modules/pg/lib/client.js', 99), children: [7] },
    { id: 7, callFrame: frame('parse', 'node:internal/buffer') },
    { id: 8, callFrame: frame('append', 'file:///w/dist/libs/platform/event-store/src/event-log.js', 19) },
    { id: 9, callFrame: frame('', 'file:///w/dist/apps/ramp/src/main.js', 0), children: [10] },
    { id: 10, callFrame: frame('bootstrap', 'file:///w/dist/apps/ramp/src/main.js', 4) },
  ],
  startTime: 0,
  endTime: 100_000,
  // Each sample stands for the delta after it: handle 1 ms, query 2 ms, parse 3 ms, append 4 ms, gc 5 ms, program 6 ms,
  // idle 70 ms, bootstrap 0.5 ms (under main.js's top level, which is loading, not a function of the platform's).
  samples: [5, 6, 7, 8, 4, 2, 3, 10],
  timeDeltas: [0, 1000, 2000, 3000, 4000, 5000, 6000, 70_000, 500],
};

describe('bench CPU profiles - where the sampled time of a --cpu-prof went', () => {
  it('names the code a frame is in: an npm package, a workspace folder, node, a V8 pseudo-frame', () => {
    expect(codeOf({ functionName: 'x', url: 'file:///w/node_modules/@nestjs/core/router.js' })).toBe('@nestjs/core');
    expect(codeOf({ functionName: 'x', url: 'file:///w/node_modules/a/node_modules/pg-protocol/dist/parser.js' })).toBe('pg-protocol');
    expect(codeOf({ functionName: 'x', url: 'file:///w/dist/libs/platform/event-store/src/event-log.js' })).toBe('libs/platform/event-store');
    expect(codeOf({ functionName: 'x', url: 'file:///w/dist/libs/contracts/src/index.js' })).toBe('libs/contracts');
    expect(codeOf({ functionName: 'x', url: 'file:///w/dist/apps/ramp/src/main.js' })).toBe('apps/ramp');
    expect(codeOf({ functionName: 'x', url: 'node:internal/streams/readable' })).toBe('node');
    expect(codeOf({ functionName: '(garbage collector)', url: '' })).toBe('garbage collector');
  });

  it("sums self time by code and by function, idle apart, and the platform's functions' total time", () => {
    const summary = summarize(profile);
    expect(summary.idleMs).toBe(70);
    expect(summary.busyMs).toBe(21.5);
    expect(summary.byCode.map(({ name, ms }) => [name, ms])).toEqual([
      ['native (V8, libuv, system calls)', 6],
      ['garbage collector', 5],
      ['libs/platform/event-store', 4],
      ['node', 3],
      ['pg', 2],
      ['apps/ramp', 1.5],
    ]);
    expect(summary.bySelf[2]).toEqual({ name: 'append libs/platform/event-store/src/event-log.js:20', ms: 4, share: 4 / 21.5 });
    // handle: itself, query, parse and append; append: itself; bootstrap: itself, not its module's loading.
    expect(summary.byTotal.map(({ name, ms }) => [name, ms])).toEqual([
      ['handle apps/ramp/src/ramp/steps.js:10', 10],
      ['append libs/platform/event-store/src/event-log.js:20', 4],
      ['bootstrap apps/ramp/src/main.js:5', 0.5],
    ]);
    expect(renderSummary('ramp', summary)).toContain('| `libs/platform/event-store` | 4 | 18.6% |');
  });
});
