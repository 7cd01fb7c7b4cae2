import { Agent, request as httpRequest } from 'http';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A real HTTP client for the gateway: what an integrator's backend does, with fetch. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
  ) {}

  withKey(apiKey: string | undefined): ApiClient {
    return new ApiClient(this.baseUrl, apiKey);
  }

  get<T = any>(path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body === undefined ? undefined : JSON.stringify(body), { 'content-type': 'application/json', ...headers });
  }

  delete<T = any>(path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, undefined, headers);
  }

  /** Sends a body exactly as given (malformed JSON, other content types). */
  async raw<T = any>(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<ApiResponse<T>> {
    return this.request<T>(method, path, body, headers);
  }

  private async request<T>(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<ApiResponse<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      body,
      headers: { ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}), ...headers },
    });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
}

export interface RawRequest {
  method: string;
  /** Sent exactly as given: no normalisation of `..`, no encoding. */
  path: string;
  /** In order, duplicates allowed (as on the wire). `host` is added unless given; `['host', '']` sends none. */
  headers?: [string, string][];
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

/**
 * A request written as given, for hostile input that fetch would refuse or tidy up: a path with `..` kept, repeated
 * headers, any method, any body bytes. Node's own checks still apply (no CR or LF in a header value).
 */
export function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(origin);
  return new Promise((resolvePromise, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: withHost(request.headers ?? [], url.host).flat(),
        agent: rawAgent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolvePromise({ status: response.statusCode ?? 0, headers: response.headers, text, body });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

const rawAgent = new Agent({ keepAlive: true, maxSockets: 16 });

function withHost(headers: [string, string][], host: string): [string, string][] {
  const given = headers.find(([name]) => name.toLowerCase() === 'host');
  if (!given) return [['host', host], ...headers];
  return given[1] === '' ? headers.filter(([name]) => name.toLowerCase() !== 'host') : headers;
}
