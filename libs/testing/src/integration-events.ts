import type { NatsConnection } from 'nats';
import { integrationEvents, type IntegrationEvent } from '@ramp/contracts';

/** An integration event message as JetStream stored it. */
export interface StoredIntegrationMessage {
  subject: string;
  /** Every header as sent (first value of each), `Nats-Msg-Id` included. */
  headers: Record<string, string>;
  /** The payload as published, byte for byte. */
  body: string;
  seq: number;
}

/** Every integration message stored so far (stream INTEGRATION_EVENTS of the test namespace) for these transactions. */
export async function integrationMessagesFor(nc: NatsConnection, transactionIds: string[]): Promise<StoredIntegrationMessage[]> {
  const target = integrationEvents(process.env.EVENTS_NAMESPACE);
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const last = (await jsm.streams.info(target.stream)).state.last_seq;
  if (last === 0) return [];
  const consumer = await js.consumers.get(target.stream);
  const found: StoredIntegrationMessage[] = [];
  const messages = await consumer.fetch({ max_messages: last, expires: 3000 });
  for await (const message of messages) {
    const body = message.string();
    if (transactionIds.includes((JSON.parse(body) as IntegrationEvent).data.transactionId)) {
      const headers: Record<string, string> = {};
      for (const name of message.headers?.keys() ?? []) headers[name] = message.headers!.get(name);
      found.push({ subject: message.subject, headers, body, seq: message.seq });
    }
    if (message.seq >= last) break;
  }
  return found;
}

/** Every integration event published so far (stream INTEGRATION_EVENTS of the test namespace) for these transactions. */
export async function integrationEventsFor(nc: NatsConnection, transactionIds: string[]): Promise<IntegrationEvent[]> {
  return (await integrationMessagesFor(nc, transactionIds)).map((message) => JSON.parse(message.body) as IntegrationEvent);
}
