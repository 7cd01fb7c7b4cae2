import { Pool } from 'pg';
import { Config } from '@ramp/config';
import { resolveChains } from '@ramp/evm';
import { devStateProblems } from './dev/dev-state';

/**
 * `npm start`'s check before it runs the services: the development database against the local chains (devStateProblems).
 * Exits 1 with one message naming the fix when they disagree, 0 when they agree.
 */
async function main(): Promise<void> {
  const config = new Config();
  const pool = new Pool({ connectionString: config.string('databaseUrl'), max: 1 });
  try {
    const problems = await devStateProblems(pool, resolveChains('test', config.json('testChains'), 'TEST_CHAINS'));
    if (problems.length === 0) return;
    process.stderr.write(
      [
        'The development database and the local chains disagree:',
        ...problems.map((problem) => `  - ${problem}`),
        "Run `npm run dev:reset` to start both afresh (it deletes the development database, its event streams and the local chains' state), then `npm start`.",
        '',
      ].join('\n'),
    );
    process.exitCode = 1;
  } finally {
    await pool.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`the check of the development database against the local chains failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
