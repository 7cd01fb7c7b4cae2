import { Config } from '@ramp/config';
import { resetStack } from '@ramp/testing';

/**
 * `npm run dev:reset` (scripts/dev-reset.sh, which also starts the local chains afresh): the development database
 * dropped and created empty, and the JetStream streams of its events namespace deleted (resetStack), so that
 * `npm start` begins from nothing on both sides. Only on this machine's own PostgreSQL and NATS, and never in production.
 */
async function main(): Promise<void> {
  const config = new Config();
  if (config.isProduction) throw new Error('dev:reset is for a development machine: NODE_ENV is production');
  const databaseUrl = config.string('databaseUrl');
  const servers = config.string('natsUrl');
  const local = (host: string) => ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
  if (!local(new URL(databaseUrl).hostname)) throw new Error(`dev:reset resets a database on this machine only, not ${new URL(databaseUrl).hostname}`);
  if (!servers.split(',').every((server) => local(new URL(server.includes('://') ? server : `nats://${server}`).hostname)))
    throw new Error(`dev:reset deletes the streams of this machine's NATS only, not ${servers}`);
  const namespace = config.string('eventsNamespace');
  const deleted = await resetStack(databaseUrl, namespace, servers);
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  process.stdout.write(
    `database ${database} emptied, ${deleted} event stream(s) of ${namespace ? `the namespace "${namespace}"` : 'the default namespace'} deleted\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`dev:reset failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
