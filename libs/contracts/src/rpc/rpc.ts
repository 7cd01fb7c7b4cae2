import type { ErrorBody } from '../errors/app-error';
import type { Tenant } from './tenant';

/** What travels on a request/reply subject: the caller's tenant and the operation's input. */
export interface RpcRequest<T> {
  tenant: Tenant;
  data: T;
}

/**
 * What comes back: the result, or a typed error that the gateway maps to the envelope. `notRun` marks a failure that
 * came before the service did anything (a dependency it only read from was down), so that the caller may send the same
 * request again as it is; see NothingRan in the messaging library.
 */
export type RpcReply<T> = { ok: true; data: T } | { ok: false; error: ErrorBody; notRun?: true };

/** NATS header names used on every request and event. */
export const HEADERS = {
  requestId: 'x-request-id',
  /** The transaction a request is made for (a step of its process), for the answering service's log lines. */
  correlationId: 'x-correlation-id',
} as const;

/**
 * A request/reply operation: its subject and, as phantom types, its input and output.
 * Declared once here; services register handlers and the gateway calls by this value.
 */
export interface RpcContract<Req, Res> {
  readonly subject: string;
  /** Not used at run time: carries the request and response types. */
  readonly __types?: { req: Req; res: Res };
}

export function rpc<Req, Res>(subject: string): RpcContract<Req, Res> {
  return { subject };
}

export type RequestOf<C> = C extends RpcContract<infer Req, unknown> ? Req : never;
export type ResponseOf<C> = C extends RpcContract<unknown, infer Res> ? Res : never;
