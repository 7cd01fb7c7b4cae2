import { AppError, HTTP_STATUS_OF, invalidField, type WalletView } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { checkTargetUrl, type AllowedHosts } from '@ramp/webhooks';

/** Shared checks of initiation requests. */
export function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidField(field, 'must be a string');
  return value;
}

/**
 * A per-transaction callback URL: https only, no credentials, not a loopback, private or metadata host written as
 * such (WEBHOOK_ALLOW_HOSTS excepted). Names are resolved and checked when the notifier connects.
 */
export function parseCallbackUrl(value: unknown, allowed: AllowedHosts): string | null {
  const raw = optionalString(value, 'callbackUrl');
  if (raw === undefined) return null;
  const check = checkTargetUrl(raw, allowed);
  if (!check.ok) throw invalidField('callbackUrl', check.message);
  return check.url.toString();
}

/** A decision of another service (4xx), as opposed to a fault worth retrying. */
export function isRefusal(error: unknown): error is AppError {
  return error instanceof AppError && HTTP_STATUS_OF[error.code] < 500;
}

/** A refusal's message without its leading `field: `, to quote it inside another message. */
export const withoutField = (message: string): string => message.replace(/^[A-Za-z.]+: /, '');

/** A managed wallet named by an initiation must be on the quote's chain (INVALID_REQUEST on walletId otherwise). */
export function checkWalletChain(wallet: WalletView, chain: string): void {
  if (wallet.chain !== chain) throw invalidField('walletId', `is on ${wallet.chain}; the quote is for ${chain}`);
}

/** ...and, when it pays, hold at least the quoted amount of the token as available (not held) balance. */
export function checkWalletCanPay(wallet: WalletView, chain: string, tokenSymbol: string, amount: string): void {
  checkWalletChain(wallet, chain);
  const available = wallet.balances.find((balance) => balance.tokenSymbol === tokenSymbol)?.available ?? '0';
  if (dec(available).lt(amount)) throw invalidField('walletId', `has ${available} ${tokenSymbol} available; the quote needs ${amount}`);
}
