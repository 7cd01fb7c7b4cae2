import { execFile } from 'child_process';
import { promisify } from 'util';
import { REGISTER_PATHS, WORKSPACE_ROOT } from './paths';
import { resolve } from 'path';

const run = promisify(execFile);

export interface TestKey {
  apiKey: string;
  apiSecret: string;
  keyId: string;
  organizationId: string;
}

/** Runs the operator's key command exactly as an operator would (`npm run keys -- …`), and parses its JSON. */
export async function keysCommand(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const cli = resolve(WORKSPACE_ROOT, 'dist/apps/gateway/src/cli/keys.js');
  try {
    const { stdout, stderr } = await run(process.execPath, ['-r', REGISTER_PATHS, cli, ...args], { cwd: WORKSPACE_ROOT, env: process.env });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
  }
}

export async function createKey(options: { org?: string; env?: 'test' | 'live'; plan?: string; extra?: string[] } = {}): Promise<TestKey> {
  const org = options.org ?? `Test Org ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const result = await keysCommand(['create', '--org', org, '--env', options.env ?? 'test', '--plan', options.plan ?? 'enterprise', ...(options.extra ?? [])]);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as TestKey;
}
