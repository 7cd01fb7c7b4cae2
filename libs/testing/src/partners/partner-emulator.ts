import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';

/** A request the emulator received, for a test to assert what the adapter asked (and what it never asked). */
export interface EmulatorRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

/**
 * What every bank partner emulator shares: a local HTTP server that logs each request, checks the caller's key,
 * answers from the emulator's state (`route`), can be taken down for a number of calls (`failNext`) or made to lose
 * its answers after doing the work (`loseNextAnswers`), and sends events to the platform as the partner does.
 */
export abstract class PartnerEmulator {
  readonly requests: EmulatorRequest[] = [];
  private server: Server | undefined;
  private outage: { status: number; remaining: number; path?: string } | undefined;
  private lost: { remaining: number; path?: string } = { remaining: 0 };
  private lastEvent: { event: string; data: Record<string, unknown> } | undefined;

  constructor(readonly secretKey: string) {}

  /** The answer to an authorised request: [status, JSON body]. */
  protected abstract route(method: string, url: URL, body: unknown): [number, unknown];

  /** The header an event's signature travels in, and its value for a body. */
  protected abstract signatureOf(body: string): [header: string, value: string];

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the emulator is not started');
    return `http://127.0.0.1:${address.port}`;
  }

  /** The next `calls` calls (to `path` only, when given) are answered with `status` (503: the partner down; 0: the connection is dropped). */
  failNext(calls: number, status = 503, path?: string): void {
    this.outage = { status, remaining: calls, ...(path !== undefined && { path }) };
  }

  /**
   * The next `calls` calls (to `path` only, when given) are carried out and then answered 503, as when the partner did the work and the answer was
   * lost on the way back: what an adapter must not take for "nothing happened".
   */
  loseNextAnswers(calls: number, path?: string): void {
    this.lost = { remaining: calls, ...(path !== undefined && { path }) };
  }

  /** Sends the last event again, as the partner does when it did not hear an answer in time. */
  resendLast(url: string): Promise<{ status: number; body: any }> {
    if (!this.lastEvent) throw new Error('the emulator has sent no event yet');
    return this.sendEvent(url, this.lastEvent.event, this.lastEvent.data);
  }

  calls(path: string): EmulatorRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /**
   * Sends an event as the partner does: the JSON body POSTed to `url` with the partner's signature header (computed
   * here from the partner's documentation, not with the platform's code), or the `signature` given (a forgery);
   * `signature: null` sends none.
   */
  async sendEvent(
    url: string,
    event: string,
    data: Record<string, unknown>,
    options: { signature?: string | null; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: any }> {
    this.lastEvent = { event, data };
    const body = JSON.stringify({ event, data });
    const [header, computed] = this.signatureOf(body);
    const signature = options.signature === undefined ? computed : options.signature;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers, ...(signature !== null && { [header]: signature }) },
      body,
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed };
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((ready) => this.server!.listen(0, '127.0.0.1', ready));
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
    this.server = undefined;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const raw = await new Promise<string>((done) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => done(text));
    });
    const body = raw === '' ? undefined : (JSON.parse(raw) as unknown);
    const method = request.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body });
    const answer = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    // `path`: only calls to it (a `POST /transfer`), the others answered as ever.
    const hits = (filter: { path?: string }) => filter.path === undefined || filter.path === url.pathname;
    if (this.outage && this.outage.remaining > 0 && hits(this.outage)) {
      this.outage.remaining -= 1;
      if (this.outage.status === 0) return void response.socket?.destroy();
      return answer(this.outage.status, { status: false, message: 'Service temporarily unavailable' });
    }
    if (request.headers.authorization !== `Bearer ${this.secretKey}`) return answer(401, { status: false, message: 'Invalid key' });
    if (this.lost.remaining > 0 && hits(this.lost)) {
      this.lost.remaining -= 1;
      // Carried out, then the answer is lost.
      this.route(method, url, body);
      return answer(503, { status: false, message: 'Service temporarily unavailable' });
    }
    const [status, payload] = this.route(method, url, body);
    return answer(status, payload);
  }
}
