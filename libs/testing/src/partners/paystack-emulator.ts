import { createHmac } from 'crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { NIGERIAN_BANKS } from '@ramp/banking';

/** A request the emulator received, for a test to assert what the adapter asked (and what it never asked). */
export interface EmulatorRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body?: unknown;
}

interface EmulatedBank {
  id: number;
  name: string;
  slug: string;
  code: string;
  nip_sort_code: string;
}

/**
 * Paystack as the tests need it: a stateful server answering the calls the platform makes, in the shapes of
 * Paystack's published contract (partners/paystack.yaml; run it behind PrismProxy to have both sides checked). It
 * knows a secret key, the Nigerian banks (commercial banks under their CBN code, the others under a Paystack code of
 * their own with their NIBSS code as `nip_sort_code`, as Paystack lists them), the accounts a test opens at them, and
 * can be taken down for a number of calls.
 *
 * Not Paystack: no other endpoint, no pagination beyond the bank list's cursor, and names are what the test gave.
 */
export class PaystackEmulator {
  readonly requests: EmulatorRequest[] = [];
  private server: Server | undefined;
  private readonly banks: EmulatedBank[];
  private readonly accounts = new Map<string, string>();
  private outage: { status: number; remaining: number } | undefined;

  constructor(
    readonly secretKey: string,
    options: { unlisted?: readonly string[] } = {},
  ) {
    const unlisted = new Set(options.unlisted ?? []);
    this.banks = NIGERIAN_BANKS.filter((bank) => !unlisted.has(bank.code)).map((bank, index) => ({
      id: index + 1,
      name: bank.name,
      slug: bank.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      // Paystack's own code: the CBN code for a commercial bank, a 5-digit code of its own for the others.
      code: bank.code.length === 3 ? bank.code : String(50100 + index),
      nip_sort_code: bank.code.length === 3 ? `000${bank.code}`.slice(-6) : bank.code,
    }));
    // A bank the platform does not know (it has no NUBAN rule for it): listed by Paystack, never offered.
    this.banks.push({ id: 999, name: 'Emulated Unknown Bank', slug: 'emulated-unknown-bank', code: '999001', nip_sort_code: '999001' });
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the emulator is not started');
    return `http://127.0.0.1:${address.port}`;
  }

  /** Paystack's code for the bank the platform knows by `code`. */
  paystackCodeOf(code: string): string {
    const bank = this.banks.find((listed) => listed.nip_sort_code === code || listed.code === code);
    if (!bank) throw new Error(`the emulator does not list bank ${code}`);
    return bank.code;
  }

  /** An account at a bank (the platform's code for it), held by `name`: what name enquiry answers. */
  openAccount(bankCode: string, accountNumber: string, name: string): void {
    this.accounts.set(`${this.paystackCodeOf(bankCode)}:${accountNumber}`, name);
  }

  /** The next `calls` calls are answered with `status` (503: Paystack down; 0: the connection is dropped). */
  failNext(calls: number, status = 503): void {
    this.outage = { status, remaining: calls };
  }

  /**
   * Sends an event as Paystack does: the JSON body POSTed to `url` with `x-paystack-signature`, the hex HMAC-SHA512 of
   * the body keyed with the secret key (written here from Paystack's documentation, not with the platform's code), or
   * the `signature` given (a forgery); `signature: null` sends none.
   */
  async sendEvent(
    url: string,
    event: string,
    data: Record<string, unknown>,
    options: { signature?: string | null } = {},
  ): Promise<{ status: number; body: any }> {
    const body = JSON.stringify({ event, data });
    const signature = options.signature === undefined ? createHmac('sha512', this.secretKey).update(body).digest('hex') : options.signature;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signature !== null && { 'x-paystack-signature': signature }) },
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

  calls(path: string): EmulatorRequest[] {
    return this.requests.filter((request) => request.path === path);
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
    this.requests.push({ method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), body });
    const answer = (status: number, payload: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload));
    };
    if (this.outage && this.outage.remaining > 0) {
      this.outage.remaining -= 1;
      if (this.outage.status === 0) return void response.socket?.destroy();
      return answer(this.outage.status, { status: false, message: 'Service temporarily unavailable' });
    }
    if (request.headers.authorization !== `Bearer ${this.secretKey}`) return answer(401, { status: false, message: 'Invalid key' });
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /bank') return answer(200, this.listBanks(url.searchParams));
    if (route === 'GET /bank/resolve') {
      const key = `${url.searchParams.get('bank_code')}:${url.searchParams.get('account_number')}`;
      const name = this.accounts.get(key);
      if (!name) return answer(422, { status: false, message: 'Could not resolve account name. Check parameters or try again.', type: 'validation_error' });
      return answer(200, {
        status: true,
        message: 'Account number resolved',
        data: {
          account_number: url.searchParams.get('account_number'),
          account_name: name,
          bank_id: this.banks.find((bank) => bank.code === key.split(':')[0])?.id ?? 0,
        },
      });
    }
    return answer(404, { status: false, message: `the emulator has no ${route}`, type: 'api_error' });
  }

  /**
   * `GET /bank`, in cursor pages of `perPage` but never more than 20 (the cursor is the next bank's index), so that an
   * adapter that does not follow `meta.next` misses banks.
   */
  private listBanks(query: URLSearchParams) {
    const perPage = Math.min(Number(query.get('perPage') ?? 50), 20);
    const from = Number(query.get('next') ?? 0);
    const page = this.banks.slice(from, from + perPage);
    const next = from + perPage < this.banks.length ? String(from + perPage) : null;
    const at = '2024-01-01T00:00:00.000Z';
    return {
      status: true,
      message: 'Banks retrieved',
      data: page.map((bank) => ({
        id: bank.id,
        name: bank.name,
        slug: bank.slug,
        code: bank.code,
        longcode: '',
        gateway: null,
        pay_with_bank: false,
        supports_transfer: true,
        available_for_direct_debit: false,
        active: true,
        is_deleted: false,
        country: 'Nigeria',
        currency: 'NGN',
        type: 'nuban',
        nip_sort_code: bank.nip_sort_code,
        createdAt: at,
        updatedAt: at,
      })),
      meta: { next, previous: from > 0 ? String(Math.max(0, from - perPage)) : null, perPage },
    };
  }
}
