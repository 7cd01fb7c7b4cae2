import { runCompiled } from './operator';

export interface TestKey {
  apiKey: string;
  apiSecret: string;
  keyId: string;
  organizationId: string;
}

/** Runs the operator's key command exactly as an operator would (`npm run keys -- …`). */
export function keysCommand(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return runCompiled('dist/apps/gateway/src/cli/keys.js', args);
}

export async function createKey(options: { org?: string; env?: 'test' | 'live'; plan?: string; extra?: string[] } = {}): Promise<TestKey> {
  const org = options.org ?? `Test Org ${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const result = await keysCommand(['create', '--org', org, '--env', options.env ?? 'test', '--plan', options.plan ?? 'enterprise', ...(options.extra ?? [])]);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as TestKey;
}
