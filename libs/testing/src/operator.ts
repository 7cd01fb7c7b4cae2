import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import { REGISTER_PATHS, WORKSPACE_ROOT } from './paths';

const run = promisify(execFile);

/** Runs a script compiled from this tree (`dist/...js`) as the npm scripts do; resolves with its output and exit code. */
export async function runCompiled(
  script: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', REGISTER_PATHS, resolve(WORKSPACE_ROOT, script), ...args], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 16 << 20,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
  }
}

/** Runs one of the operator commands that print JSON (`ledger:check`, `projections:rebuild`) and parses it; fails on exit 2 and up. */
export async function operatorCommand<T = any>(script: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<T> {
  const result = await runCompiled(script, args, env);
  if (result.code > 1 || !result.stdout) throw new Error(`${script} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
