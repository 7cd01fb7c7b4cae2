import { execFileSync } from 'child_process';
import { readdirSync, readFileSync } from 'fs';
import { cpus, totalmem } from 'os';

/**
 * What every benchmark reports: each figure beside its baseline measured in the same run, and their ratio. The
 * benchmarks (`npm run bench:*`) print their sections; `npm run bench` writes them all into docs/benchmarks.md.
 */
export interface BenchRow {
  measure: string;
  /** What the figure is compared with, e.g. "bare Fastify endpoint". */
  baselineLabel: string;
  baseline: number;
  result: number;
  unit: string;
  /** `higher`: throughput (ratio as a share of the baseline); `lower`: latency, memory (ratio as a multiple). */
  better: 'higher' | 'lower';
  target?: string;
}

export interface BenchSection {
  title: string;
  /** The command that measures it. */
  command: string;
  rows: BenchRow[];
  notes: string[];
}

/** The ratio of a figure to its baseline as it reads best: a share for throughput, a multiple for costs. */
export function ratio(row: Pick<BenchRow, 'baseline' | 'result' | 'better'>): string {
  if (!(row.baseline > 0) || !Number.isFinite(row.result)) return 'n/a';
  const value = row.result / row.baseline;
  return row.better === 'higher' ? `${(value * 100).toFixed(value < 0.1 ? 1 : 0)}%` : `${value.toFixed(value < 10 ? 2 : 1)}×`;
}

function figure(value: number, unit: string): string {
  if (!Number.isFinite(value)) return 'n/a';
  // Memory to a tenth of a MiB (services differ by less than 1 MiB); counts and rates whole; small figures to a tenth,
  // and those below 1 (CPU milliseconds per request) to a hundredth.
  const digits = unit === 'MiB' ? 1 : Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : Math.abs(value) < 1 ? 2 : 1;
  return `${value.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

export function renderSection(section: BenchSection): string {
  const lines = [
    `## ${section.title}`,
    '',
    `\`${section.command}\``,
    '',
    '| measure | baseline (same run) | result | ratio | target |',
    '|---|---|---|---|---|',
    ...section.rows.map(
      (row) =>
        `| ${row.measure} | ${row.baselineLabel}: ${figure(row.baseline, row.unit)} | ${figure(row.result, row.unit)} | ${ratio(row)} | ${row.target ?? ''} |`,
    ),
  ];
  if (section.notes.length) lines.push('', ...section.notes.map((note) => `- ${note}`));
  return `${lines.join('\n')}\n`;
}

/** The machine the figures were measured on: they mean little without it. */
export function machine(): string[] {
  const version = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .trim()
        .split('\n')[0]!;
    } catch {
      return 'unknown';
    }
  };
  let kernel = 'unknown';
  try {
    kernel = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
  } catch {
    // not Linux
  }
  return [
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${kernel}`,
    `Node.js ${process.version}; ${version('psql', ['--version'])}; ${version('redis-server', ['--version']).replace(/ sha=.*$/, '')}; nats-server ${version('nats-server', ['--version']).replace(/^nats-server: v?/, '')}`,
    'Everything (load generator, services, PostgreSQL, NATS, Redis) shares these cores: the ratios, measured back to back in one run, are the figures to compare between machines.',
  ];
}

/** Runs a benchmark's sections from its own `npm run bench:*` command: prints them, exits 1 on failure. */
export function runAlone(name: string, run: () => Promise<BenchSection[]>): void {
  run()
    .then((sections) => process.stdout.write(`${machine().join('\n')}\n\n${sections.map(renderSection).join('\n')}`))
    .catch((error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}

/** Resident memory of a process now (VmRSS) and at its peak (VmHWM), in MiB; NaN where /proc cannot tell. */
export function residentMemory(pid: number | undefined): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { now: NaN, peak: NaN };
  }
}

/** CPU seconds (user and system) a process has used so far, from /proc (clock ticks of 1/100 s). */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU seconds used so far by every process of a program (`postgres`, `nats-server`), summed, to take differences of. */
export function programCpuSeconds(command: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === command) total += cpuSeconds(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * CPU seconds used from now on by each process named and by all of PostgreSQL's and the NATS server's processes:
 * call the returned function for the time since, by name.
 */
export function cpuMeter(pids: Iterable<[string, number | undefined]>): () => Map<string, number> {
  const named = [...pids];
  const read = () =>
    new Map<string, number>([
      ...named.map(([name, pid]): [string, number] => [name, cpuSeconds(pid)]),
      ['PostgreSQL', programCpuSeconds('postgres')],
      ['NATS server', programCpuSeconds('nats-server')],
    ]);
  const started = read();
  return () => {
    const now = read();
    return new Map([...started].map(([name, seconds]) => [name, now.get(name)! - seconds]));
  };
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
