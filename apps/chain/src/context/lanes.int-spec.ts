import { Pool } from 'pg';
import type { SendQueue } from '@ramp/evm';
import { sendQueueMigration } from '@ramp/evm';
import { TEST_DATABASE_URL } from '@ramp/testing';
import { SendLanes } from './lanes';

const schema = `lanes_test_${Date.now().toString(36)}`;

/** A queue whose passes are counted, and whose pass can be held open until released. */
function queue(sender: string) {
  let release: (() => void) | undefined;
  const fake = {
    sender,
    passes: 0,
    holding: false,
    hold() {
      fake.holding = true;
    },
    release() {
      fake.holding = false;
      release?.();
    },
    async tick(): Promise<void> {
      fake.passes += 1;
      if (fake.holding) await new Promise<void>((resolve) => (release = resolve));
    },
  };
  return fake;
}

describe('SendLanes.tick - every queue at its own pace', () => {
  const pool = new Pool({ connectionString: TEST_DATABASE_URL, max: 2 });

  beforeAll(async () => {
    await pool.query(`create schema ${schema}`);
    for (const statement of sendQueueMigration(schema)) await pool.query(statement);
  });

  afterAll(async () => {
    await pool.query(`drop schema ${schema} cascade`);
    await pool.end();
  });

  it('does not hold the other queues, nor the pass, while one queue is busy, and never runs a queue twice at once', async () => {
    const hot = queue('0x0000000000000000000000000000000000000001');
    const lane = queue('0x0000000000000000000000000000000000000002');
    const faucet = queue('0x0000000000000000000000000000000000000003');
    const lanes = new SendLanes({ schema, chain: 'test-base', pool, queues: [hot, lane] as unknown as SendQueue[], gas: 0n });
    const errors: unknown[] = [];
    const tick = () => lanes.tick([faucet as unknown as SendQueue], (_queue, error) => errors.push(error));

    hot.hold();
    await tick();
    await tick();
    await tick();
    // The hot wallet's first pass is still under way: started once; the others passed at every tick.
    expect(hot.passes).toBe(1);
    expect(lane.passes).toBe(3);
    expect(faucet.passes).toBe(3);

    let idle = false;
    const waiting = lanes.idle().then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    hot.release();
    await waiting;
    expect(idle).toBe(true);

    await tick();
    expect(hot.passes).toBe(2);
    expect(errors).toEqual([]);
  });

  it('does not start a queue whose pass ended during the read of what is open: that read saw it mid-pass', async () => {
    const hot = queue('0x0000000000000000000000000000000000000001');
    const lanes = new SendLanes({ schema, chain: 'test-base', pool, queues: [hot] as unknown as SendQueue[], gas: 0n });
    const tick = () => lanes.tick([], () => undefined);
    hot.hold();
    // The only queue's pass is held: the first tick waits for it (nothing else ends).
    const first = tick();
    while (hot.passes === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const next = tick();
    hot.release();
    await Promise.all([first, next]);
    expect(hot.passes).toBe(1);
    await tick();
    expect(hot.passes).toBe(2);
  });

  it('reports a queue whose pass fails and goes on with the others', async () => {
    const hot = queue('0x0000000000000000000000000000000000000001');
    const lane = { sender: '0x0000000000000000000000000000000000000002', tick: () => Promise.reject(new Error('node down')) };
    const lanes = new SendLanes({ schema, chain: 'test-base', pool, queues: [hot, lane] as unknown as SendQueue[], gas: 0n });
    const errors: [string, unknown][] = [];
    await lanes.tick([], (failed, error) => errors.push([failed.sender, error]));
    await lanes.idle();
    expect(errors).toEqual([[lane.sender, new Error('node down')]]);
    expect(hot.passes).toBe(1);
  });
});
