import {
  NatsRecord,
  type ConsumerDeserializer,
  type ConsumerSerializer,
  type IncomingRequest,
  type IncomingResponse,
  type OutgoingRequest,
  type OutgoingResponse,
  type ProducerDeserializer,
  type ProducerSerializer,
} from '@nestjs/microservices';
import type { MsgHdrs } from 'nats';
import type { RpcReply, RpcRequest } from '@ramp/contracts';

/*
 * What a request and its reply look like on NATS. Nest's own NATS packets (`{ pattern, data, id }` and
 * `{ id, response | err, isDisposed }`) are replaced by the platform's envelope: the request `{ tenant, data }` with
 * the request id and correlation id in NATS headers, the reply an RpcReply (`{ ok: true, data }` or
 * `{ ok: false, error, notRun? }`). The subject says what is asked and each request has an inbox of its own, so Nest's
 * pattern and id add nothing; keeping the envelope also lets replicas of two releases answer each other during a
 * rolling update.
 */

/** The subject a request/reply contract is served on under a namespace (EVENTS_NAMESPACE): `<namespace>.<subject>`. */
export function namespacedSubject(namespace: string, subject: string): string {
  return namespace ? `${namespace}.${subject}` : subject;
}

/** A failed reply, as a handler's error becomes it (see RpcErrorFilter) and as it travels. */
export type RpcFailure = Extract<RpcReply<unknown>, { ok: false }>;

export function isRpcFailure(value: unknown): value is RpcFailure {
  const failure = value as Partial<RpcFailure> | null;
  return typeof failure === 'object' && failure !== null && failure.ok === false && typeof failure.error === 'object' && failure.error !== null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const encode = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

function decode(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

interface NatsPayload {
  data: Uint8Array;
  headers?: MsgHdrs;
}

/** Caller side: the RpcClient's NatsRecord (`{ tenant, data }` and its headers) is all that is sent. */
export class RpcRequestSerializer implements ProducerSerializer {
  serialize(packet: OutgoingRequest): NatsPayload {
    const record =
      packet.data instanceof NatsRecord ? (packet.data as NatsRecord<RpcRequest<unknown>, MsgHdrs>) : new NatsRecord<unknown, MsgHdrs>(packet.data);
    return { data: encode(record.data), headers: record.headers };
  }
}

/**
 * Serving side: the request as Nest's packet, with the subject served as its pattern and the reply inbox as its id.
 * Every message is a request (never an event, even one published without an inbox, which is then simply not
 * answered), and a body that is not JSON is handed on as `undefined` for the handler's parameters to refuse: this
 * never throws, since a throw here would escape Nest as an unhandled rejection.
 */
export class RpcRequestDeserializer implements ConsumerDeserializer {
  deserialize(value: Uint8Array, options?: { channel?: string; replyTo?: string }): IncomingRequest {
    return { pattern: options?.channel, data: decode(value), id: options?.replyTo ?? '' };
  }
}

/** Serving side: Nest's response packet as an RpcReply. `err` is the RpcFailure that RpcErrorFilter made of the error. */
export class RpcReplySerializer implements ConsumerSerializer {
  serialize(packet: OutgoingResponse): NatsPayload {
    if (packet.err === undefined) return { data: encode({ ok: true, data: packet.response } satisfies RpcReply<unknown>) };
    return { data: encode(isRpcFailure(packet.err) ? packet.err : INTERNAL_FAILURE) };
  }
}

/** Caller side: an RpcReply as Nest's response packet, a failure as its `err` (NatsRpcClient makes it an AppError). */
export class RpcReplyDeserializer implements ProducerDeserializer {
  deserialize(value: Uint8Array): IncomingResponse {
    const reply = decode(value) as RpcReply<unknown> | undefined;
    const packet = reply?.ok === true ? { response: reply.data, isDisposed: true } : { err: isRpcFailure(reply) ? reply : UNREADABLE_REPLY, isDisposed: true };
    // No id: each request has an inbox of its own, so the reply needs none to find its caller.
    return packet as IncomingResponse;
  }
}

/** What a client is told of a failure no handler described (an error thrown outside the handler's filter). */
export const INTERNAL_FAILURE: RpcFailure = {
  ok: false,
  error: { code: 'INTERNAL_ERROR', reason: 'INTERNAL_ERROR', message: 'An internal error occurred; it has been logged.' },
};

const UNREADABLE_REPLY: RpcFailure = {
  ok: false,
  error: { code: 'INTERNAL_ERROR', reason: 'INTERNAL_ERROR', message: 'The service answered with something that is not a reply.' },
};
