import { Client } from 'pg';
import { LeaderSession } from './leader-session';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ramp_platform_test';
const connection = { connectionString: DATABASE_URL };
const key = `leader-test:${Date.now().toString(36)}`;
const applicationName = `leader-test-${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('database - leadership by a session advisory lock', () => {
  const sessions: LeaderSession[] = [];
  const open = async (onLost?: (error: Error) => void) => {
    const session = await LeaderSession.open({ connection, key, applicationName, onLost });
    sessions.push(session);
    return session;
  };

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.end()));
  });

  it('one session of a key leads, another waits, and leads once the first one ends', async () => {
    const [first, second] = [await open(), await open()];
    expect(await first.tryLead()).toBe(true);
    expect(await second.tryLead()).toBe(false);
    expect((await first.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    await first.end();
    expect(await second.waitToLead(20, sleep, () => false)).toBe(true);
  });

  it('waiting to lead ends, without leading, when the caller stops', async () => {
    const [leader, follower] = [await open(), await open()];
    expect(await leader.tryLead()).toBe(true);
    let stopped = false;
    setTimeout(() => (stopped = true), 100);
    expect(await follower.waitToLead(20, sleep, () => stopped)).toBe(false);
    expect(follower.lost).toBeUndefined();
  });

  it('a leader whose connection dies is lost: it is told, it can no longer read on its connection, and the lock passes to another', async () => {
    let told: Error | undefined;
    const leader = await open((error) => (told = error));
    expect(await leader.tryLead()).toBe(true);
    const follower = await open();
    const { rows } = await leader.client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const admin = new Client(connection);
    await admin.connect();
    try {
      // The leader's backend, killed as a crash or a failover would.
      await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    } finally {
      await admin.end();
    }
    for (let i = 0; i < 100 && !leader.lost; i++) await sleep(20);
    expect(leader.lost).toBeInstanceOf(Error);
    expect(told).toBe(leader.lost);
    expect(() => leader.assertHeld()).toThrow(leader.lost!.message);
    await expect(leader.query('select 1')).rejects.toThrow();
    expect(await leader.waitToLead(20, sleep, () => false)).toBe(false);
    expect(await follower.waitToLead(20, sleep, () => false)).toBe(true);
  });
});
