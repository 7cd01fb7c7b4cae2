import { connect, Events, type NatsConnection } from 'nats';
import { inboxPrefixOf } from './permissions';

export interface NatsTarget {
  /** NATS_URL: the servers, comma separated. */
  servers: string;
  /** NATS_USER: the service's own user (its name), whose permissions nats-server enforces; empty for none. */
  user?: string;
  /** NATS_PASSWORD: that user's password. */
  password?: string;
}

/**
 * Connects to NATS with reconnects forever: a broker restart pauses the service instead of killing it. With a user,
 * request replies and pull deliveries come to the user's own inbox prefix (`_INBOX.<user>.`), the one its permissions
 * let it subscribe to; `onRefused` hears the code of each error the server reports (PERMISSIONS_VIOLATION: the server's
 * log names the subject; the request or subscription concerned fails with it too).
 */
export async function connectNats(target: NatsTarget, name: string, onRefused?: (message: string) => void): Promise<NatsConnection> {
  const user = target.user ?? '';
  const nc = await connect({
    servers: target.servers.split(',').map((server) => server.trim()),
    name,
    ...(user && { user, pass: target.password ?? '', inboxPrefix: inboxPrefixOf(user) }),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    // No Error (with its stack) captured per request and subscription: a measurable cost on the gateway's hot path;
    // our errors carry their subject instead.
    noAsyncTraces: true,
  });
  if (onRefused) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === Events.Error) onRefused(String(status.data));
      }
    })().catch(() => undefined);
  }
  return nc;
}
