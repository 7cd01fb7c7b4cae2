import { createHash } from 'crypto';
import { makeNuban } from '@ramp/banking';

export type RailResult<T> = ({ ok: true } & T) | { ok: false; reason: string };

/**
 * What an off-ramp needs from the outside: a DEX to swap to CNGN, the off-ramp provider that takes CNGN and pays NGN
 * to a bank account, and a way to send a deposit back. Real adapters call their APIs; the sandbox answers at once,
 * deterministically (the ramp service spaces its steps by SANDBOX_STEP_DELAY_MS).
 */
export interface OfframpRails {
  swapToCngn(input: {
    transactionId: string;
    tokenSymbol: string;
    amount: string;
    expectedCngn: string;
  }): Promise<RailResult<{ cngnAmount: string; transactionHash: string }>>;
  payout(input: {
    transactionId: string;
    bankCode: string;
    accountNumber: string;
    amount: string;
  }): Promise<RailResult<{ transactionHash: string; payoutReference: string }>>;
  refundDeposit(input: { transactionId: string; to: string; amount: string; tokenSymbol: string }): Promise<{ transactionHash: string }>;
}

/**
 * Magic values of the sandbox (documented in docs/api/sandbox.md): only the bank's side has them. A swap fails for real,
 * on chain, when its pool moved past the tolerance.
 */
export const SANDBOX_MAGIC = {
  /** Account numbers whose 9-digit serial is this are valid, but the bank rejects the payout. */
  payoutRejectedSerial: '888888888',
} as const;

/**
 * The sandbox off-ramp provider's settlement address on the local test chains: where an off-ramp's CNGN is sent before
 * the bank pays the Naira. An address nobody holds a key to (derived from a name), so what is sent there stays there.
 */
export const SANDBOX_OFFRAMP_SETTLEMENT_ADDRESS = '0x6ED1EfD5B855844Cf4C57fcD6213A0281fF885B7';

/** A transaction hash that looks real and is the same every time for the same step of the same transaction. */
export function sandboxHash(...parts: string[]): string {
  return `0x${createHash('sha256').update(parts.join(':')).digest('hex')}`;
}

export class SandboxOfframpRails implements OfframpRails {
  async swapToCngn(input: { transactionId: string; tokenSymbol: string; amount: string; expectedCngn: string }) {
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
  virtualAccount(input: { transactionId: string; amount: string; expiresAt: string }): {
    bankName: string;
    bankCode: string;
    accountNumber: string;
    accountName: string;
    amount: string;
    expiresAt: string;
  };
  mintCngn(input: { transactionId: string; ngnAmount: string }): Promise<{ amount: string; transactionHash: string }>;
  swapFromCngn(input: {
    transactionId: string;
    tokenSymbol: string;
    cngnAmount: string;
    expectedAmount: string;
    ngnAmount: string;
  }): Promise<RailResult<{ amount: string; transactionHash: string }>>;
  sendToAddress(input: { transactionId: string; chain: string; tokenSymbol: string; amount: string; address: string }): Promise<{ transactionHash: string }>;
  refundPayment(input: { transactionId: string; amount: string }): Promise<{ refundReference: string }>;
}

export class SandboxOnrampRails implements OnrampRails {
  virtualAccount(input: { transactionId: string; amount: string; expiresAt: string }) {
    // Wema Bank (035) virtual accounts: a serial from the transaction id, with its NUBAN check digit.
    const serial = (BigInt(sandboxHash(input.transactionId, 'virtual-account')) % 1_000_000_000n).toString().padStart(9, '0');
    return {
      bankName: 'Wema Bank',
      bankCode: '035',
      accountNumber: makeNuban('035', serial),
      accountName: 'RAMP CHECKOUT',
      amount: input.amount,
      expiresAt: input.expiresAt,
    };
  }

  async mintCngn(input: { transactionId: string; ngnAmount: string }) {
    return { amount: input.ngnAmount, transactionHash: sandboxHash(input.transactionId, 'mint') };
  }

  async swapFromCngn(input: { transactionId: string; tokenSymbol: string; cngnAmount: string; expectedAmount: string; ngnAmount: string }) {
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
