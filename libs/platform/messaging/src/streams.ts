import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from 'nats';

const NANOS_PER_MS = 1_000_000;

/**
 * How long a stream or consumer operation may take before it fails (nats.js waits 5 s by default): on a JetStream
 * cluster each one is agreed by the servers holding its replicas, which takes seconds while services start together or
 * a server has just gone, and a service that gives up at start-up only restarts to try again.
 */
export const JETSTREAM_API_TIMEOUT_MS = 20_000;

/** Where events a consumer could not process after its retries go, with the error, for an operator to look at. */
export const DEAD_LETTER_STREAM = 'DEAD_LETTERS';
export const deadLetterSubject = (service: string, consumer: string): string => `deadletter.${service}.${consumer}`;

export interface StreamOptions {
  /** STREAM_REPLICAS: copies of the stream (and of its consumers) on a JetStream cluster: 3 in production, 1 on one server. */
  replicas?: number;
  /** How long a re-published event id is still dropped. */
  duplicateWindowMs?: number;
  /**
   * Bring an existing stream's configuration up to date (its publishers, whose NATS users may); false for a stream the
   * caller only reads or only sends dead letters to, whose users may create it but not change it.
   */
  update?: boolean;
}

/**
 * Creates a stream or brings its configuration up to date (its replicas too: nats-server copies a stream to more
 * servers, or fewer, while it serves it). Event streams keep every event (no age or size limit) on file storage.
 * A stream already as configured is left alone: every replica of every service runs this at start-up, and on a cluster
 * each update is a round of agreement between the servers. Two services creating the same stream at once is fine
 * (nats-server answers an identical creation with the stream); a timeout (a server gone, an election) is tried again.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  name: string,
  subjects: string[],
  { replicas = 1, duplicateWindowMs = 120_000, update = true }: StreamOptions = {},
): Promise<void> {
  const config: Partial<StreamConfig> = {
    name,
    subjects,
    num_replicas: replicas,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: 0,
    max_msgs: -1,
    max_bytes: -1,
    duplicate_window: duplicateWindowMs * NANOS_PER_MS,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = await jsm.streams.info(name).catch((error: unknown) => {
        if (/stream not found/i.test(String((error as Error).message))) return undefined;
        throw error;
      });
      if (!existing) await jsm.streams.add(config);
      else if (update && !configured(existing.config, config)) await jsm.streams.update(name, { ...existing.config, ...config });
      return;
    } catch (error) {
      if (attempt >= 3 || (error as { code?: string }).code !== 'TIMEOUT') throw error;
    }
  }
}

/** Whether a stream's configuration already has every value of `wanted`. */
function configured(actual: StreamConfig, wanted: Partial<StreamConfig>): boolean {
  return Object.entries(wanted).every(([key, value]) => JSON.stringify(actual[key as keyof StreamConfig]) === JSON.stringify(value));
}

/** Creates the dead-letter stream if it is missing; its configuration is changed only by an operator. */
export async function ensureDeadLetterStream(jsm: JetStreamManager, options: StreamOptions = {}): Promise<void> {
  await ensureStream(jsm, DEAD_LETTER_STREAM, ['deadletter.>'], { ...options, update: false });
}
