import { connect } from 'nats';
import { Client } from 'pg';
import { EVENT_STREAMS } from '@ramp/contracts';

/**
 * A fresh stack for a run of the tests or the benchmarks: the run's database dropped and created empty (the services
 * migrate it as they start) and the JetStream streams of its events namespace deleted. Without this, every run on a machine would add
 * to the last one's data, and the streams the tests read would grow without end.
 */
export async function freshStack(databaseUrl: string, namespace: string, natsUrl = process.env.NATS_URL ?? '127.0.0.1:4222'): Promise<void> {
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  // Only a database made for tests or benchmarks, and only a namespace's own streams, never production's.
  if (!/^[a-z0-9_]+_(test|bench)$/.test(database) || !/^[a-z0-9_]+$/i.test(namespace)) throw new Error(`refusing to reset ${database} / ${namespace}`);
  await resetStack(databaseUrl, namespace, natsUrl);
}

/**
 * The database of `databaseUrl` dropped and created empty, and the JetStream streams of `namespace` ('' the default
 * one) deleted: answers how many streams went. No guard of its own: freshStack allows only test and benchmark
 * databases, `npm run dev:reset` only this machine's development database.
 */
export async function resetStack(databaseUrl: string, namespace: string, natsUrl: string): Promise<number> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!/^[a-z0-9_]+$/.test(database)) throw new Error(`refusing to reset the database "${database}"`);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${database}" with (force)`);
    await admin.query(`create database "${database}"`);
  } finally {
    await admin.end();
  }
  const nc = await connect({ servers: natsUrl.split(',') });
  let deleted = 0;
  try {
    const jsm = await nc.jetstreamManager();
    // Every stream of the namespace (the services' events, the chain service's, the integration events).
    const names = new Set(EVENT_STREAMS.map((streamOf) => streamOf(namespace).stream));
    for await (const stream of jsm.streams.list()) {
      if (!names.has(stream.config.name)) continue;
      await jsm.streams.delete(stream.config.name);
      deleted += 1;
    }
  } finally {
    await nc.close();
  }
  return deleted;
}
