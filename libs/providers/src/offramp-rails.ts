import { createHash } from 'crypto';
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

/** Magic values of the sandbox (documented in the README). */
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
