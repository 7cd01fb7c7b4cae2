import type { Tenant } from '@ramp/contracts';

/** Who and what caused an event: carried from the HTTP request through every event it leads to. */
export interface EventMetadata {
  /** The request or process this event belongs to (the first cause); the same across services. */
  correlationId: string;
  /** The event or request that directly caused this one. */
  causationId: string;
  /** Who acted: `key:<keyId>` for an API call, `system:<service>` for the platform itself, `sandbox` for simulations. */
  actor: string;
  tenant: Tenant;
  requestId?: string;
  /**
   * What the stream's entity looks like right after this event, as other services' read models show it (a
   * transaction's Transaction view): they apply it by stream version instead of folding events with rules that are
   * not theirs. Written by the command that appends the event (see handleCommand's `viewOf`).
   */
  view?: unknown;
}

export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  /** Given when the caller must know it in advance; a random UUID otherwise. */
  eventId?: string;
}

/** An event as stored in the log. Positions are strings: bigint and xid8 do not fit a JavaScript number safely. */
export interface StoredEvent<T extends string = string, D = unknown> {
  globalPosition: string;
  eventId: string;
  streamId: string;
  streamVersion: number;
  type: T;
  data: D;
  metadata: EventMetadata;
  transactionId: string;
  createdAt: string;
}

/** A reader's place in the log: the (transaction id, global position) of the last event it has read. */
export interface LogCheckpoint {
  transactionId: string;
  globalPosition: string;
}

export const LOG_START: LogCheckpoint = { transactionId: '0', globalPosition: '0' };

export interface EventRow {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  transaction_id: string;
  created_at: Date;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    globalPosition: String(row.global_position),
    eventId: row.event_id,
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    transactionId: String(row.transaction_id),
    createdAt: new Date(row.created_at).toISOString(),
  };
}
