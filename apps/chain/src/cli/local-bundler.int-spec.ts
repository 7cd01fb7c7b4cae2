import { spawn } from 'child_process';
import { createPublicClient, http } from 'viem';
import { bundlerAnswers, CANONICAL_ACCOUNT_FACTORY, CANONICAL_ENTRY_POINT } from '@ramp/evm';
import { AnvilNode, freePort, REGISTER_PATHS, WORKSPACE_ROOT } from '@ramp/testing';

/**
 * docker-compose.yml's bundler containers run this command (the chain image's compiled `cli/local-bundler.js`): on a
 * fresh node it must deploy EntryPoint v0.7 and its factory, serve ERC-4337 on its port, and stop with SIGTERM.
 */
describe("local-bundler - docker-compose.yml's bundler beside a local chain", () => {
  const node = new AnvilNode({ chainId: 84532 });

  beforeAll(async () => {
    await node.start();
  }, 30_000);

  afterAll(async () => {
    await node.stop();
  });

  it('deploys EntryPoint v0.7 and its factory on a fresh node, serves them on BUNDLER_PORT, and ends on SIGTERM', async () => {
    const client = createPublicClient({ transport: http(node.rpcUrl) });
    expect(await client.getCode({ address: CANONICAL_ENTRY_POINT })).toBeUndefined();
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', REGISTER_PATHS, 'dist/apps/chain/src/cli/local-bundler.js'], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, RPC_URL: node.rpcUrl, BUNDLER_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      while (!(await bundlerAnswers(`http://127.0.0.1:${port}`, CANONICAL_ENTRY_POINT))) {
        if (child.exitCode !== null) throw new Error(`local-bundler exited with ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`local-bundler did not answer within 60 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await client.getCode({ address: CANONICAL_ENTRY_POINT })).toMatch(/^0x[0-9a-f]+$/);
      expect(await client.getCode({ address: CANONICAL_ACCOUNT_FACTORY })).toMatch(/^0x[0-9a-f]+$/);
    } finally {
      child.kill('SIGTERM');
    }
    // It ends when alto does: nothing is left holding the port.
    await exited;
    expect(await bundlerAnswers(`http://127.0.0.1:${port}`, CANONICAL_ENTRY_POINT)).toBe(false);
  }, 90_000);
});
