import { execFileSync } from 'child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { gzipSync } from 'zlib';
import { Pool } from 'pg';
import { ensureDatabase } from '@ramp/database';
import { WORKSPACE_ROOT } from '@ramp/testing';
import { renderSummary, summarize, type CpuProfile } from './cpu-profile';
import { benchMemory } from './memory-bench';
import { machine, renderSection } from './report';

const OUTPUT = resolve(WORKSPACE_ROOT, 'docs/profiles');
const STATEMENTS = 30;

interface Statement {
  calls: string;
  total_ms: number;
  mean_ms: number;
  rows: string;
  query: string;
}

/**
 * `npm run profile`: bench:memory's mixed load with every service under `--cpu-prof` and PostgreSQL's statements counted
 * (pg_stat_statements), written to docs/profiles/: README.md (where each process's time went, the statements that
 * cost most, what the load was) and each service's profile (`<service>.cpuprofile.gz`: gunzip it, then open it in
 * Chrome's DevTools, Performance tab, or https://www.speedscope.app for its flame graph).
 */
async function main(): Promise<void> {
  // A fresh machine has no bench database yet: bench:memory would create it, but its statements are reset before.
  await ensureDatabase(process.env.DATABASE_URL!);
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const profiles = mkdtempSync(join(tmpdir(), 'ramp-profile-'));
  try {
    const statements = await statementsAvailable(pool);
    const count = async () =>
      Number((await pool.query<{ n: string }>('select count(*) as n from ledger.transactions').catch(() => ({ rows: [{ n: '0' }] }))).rows[0]!.n);
    const before = await count();
    if (statements) await pool.query('select pg_stat_statements_reset()');
    process.env.SERVICE_CPU_PROFILE_DIR = profiles;
    const sections = await benchMemory();
    const transactions = (await count()) - before;
    const top = statements ? await topStatements(pool) : undefined;

    rmSync(OUTPUT, { recursive: true, force: true });
    mkdirSync(OUTPUT, { recursive: true });
    const services = readdirSync(profiles).sort();
    const summaries = services.map((service) => {
      const files = readdirSync(join(profiles, service)).filter((file) => file.endsWith('.cpuprofile'));
      if (files.length !== 1) throw new Error(`${service} wrote ${files.length} CPU profiles, not one`);
      const raw = readFileSync(join(profiles, service, files[0]!));
      writeFileSync(join(OUTPUT, `${service}.cpuprofile.gz`), gzipSync(raw, { level: 9 }));
      return renderSummary(service, summarize(JSON.parse(raw.toString('utf8')) as CpuProfile));
    });
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: WORKSPACE_ROOT, encoding: 'utf8' }).trim();
    const document = [
      '# Profiles of the mixed load',
      '',
      `Written by \`npm run profile\` on ${new Date().toISOString().slice(0, 10)} at commit \`${commit}\`: \`npm run bench:memory\`'s mixed load`,
      `(${transactions} transactions of every type, each with a webhook and a callback) with every service started under`,
      "`node --cpu-prof`, and PostgreSQL's statements counted by `pg_stat_statements` over the same run. Each service's",
      'profile is beside this file (`<service>.cpuprofile.gz`): gunzip it and open it in Chrome DevTools (Performance,',
      '"Load profile") or https://www.speedscope.app for its flame graph. The profiles cover each process\'s whole life',
      '(start, the idle wait, the load, the drain); idle time is left out of the shares.',
      '',
      '**Machine.**',
      '',
      ...machine().map((line) => `- ${line}`),
      '',
      '## PostgreSQL: the statements that cost most',
      '',
      ...(top
        ? renderStatements(top, transactions)
        : [
            'pg_stat_statements was not loaded on this server, so no statement figures: add it to `shared_preload_libraries`',
            "(`alter system set shared_preload_libraries = 'pg_stat_statements'`, then restart PostgreSQL) and run again.",
            '',
          ]),
      '## Each service',
      '',
      ...summaries,
      '## The load',
      '',
      ...sections.map(renderSection),
    ].join('\n');
    writeFileSync(join(OUTPUT, 'README.md'), document);
    process.stdout.write(document);
    process.stderr.write(`[profile] written to ${OUTPUT}\n`);
  } finally {
    rmSync(profiles, { recursive: true, force: true });
    await pool.end();
  }
}

/** Whether pg_stat_statements counts this server's statements (it must be preloaded), creating its view if need be. */
async function statementsAvailable(pool: Pool): Promise<boolean> {
  const loaded = await pool.query<{ shared_preload_libraries: string }>('show shared_preload_libraries');
  if (!loaded.rows[0]!.shared_preload_libraries.split(',').some((library) => library.trim() === 'pg_stat_statements')) return false;
  await pool.query('create extension if not exists pg_stat_statements');
  return true;
}

async function topStatements(pool: Pool): Promise<{ byTime: Statement[]; byCalls: Statement[]; calls: number; totalMs: number }> {
  const of = (order: string) =>
    pool.query<Statement>(
      `select calls, total_exec_time as total_ms, mean_exec_time as mean_ms, rows, query from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) order by ${order} desc limit ${STATEMENTS}`,
    );
  const totals = await pool.query<{ calls: string; total_ms: number }>(
    `select coalesce(sum(calls), 0) as calls, coalesce(sum(total_exec_time), 0) as total_ms from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())`,
  );
  return {
    byTime: (await of('total_exec_time')).rows,
    byCalls: (await of('calls')).rows,
    calls: Number(totals.rows[0]!.calls),
    totalMs: Number(totals.rows[0]!.total_ms),
  };
}

function renderStatements(top: { byTime: Statement[]; byCalls: Statement[]; calls: number; totalMs: number }, transactions: number): string[] {
  const perTransaction = (value: number) => (transactions > 0 ? (value / transactions).toFixed(1) : 'n/a');
  const text = (query: string) => `\`${query.replace(/\s+/g, ' ').trim().slice(0, 220).replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
  const table = (rows: Statement[]) => [
    '| calls | per transaction | total ms | mean ms | statement |',
    '|---:|---:|---:|---:|---|',
    ...rows.map(
      (row) =>
        `| ${row.calls} | ${perTransaction(Number(row.calls))} | ${Number(row.total_ms).toFixed(0)} | ${Number(row.mean_ms).toFixed(3)} | ${text(row.query)} |`,
    ),
    '',
  ];
  return [
    `${top.calls} statements executed (${perTransaction(top.calls)} per transaction), ${top.totalMs.toFixed(0)} ms of execution in all (${perTransaction(top.totalMs)} ms per transaction); transaction control (begin, commit) included.`,
    '',
    '### By time spent',
    '',
    ...table(top.byTime),
    '### By calls',
    '',
    ...table(top.byCalls),
  ];
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
