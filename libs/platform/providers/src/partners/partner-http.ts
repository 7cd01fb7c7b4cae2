import { setTimeout as sleep } from 'node:timers/promises';

/** How a partner call ended, as its metric's `outcome` label says. */
export type PartnerOutcome = 'ok' | 'refused' | 'unavailable';

/** Told of every partner call (the service's Metrics: `ramp_partner_call_duration_seconds`). */
export interface PartnerCallObserver {
  observe(provider: string, call: string, outcome: PartnerOutcome, seconds: number): void;
}

/**
 * A partner call that did not succeed. `refused`: the partner answered and said no (a 4xx: no such account, a bad
 * parameter); asking another partner would not change that. `unavailable`: no answer within the timeout, a network
 * fault, a 5xx or a 429; the circuit breaker counts these and another partner may be asked.
 */
export class PartnerError extends Error {
  override name = 'PartnerError';

  constructor(
    readonly provider: string,
    readonly call: string,
    readonly kind: 'refused' | 'unavailable',
    message: string,
    readonly status?: number,
    /** The partner's answer, when it gave one (its `message`, `code`...). Never holds a secret: it is the partner's text. */
    readonly body?: unknown,
    /**
     * A refusal that came after an earlier attempt of the same call got no answer: that attempt may have been carried
     * out, and the refusal may be about it (a duplicate, a balance it emptied), so it proves nothing was done.
     */
    readonly afterLostAnswer = false,
  ) {
    super(`${provider} ${call}: ${message}`);
  }
}

export interface PartnerHttpOptions {
  provider: string;
  baseUrl: string;
  /** Sent as the bearer token; never logged, never in an error's message. */
  secretKey: string;
  /** Each attempt's limit (PARTNER_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * The whole call's limit, its attempts and pauses together (PARTNER_CALL_BUDGET_MS): no attempt starts, or runs,
   * past it, so that a caller waiting on a request/reply answer (5 s) hears of a failover in time.
   */
  budgetMs?: number;
  observer?: PartnerCallObserver;
  /** Attempts in all for a call the partner documents as safe to repeat (a read, or a write keyed by our reference). */
  attempts?: number;
  /** Between attempts: this, then twice it... */
  backoffMs?: number;
}

export interface PartnerRequest {
  /** The call's name in metrics and errors: `bank_resolve`, `transfer_initiate`... */
  call: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /**
   * Whether repeating it can do no harm: a read, or a write the partner deduplicates by a reference we chose. Only
   * these are retried after a timeout or a 5xx; any other call is tried once and its fault reported.
   */
  idempotent: boolean;
}

/**
 * A partner's JSON API over HTTPS: a bearer key, a timeout on every attempt, retries only where the call is safe to
 * repeat, and every call observed by provider, call and outcome. The answer's JSON is returned as is; the adapter
 * checks its shape.
 */
export class PartnerHttp {
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly budgetMs: number;

  constructor(private readonly options: PartnerHttpOptions) {
    this.attempts = options.attempts ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    this.budgetMs = options.budgetMs ?? Number.POSITIVE_INFINITY;
    if (!options.secretKey) throw new Error(`${options.provider}: a secret key is required`);
    // Checked here, so that a malformed key (a newline from a file) never reaches fetch, whose error would quote it.
    if (!/^[\x21-\x7e]+$/.test(options.secretKey))
      throw new Error(`${options.provider}: the secret key has characters a key cannot have (spaces, line breaks)`);
  }

  get provider(): string {
    return this.options.provider;
  }

  async request<T>(request: PartnerRequest): Promise<T> {
    const attempts = request.idempotent ? this.attempts : 1;
    const deadline = performance.now() + this.budgetMs;
    let last: PartnerError | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        const pause = this.backoffMs * 2 ** (attempt - 2);
        if (performance.now() + pause + 50 > deadline) break;
        await sleep(pause);
      }
      const started = performance.now();
      try {
        const answer = await this.once<T>(request, Math.floor(Math.min(this.options.timeoutMs, Math.max(1, deadline - started))));
        this.observe(request.call, 'ok', started);
        return answer;
      } catch (error) {
        const failure = error instanceof PartnerError ? error : new PartnerError(this.provider, request.call, 'unavailable', describe(error));
        this.observe(request.call, failure.kind, started);
        if (failure.kind === 'refused') {
          if (!last) throw failure;
          throw new PartnerError(
            failure.provider,
            failure.call,
            'refused',
            failure.message.replace(`${this.provider} ${request.call}: `, ''),
            failure.status,
            failure.body,
            true,
          );
        }
        last = failure;
      }
    }
    throw last!;
  }

  private async once<T>(request: PartnerRequest, timeoutMs: number): Promise<T> {
    const url = new URL(request.path.replace(/^\//, ''), this.options.baseUrl.endsWith('/') ? this.options.baseUrl : `${this.options.baseUrl}/`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const response = await fetch(url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${this.options.secretKey}`,
        accept: 'application/json',
        ...(request.body !== undefined && { 'content-type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok) {
      if (body === undefined) throw new PartnerError(this.provider, request.call, 'unavailable', `answered ${response.status} without JSON`, response.status);
      return body as T;
    }
    const said = messageOf(body) ?? `HTTP ${response.status}`;
    // 401/403: the partner refuses our key, not the request (a configuration fault): nothing it could answer is usable,
    // so it counts as unavailable (another partner is asked, the breaker opens) and never as a "no".
    if (response.status === 401 || response.status === 403) {
      throw new PartnerError(
        this.provider,
        request.call,
        'unavailable',
        `refused our secret key (${response.status}): check its configuration`,
        response.status,
      );
    }
    // A refusal is the partner's own answer: a 4xx carrying its JSON envelope. A 4xx without one (a proxy's page, a wrong
    // base URL) says nothing about the request, and neither does a 5xx, a 429 or a 408.
    const answered = typeof body === 'object' && body !== null && ('message' in body || 'status' in body);
    const kind = response.status >= 500 || response.status === 429 || response.status === 408 || !answered ? 'unavailable' : 'refused';
    throw new PartnerError(this.provider, request.call, kind, `answered ${response.status}: ${said}`, response.status, body);
  }

  private observe(call: string, outcome: PartnerOutcome, started: number): void {
    this.options.observer?.observe(this.provider, call, outcome, (performance.now() - started) / 1000);
  }
}

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'message' in body && typeof body.message === 'string') return body.message;
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer within the timeout';
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error instanceof Error ? error.message : String(error)}${cause}`;
}
