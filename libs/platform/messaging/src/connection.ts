import { connect, type NatsConnection } from 'nats';

/** Connects to NATS with reconnects forever: a broker restart pauses the service instead of killing it. */
export async function connectNats(servers: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: servers.split(',').map((server) => server.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    // No Error (with its stack) captured per request and subscription: a measurable cost on the gateway's hot path;
    // our errors carry their subject instead.
    noAsyncTraces: true,
  });
}
