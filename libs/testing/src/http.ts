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
