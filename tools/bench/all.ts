import { execFileSync } from 'child_process';
import { writeFileSync } from 'fs';
import { resolve } from 'path';
import { connect } from 'nats';
import { Client } from 'pg';
import { WORKSPACE_ROOT } from '@ramp/testing';
import { benchEvents } from './events-bench';
import { benchMemory } from './memory-bench';
import { benchQuote } from './quote-bench';
import { machine, renderSection, type BenchSection } from './report';
import { benchWebhooks } from './webhooks-bench';

const OUTPUT = resolve(WORKSPACE_ROOT, 'docs/benchmarks.md');

/** A fresh stack for the run: a new bench database, and no stream of the `bench` namespace. */
async function freshStack(): Promise<void> {
  const url = new URL(process.env.DATABASE_URL!);
  const database = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${database}" with (force)`);
  } finally {
    await admin.end();
  }
  const nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
  try {
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) if (stream.config.name.endsWith('_BENCH')) await jsm.streams.delete(stream.config.name);
  } finally {
    await nc.close();
  }
}

/** `npm run bench`: every benchmark in one run on a fresh stack, written to docs/benchmarks.md. */
async function main(): Promise<void> {
  const started = Date.now();
  await freshStack();
  const sections: BenchSection[] = [];
  for (const [name, bench] of [
    ['bench:quote', benchQuote],
    ['bench:events', benchEvents],
    ['bench:webhooks', benchWebhooks],
    ['bench:memory', benchMemory],
  ] as const) {
    process.stderr.write(`[bench] ${name}\n`);
    sections.push(...(await bench()));
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: WORKSPACE_ROOT, encoding: 'utf8' }).trim();
  const commit = `\`${git('rev-parse', '--short', 'HEAD')}\`${git('status', '--porcelain', '--untracked-files=no') ? ' with uncommitted changes' : ''}`;
  const document = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} at commit ${commit}, in ${Math.round((Date.now() - started) / 1000)} s: every`,
    'benchmark of the platform in one run on a fresh stack (a new `ramp_platform_bench` database, no stream of the `bench`',
    'namespace), each figure beside a baseline measured in the same run, and their ratio: a share of the baseline for',
    'throughput, a multiple of it for latency and memory. Each section names the command that measures it alone.',
    '',
    '**Machine.**',
    '',
    ...machine().map((line) => `- ${line}`),
    '',
    ...sections.map(renderSection).flatMap((section) => [section]),
  ].join('\n');
  writeFileSync(OUTPUT, document);
  process.stdout.write(document);
  process.stderr.write(`[bench] written to ${OUTPUT}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
