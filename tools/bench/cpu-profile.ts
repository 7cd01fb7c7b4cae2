/**
 * What a V8 CPU profile (`node --cpu-prof`, the `.cpuprofile` Chrome's DevTools and speedscope open) says in a few
 * lines: where the sampled time went, by code (the package or workspace folder a function is in) and by function,
 * self time (the function itself) and total time (with what it called).
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds since the previous sample, one per sample. */
  timeDeltas: number[];
}

export interface TimeShare {
  name: string;
  /** Milliseconds sampled. */
  ms: number;
  /** Of the profile's sampled time, idle excluded. */
  share: number;
}

export interface ProfileSummary {
  /** Milliseconds sampled in all, idle excluded. */
  busyMs: number;
  idleMs: number;
  /** Self time by the code it was in (a package, a workspace folder, node's internals, the garbage collector). */
  byCode: TimeShare[];
  /** Self time by function. */
  bySelf: TimeShare[];
  /** Time with what it called, by function of the platform's own code. */
  byTotal: TimeShare[];
}

/** V8's pseudo-frames: time not spent in JavaScript. */
const PSEUDO: Record<string, string> = {
  '(garbage collector)': 'garbage collector',
  '(program)': 'native (V8, libuv, system calls)',
  '(idle)': 'idle',
  '(root)': 'native (V8, libuv, system calls)',
};

/**
 * The code a frame's script belongs to: the npm package (`pg`, `@nestjs/core`), the workspace folder (`libs/platform/
 * event-store`, `apps/ramp`), `node` for Node's own modules.
 */
export function codeOf(frame: Pick<CallFrame, 'functionName' | 'url'>): string {
  if (!frame.url) return PSEUDO[frame.functionName] ?? `native: ${frame.functionName || '(anonymous)'}`;
  if (frame.url.startsWith('node:') || !frame.url.includes('/')) return 'node';
  const path = frame.url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope, name] = path.slice(modules + '/node_modules/'.length).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  const workspace = /\/(?:dist\/)?((?:apps\/[^/]+)|(?:libs\/[^/]+(?:\/[^/]+)?)|(?:tools\/[^/]+))\//.exec(path);
  if (workspace) {
    const folder = workspace[1]!;
    // libs/platform/x and libs/domain/x name a library; libs/contracts/src is the library libs/contracts.
    return folder.endsWith('/src') ? folder.slice(0, -'/src'.length) : folder;
  }
  return path;
}

function functionOf(frame: CallFrame): string {
  if (!frame.url) return PSEUDO[frame.functionName] ?? frame.functionName;
  const file = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/dist\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

function top(totals: Map<string, number>, busyMs: number, count: number): TimeShare[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => ({ name, ms, share: busyMs > 0 ? ms / busyMs : 0 }));
}

/** Self and total time of a profile, by code and by function, the `count` largest of each. */
export function summarize(profile: CpuProfile, count = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map<number, number>();
  // The time delta that follows a sample is the time it stands for (V8's own reading of the two arrays).
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + Math.max(0, us));
  }
  const byCode = new Map<string, number>();
  const bySelf = new Map<string, number>();
  const byTotal = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || us === 0) continue;
    const ms = us / 1000;
    if (node.callFrame.functionName === '(idle)' && !node.callFrame.url) {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const code = codeOf(node.callFrame);
    byCode.set(code, (byCode.get(code) ?? 0) + ms);
    const name = functionOf(node.callFrame);
    bySelf.set(name, (bySelf.get(name) ?? 0) + ms);
    // Total time: each of the platform's own functions on the stack once (a recursive one is not counted twice).
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      // A module's top level (line 1 of no function) is its loading at start, not work under load: left out.
      const own = /^(apps|libs)\//.test(codeOf(frame)) && !(frame.functionName === '' && frame.lineNumber === 0);
      const key = functionOf(frame);
      if (!own || seen.has(key)) continue;
      seen.add(key);
      byTotal.set(key, (byTotal.get(key) ?? 0) + ms);
    }
  }
  return { busyMs, idleMs, byCode: top(byCode, busyMs, count), bySelf: top(bySelf, busyMs, count), byTotal: top(byTotal, busyMs, count) };
}

/** A summary as Markdown tables. */
export function renderSummary(title: string, summary: ProfileSummary): string {
  const table = (heading: string, rows: TimeShare[]) => [
    `| ${heading} | ms | share |`,
    '|---|---:|---:|',
    ...rows.map((row) => `| \`${row.name.replace(/\|/g, '\\|')}\` | ${row.ms.toFixed(0)} | ${(row.share * 100).toFixed(1)}% |`),
    '',
  ];
  return [
    `### ${title}`,
    '',
    `${summary.busyMs.toFixed(0)} ms busy (sampled), ${summary.idleMs.toFixed(0)} ms idle. Shares are of the busy time.`,
    '',
    ...table('self time by code', summary.byCode),
    ...table('self time by function', summary.bySelf.slice(0, 15)),
    ...table("total time by the platform's own function (with what it calls)", summary.byTotal.slice(0, 15)),
  ].join('\n');
}
