import { createHash } from 'crypto';
import { makeNuban } from '@ramp/banking';
import { dec } from '@ramp/money';

export type RailResult<T> = ({ ok: true } & T) | { ok: false; reason: string };

/**
 * What an off-ramp needs from the outside: a DEX to swap to CNGN, the off-ramp provider that takes CNGN and pays NGN
 * to a bank account, and a way to send a deposit back. Real adapters call their APIs; the sandbox answers at once,
 * deterministically (the ramp service spaces its steps by SANDBOX_STEP_DELAY_MS).
 */
export interface OfframpRails {
  swapToCngn(input: { transactionId: string; tokenSymbol: string; amount: string; expectedCngn: string }): Promise<RailResult<{ cngnAmount: string; transactionHash: string }>>;
  payout(input: { transactionId: string; bankCode: string; accountNumber: string; amount: string }): Promise<RailResult<{ transactionHash: string; payoutReference: string }>>;
  refundDeposit(input: { transactionId: string; to: string; amount: string; tokenSymbol: string }): Promise<{ transactionHash: string }>;
}

/** Magic values of the sandbox (documented in docs/api/sandbox.md). */
export const SANDBOX_MAGIC = {
  /** An off-ramp of exactly this crypto amount fails its swap to CNGN. */
  swapFailureAmount: '13.13',
  /** Account numbers whose 9-digit serial is this are valid, but the bank rejects the payout. */
  payoutRejectedSerial: '888888888',
} as const;

/** A transaction hash that looks real and is the same every time for the same step of the same transaction. */
export function sandboxHash(...parts: string[]): string {
  return `0x${createHash('sha256').update(parts.join(':')).digest('hex')}`;
}

export class SandboxOfframpRails implements OfframpRails {
  async swapToCngn(input: { transactionId: string; tokenSymbol: string; amount: string; expectedCngn: string }) {
    if (dec(input.amount).eq(SANDBOX_MAGIC.swapFailureAmount)) {
      return { ok: false as const, reason: `no route with enough liquidity for ${input.amount} ${input.tokenSymbol} (sandbox magic amount)` };
    }
    return { ok: true as const, cngnAmount: input.expectedCngn, transactionHash: sandboxHash(input.transactionId, 'swap') };
  }

  async payout(input: { transactionId: string; bankCode: string; accountNumber: string; amount: string }) {
    if (input.accountNumber.slice(0, 9) === SANDBOX_MAGIC.payoutRejectedSerial) {
      return { ok: false as const, reason: 'the beneficiary bank rejected the credit (sandbox magic account)' };
    }
    const digits = BigInt(sandboxHash(input.transactionId, 'payout')).toString().slice(0, 20);
    return { ok: true as const, transactionHash: sandboxHash(input.transactionId, 'send-cngn'), payoutReference: `NIP${digits}` };
  }

  async refundDeposit(input: { transactionId: string; to: string; amount: string; tokenSymbol: string }) {
    return { transactionHash: sandboxHash(input.transactionId, 'refund', input.to) };
  }
}

/**
 * What an on-ramp needs from the outside: a virtual account for the NGN payment, CNGN minted against it, a DEX to
 * swap CNGN to the bought token, a chain transfer to an external address, and a refund of the NGN.
 */
export interface OnrampRails {
  virtualAccount(input: { transactionId: string; amount: string; expiresAt: string }): { bankName: string; bankCode: string; accountNumber: string; accountName: string; amount: string; expiresAt: string };
  mintCngn(input: { transactionId: string; ngnAmount: string }): Promise<{ amount: string; transactionHash: string }>;
  swapFromCngn(input: { transactionId: string; tokenSymbol: string; cngnAmount: string; expectedAmount: string; ngnAmount: string }): Promise<RailResult<{ amount: string; transactionHash: string }>>;
  sendToAddress(input: { transactionId: string; chain: string; tokenSymbol: string; amount: string; address: string }): Promise<{ transactionHash: string }>;
  refundPayment(input: { transactionId: string; amount: string }): Promise<{ refundReference: string }>;
}

/** An on-ramp paying exactly this many NGN for a token other than CNGN fails its swap (sandbox). */
export const ONRAMP_SWAP_FAILURE_NGN = '13130';

export class SandboxOnrampRails implements OnrampRails {
  virtualAccount(input: { transactionId: string; amount: string; expiresAt: string }) {
    // Wema Bank (035) virtual accounts: a serial from the transaction id, with its NUBAN check digit.
    const serial = (BigInt(sandboxHash(input.transactionId, 'virtual-account')) % 1_000_000_000n).toString().padStart(9, '0');
    return { bankName: 'Wema Bank', bankCode: '035', accountNumber: makeNuban('035', serial), accountName: 'RAMP CHECKOUT', amount: input.amount, expiresAt: input.expiresAt };
  }

  async mintCngn(input: { transactionId: string; ngnAmount: string }) {
    return { amount: input.ngnAmount, transactionHash: sandboxHash(input.transactionId, 'mint') };
  }

  async swapFromCngn(input: { transactionId: string; tokenSymbol: string; cngnAmount: string; expectedAmount: string; ngnAmount: string }) {
    if (dec(input.ngnAmount).eq(ONRAMP_SWAP_FAILURE_NGN)) return { ok: false as const, reason: `no route with enough liquidity to ${input.tokenSymbol} (sandbox magic amount)` };
    return { ok: true as const, amount: input.expectedAmount, transactionHash: sandboxHash(input.transactionId, 'swap') };
  }

  async sendToAddress(input: { transactionId: string; chain: string; tokenSymbol: string; amount: string; address: string }) {
    return { transactionHash: sandboxHash(input.transactionId, 'deliver', input.address) };
  }

  async refundPayment(input: { transactionId: string; amount: string }) {
    const digits = BigInt(sandboxHash(input.transactionId, 'refund')).toString().slice(0, 20);
    return { refundReference: `NIP${digits}` };
  }
}
