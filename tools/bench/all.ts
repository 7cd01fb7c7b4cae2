import { execFileSync } from 'child_process';
import { writeFileSync } from 'fs';
import { resolve } from 'path';
import { freshStack, WORKSPACE_ROOT } from '@ramp/testing';
import { benchChain } from './chain-bench';
import { benchEvents } from './events-bench';
import { benchMemory } from './memory-bench';
import { benchQuote } from './quote-bench';
import { machine, renderSection, type BenchSection } from './report';
import { benchWebhooks } from './webhooks-bench';

const OUTPUT = resolve(WORKSPACE_ROOT, 'docs/benchmarks.md');

/** `npm run bench`: every benchmark in one run on a fresh stack, written to docs/benchmarks.md. */
async function main(): Promise<void> {
  const started = Date.now();
  await freshStack(process.env.DATABASE_URL!, 'bench');
  const sections: BenchSection[] = [];
  for (const [name, bench] of [
    ['bench:quote', benchQuote],
    ['bench:events', benchEvents],
    ['bench:webhooks', benchWebhooks],
    ['bench:memory', benchMemory],
    ['bench:chain', benchChain],
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
