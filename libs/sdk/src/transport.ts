import { randomUUID } from 'crypto';
import { errorFromResponse, makeError, RampError } from './errors';
import { DEFAULT_RETRY, isRetryable, parseRetryAfter, retryDelay, type RetryOptions } from './retry';
import type { HttpMethod, PaginationMeta } from './types';
import { SDK_VERSION } from './version';

/** The subset of the global `fetch` the SDK uses; inject another (a proxy agent, a tracer) through the options. */
export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }) => Promise<Response>;

/** Options of a single call. */
export interface RequestOptions {
  /** The `Idempotency-Key` of a POST; by default a random UUID per call, reused by that call's retries. */
  idempotencyKey?: string;
  /** Sent as `x-request-id` (1-128 of `A-Za-z0-9._:-`); the gateway echoes it and logs it. */
  requestId?: string;
  /** Cancels the call, waits between retries included. */
  signal?: AbortSignal;
  /** Overrides the client's timeout of each attempt. */
  timeoutMs?: number;
  /** Overrides the client's retry options for this call (`{ maxAttempts: 1 }`: no retry). */
  retry?: Partial<RetryOptions>;
}

/** What the hooks are told about each attempt. */
export interface AttemptInfo {
  method: HttpMethod;
  /** The path template, e.g. `/offramp/{transactionId}`. */
  path: string;
  url: string;
  /** 1 for the first attempt. */
  attempt: number;
  idempotencyKey?: string;
}

export interface ResponseInfo extends AttemptInfo {
  /** Undefined when no response arrived. */
  status?: number;
  requestId?: string;
  durationMs: number;
}

export interface RetryInfo extends AttemptInfo {
  /** What is waited before the next attempt. */
  delayMs: number;
  /** The error the attempt failed with (a 429, a 503, a RampConnectionError, ...). */
  error: RampError;
}

export interface TransportOptions {
  /** `service_test_…` (sandbox) or `service_live_…`. Use it from your backend only. */
  apiKey: string;
  /** The API's base address, ending in `/v1`, e.g. `http://127.0.0.1:3000/v1` for a local stack. */
  baseUrl: string;
  /** Replaces the global fetch (Node 20's). */
  fetch?: FetchLike;
  /** Of each attempt. Default 30 s. */
  timeoutMs?: number;
  /** Default `{ maxAttempts: 3, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60000 }`. */
  retry?: Partial<RetryOptions>;
  userAgent?: string;
  /** Told about every response (or failure to get one), retries included: for logs and metrics. */
  onResponse?: (info: ResponseInfo) => void;
  /** Told before each retry, with the delay and the error that caused it. */
  onRetry?: (info: RetryInfo) => void;
}

export interface Call {
  method: HttpMethod;
  /** A path template of the API, e.g. `/offramp/{transactionId}`. */
  path: string;
  /** The values of the template's `{names}`, e.g. `{ transactionId }`. */
  pathParameters?: unknown;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** The success envelope: `data`, and `meta` on lists. */
export interface Envelope<T> {
  data: T;
  meta?: PaginationMeta;
}

/** Sends calls to the gateway: headers, Idempotency-Key, timeouts, retries, and the envelope turned into data or a typed error. */
export class Transport {
  private readonly fetch: FetchLike;
  private readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL ending in /v1');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  async send<T>(call: Call, options: RequestOptions = {}): Promise<Envelope<T>> {
    const retry = { ...DEFAULT_RETRY, ...this.options.retry, ...options.retry };
    const url = this.url(call);
    // An empty key would send none, and a retried POST without one could run twice: treat it as absent.
    const idempotencyKey = call.method === 'post' ? options.idempotencyKey || randomUUID() : undefined;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? `ramp-platform-sdk/${SDK_VERSION} node/${process.version}`,
      'x-api-key': this.options.apiKey,
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      ...(call.method === 'post' ? { 'content-type': 'application/json' } : {}),
    };
    const body = call.method === 'post' ? JSON.stringify(call.body ?? {}) : undefined;
    for (let attempt = 1; ; attempt++) {
      const info: AttemptInfo = { method: call.method, path: call.path, url, attempt, ...(idempotencyKey ? { idempotencyKey } : {}) };
      const result = await this.attempt<T>(info, headers, body, options);
      if (!(result instanceof RampError)) return result;
      const error = result;
      const outcome = error.status === undefined ? { networkError: true as const } : { status: error.status, retryAfter: error.retryAfter !== undefined };
      const delayMs = isRetryable(call.method, outcome)
        ? retryDelay(attempt, error.retryAfter === undefined ? undefined : error.retryAfter * 1000, retry)
        : undefined;
      if (delayMs === undefined || options.signal?.aborted) throw error;
      this.options.onRetry?.({ ...info, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /** One attempt: the envelope, or the RampError it failed with (thrown errors are only the caller's abort). */
  private async attempt<T>(
    info: AttemptInfo,
    headers: Record<string, string>,
    body: string | undefined,
    options: RequestOptions,
  ): Promise<Envelope<T> | RampError> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const { signal, done } = attemptSignal(timeoutMs, options.signal);
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(info.url, { method: info.method.toUpperCase(), headers, body, signal });
      text = await response.text();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason ?? cause;
      this.options.onResponse?.({ ...info, durationMs: Date.now() - started });
      const timedOut = signal.aborted;
      const message = timedOut ? `No response within ${timeoutMs} ms` : `The request failed before a response: ${describe(cause)}`;
      return makeError({ code: 'NETWORK_ERROR', message, cause });
    } finally {
      done();
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    this.options.onResponse?.({ ...info, status: response.status, requestId, durationMs: Date.now() - started });
    if (response.status < 200 || response.status > 299) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      const retryAfter = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
      return errorFromResponse({ status: response.status, statusText: response.statusText, text, requestId, retryAfter });
    }
    const envelope = parseSuccess<T>(text);
    if (envelope) return envelope;
    return makeError({
      code: 'INVALID_RESPONSE',
      status: response.status,
      requestId,
      message: `HTTP ${response.status} without the API's envelope`,
      rawBody: text.slice(0, 2048),
    });
  }

  private url(call: Call): string {
    const path = call.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = (call.pathParameters as Record<string, unknown> | undefined)?.[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
      return encodeURIComponent(value);
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) query.append(name, String(value));
    const search = query.toString();
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
  }
}

function parseSuccess<T>(text: string): Envelope<T> | undefined {
  try {
    const body = JSON.parse(text) as { success?: unknown; data?: T; meta?: PaginationMeta };
    if (body?.success !== true || !('data' in body)) return undefined;
    return { data: body.data as T, ...(body.meta ? { meta: body.meta } : {}) };
  } catch {
    return undefined;
  }
}

/** A signal that aborts after `timeoutMs` or with the caller's; `done` releases its timer and listener. */
function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const forward = () => controller.abort(caller?.reason);
  if (caller?.aborted) forward();
  else caller?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', forward);
    },
  };
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  // undici reports "fetch failed" and puts the reason (ECONNREFUSED, socket hang up, ...) in `cause`.
  return cause instanceof Error ? `${error.message} (${(cause as { code?: string }).code ?? cause.message})` : error.message;
}
