import { connect } from 'nats';
import { Client } from 'pg';
import { Config } from '@ramp/config';
import { EVENT_STREAMS } from '@ramp/contracts';

/**
 * `npm run dev:reset` (scripts/dev-reset.sh, which also starts the local chains afresh): the development database
 * dropped and created empty, and the JetStream streams of its events namespace deleted, so that `npm start` begins from
 * nothing on both sides. Only on this machine's own PostgreSQL and NATS, and never in production.
 */
async function main(): Promise<void> {
  const config = new Config();
  if (config.isProduction) throw new Error('dev:reset is for a development machine: NODE_ENV is production');
  const url = new URL(config.string('databaseUrl'));
  const local = (host: string) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
  if (!local(url.hostname)) throw new Error(`dev:reset resets a database on this machine only, not ${url.hostname}`);
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
  const servers = config.string('natsUrl');
  if (!servers.split(',').every((server) => local(new URL(server.includes('://') ? server : `nats://${server}`).hostname))) throw new Error(`dev:reset deletes the streams of this machine's NATS only, not ${servers}`);
  const namespace = config.string('eventsNamespace');
  const nc = await connect({ servers: servers.split(',') });
  let deleted = 0;
  try {
    const jsm = await nc.jetstreamManager();
    const names = new Set(EVENT_STREAMS.map((streamOf) => streamOf(namespace).stream));
    for await (const stream of jsm.streams.list()) {
      if (!names.has(stream.config.name)) continue;
      await jsm.streams.delete(stream.config.name);
      deleted += 1;
    }
  } finally {
    await nc.close();
  }
  process.stdout.write(`database ${database} emptied, ${deleted} event stream(s) of ${namespace ? `the namespace "${namespace}"` : 'the default namespace'} deleted\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`dev:reset failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
