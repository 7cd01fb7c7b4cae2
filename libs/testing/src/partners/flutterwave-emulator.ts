import { NIGERIAN_BANKS } from '@ramp/banking';
import { PartnerEmulator } from './partner-emulator';

/** A transfer the Flutterwave emulator holds, by our reference. */
export interface FlutterwaveEmulatedTransfer {
  id: number;
  reference: string;
  account_number: string;
  bank_code: string;
  amount: number;
  narration: string;
  status: 'NEW' | 'SUCCESSFUL' | 'FAILED';
  created_at: string;
}

/**
 * Flutterwave (v3) as the tests need it, written from its public documentation (there is no published contract to
 * validate against): banks under the platform's own codes, account resolve, transfers by reference (a reused one is
 * refused), the NGN balance, and `transfer.completed` events carrying `verif-hash`. Served under `/v3`, as the
 * real API is: set FLUTTERWAVE_BASE_URL to `${url}/v3`.
 */
export class FlutterwaveEmulator extends PartnerEmulator {
  private readonly banks: { id: number; code: string; name: string }[];
  private readonly accounts = new Map<string, string>();
  readonly transfers = new Map<string, FlutterwaveEmulatedTransfer>();
  /** Naira available for transfers. */
  balance = 50_000_000;

  constructor(
    secretKey: string,
    readonly webhookHash: string,
  ) {
    super(secretKey);
    this.banks = NIGERIAN_BANKS.map((bank, index) => ({ id: index + 1, code: bank.code, name: bank.name }));
  }

  openAccount(bankCode: string, accountNumber: string, name: string): void {
    this.accounts.set(`${bankCode}:${accountNumber}`, name);
  }

  /** Ends a transfer as the bank did, and sends `transfer.completed` to `webhookUrl` when given. */
  async settle(reference: string, status: 'SUCCESSFUL' | 'FAILED', webhookUrl?: string): Promise<{ status: number; body: any } | undefined> {
    const transfer = this.transfers.get(reference);
    if (!transfer) throw new Error(`the emulator has no transfer ${reference}`);
    if (status === 'FAILED') this.balance += transfer.amount;
    transfer.status = status;
    return webhookUrl ? this.sendEvent(webhookUrl, 'transfer.completed', this.view(transfer)) : undefined;
  }

  protected signatureOf(): [string, string] {
    // Flutterwave's documented check: `verif-hash` is the secret hash set in the dashboard, as it is.
    return ['verif-hash', this.webhookHash];
  }

  protected route(method: string, url: URL, body: unknown): [number, unknown] {
    const path = url.pathname.replace(/^\/v3/, '');
    const route = `${method} ${path}`;
    if (route === 'GET /banks/NG') return [200, { status: 'success', message: 'Banks fetched successfully', data: this.banks }];
    if (route === 'POST /accounts/resolve') {
      const input = body as { account_number: string; account_bank: string };
      const name = this.accounts.get(`${input.account_bank}:${input.account_number}`);
      if (!name) return [400, { status: 'error', message: 'Sorry, that account number is invalid, please check and try again', data: null }];
      return [200, { status: 'success', message: 'Account details fetched', data: { account_number: input.account_number, account_name: name } }];
    }
    if (route === 'POST /transfers') {
      const input = body as { account_bank: string; account_number: string; amount: number; narration: string; reference: string; currency: string };
      if (this.transfers.has(input.reference)) return [400, { status: 'error', message: 'A transfer with this reference already exists', data: null }];
      if (input.currency !== 'NGN' || typeof input.amount !== 'number') return [400, { status: 'error', message: 'Invalid amount or currency', data: null }];
      if (input.amount > this.balance) return [400, { status: 'error', message: 'Insufficient balance', data: null }];
      this.balance -= input.amount;
      const transfer: FlutterwaveEmulatedTransfer = {
        id: 190_000 + this.transfers.size,
        reference: input.reference,
        account_number: input.account_number,
        bank_code: input.account_bank,
        amount: input.amount,
        narration: input.narration,
        status: 'NEW',
        created_at: new Date().toISOString(),
      };
      this.transfers.set(input.reference, transfer);
      return [200, { status: 'success', message: 'Transfer Queued Successfully', data: this.view(transfer) }];
    }
    if (route === 'GET /transfers') {
      const transfer = this.transfers.get(url.searchParams.get('reference') ?? '');
      return [200, { status: 'success', message: 'Transfers fetched', data: transfer ? [this.view(transfer)] : [] }];
    }
    if (route === 'GET /balances/NGN')
      return [
        200,
        { status: 'success', message: 'Wallet balance fetched', data: { currency: 'NGN', available_balance: this.balance, ledger_balance: this.balance } },
      ];
    return [404, { status: 'error', message: `the emulator has no ${route}`, data: null }];
  }

  private view(transfer: FlutterwaveEmulatedTransfer) {
    return {
      id: transfer.id,
      account_number: transfer.account_number,
      bank_code: transfer.bank_code,
      full_name: this.accounts.get(`${transfer.bank_code}:${transfer.account_number}`) ?? 'N/A',
      created_at: transfer.created_at,
      currency: 'NGN',
      debit_currency: 'NGN',
      amount: transfer.amount,
      fee: 26.875,
      status: transfer.status,
      reference: transfer.reference,
      narration: transfer.narration,
      complete_message: transfer.status === 'FAILED' ? 'DISBURSE FAILED: Beneficiary account is dormant' : '',
      requires_approval: 0,
      is_approved: 1,
    };
  }
}
