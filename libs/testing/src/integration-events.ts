import type { NatsConnection } from 'nats';
import { integrationEvents, type IntegrationEvent } from '@ramp/contracts';

/** Every integration event published so far (stream INTEGRATION_EVENTS of the test namespace) for these transactions. */
export async function integrationEventsFor(nc: NatsConnection, transactionIds: string[]): Promise<IntegrationEvent[]> {
  const target = integrationEvents(process.env.EVENTS_NAMESPACE);
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  const last = (await jsm.streams.info(target.stream)).state.last_seq;
  if (last === 0) return [];
  const consumer = await js.consumers.get(target.stream);
  const found: IntegrationEvent[] = [];
  const messages = await consumer.fetch({ max_messages: last, expires: 3000 });
  for await (const message of messages) {
    const event = JSON.parse(message.string()) as IntegrationEvent;
    if (transactionIds.includes(event.data.transactionId)) found.push(event);
    if (message.seq >= last) break;
  }
  return found;
}
