import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from 'nats';

const NANOS_PER_MS = 1_000_000;

/** Where events a consumer could not process after its retries go, with the error, for an operator to look at. */
export const DEAD_LETTER_STREAM = 'DEAD_LETTERS';
export const deadLetterSubject = (service: string, consumer: string): string => `deadletter.${service}.${consumer}`;

/**
 * Creates a stream or brings its configuration up to date. Event streams keep every event (no age or size limit)
 * on file storage; the duplicate window is how long a re-published event id is still dropped.
 */
export async function ensureStream(jsm: JetStreamManager, name: string, subjects: string[], duplicateWindowMs = 120_000): Promise<void> {
  const config: Partial<StreamConfig> = {
    name,
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    duplicate_window: duplicateWindowMs * NANOS_PER_MS,
  };
  try {
    const existing = await jsm.streams.info(name);
    await jsm.streams.update(name, { ...existing.config, ...config });
  } catch (error) {
    if (!/stream not found/i.test(String((error as Error).message))) throw error;
    await jsm.streams.add(config);
  }
}

export async function ensureDeadLetterStream(jsm: JetStreamManager): Promise<void> {
  await ensureStream(jsm, DEAD_LETTER_STREAM, ['deadletter.>']);
}
