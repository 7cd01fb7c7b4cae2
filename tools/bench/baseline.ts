import { spawn, type ChildProcess } from 'child_process';
import { resolve } from 'path';
import { WORKSPACE_ROOT } from '@ramp/testing';

/** The bare Fastify endpoint of bare-server.js in a process of its own: the baseline of the HTTP figures. */
export async function startBare(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [resolve(WORKSPACE_ROOT, 'tools/bench/bare-server.js')], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ready) => child.stdout?.once('data', () => ready()));
  return child;
}
