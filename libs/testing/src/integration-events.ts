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
  const wanted = new Set(transactionIds);
  // In batches until the last message: one fetch may end (expire) before a long stream has all been read.
  for (let seq = 0; seq < last;) {
    let read = 0;
    for await (const message of await consumer.fetch({ max_messages: 1000, expires: 3000 })) {
      read += 1;
      seq = message.seq;
      const body = message.string();
      if (wanted.has((JSON.parse(body) as IntegrationEvent).data.transactionId)) {
        const headers: Record<string, string> = {};
        for (const name of message.headers?.keys() ?? []) headers[name] = message.headers!.get(name);
        found.push({ subject: message.subject, headers, body, seq: message.seq });
      }
      if (seq >= last) break;
    }
    if (read === 0) break;
  }
  return found;
}

/** Every integration event published so far (stream INTEGRATION_EVENTS of the test namespace) for these transactions. */
export async function integrationEventsFor(nc: NatsConnection, transactionIds: string[]): Promise<IntegrationEvent[]> {
  return (await integrationMessagesFor(nc, transactionIds)).map((message) => JSON.parse(message.body) as IntegrationEvent);
}
