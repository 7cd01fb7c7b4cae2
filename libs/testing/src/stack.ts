import { execFile } from 'child_process';
import { promisify } from 'util';
import { WORKSPACE_ROOT } from './paths';

const run = promisify(execFile);

export type StackPart = 'postgres' | 'redis' | 'nats';

/**
 * The local PostgreSQL, Redis and NATS, through `scripts/stack.sh` (the script `npm test` starts them with): `up`
 * starts whatever is stopped; `check` fails unless the script can stop and start all three here; `stop` and `restart`
 * are the chaos test's faults. PostgreSQL stops as in a crash.
 */
export async function stack(action: 'up' | 'check' | 'stop' | 'restart', part?: StackPart): Promise<void> {
  await run('bash', ['scripts/stack.sh', action, ...(part ? [part] : [])], { cwd: WORKSPACE_ROOT });
}
