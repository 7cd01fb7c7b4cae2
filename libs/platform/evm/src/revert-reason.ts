import { BaseError, decodeErrorResult, type Abi, type Hex } from 'viem';
import { Forwarder, ForwarderFactory, IntentPool, TestToken, WrappedNative } from './artifacts.generated';

/** Every custom error the platform's contracts can revert with, so a revert is reported by name, not as bytes. */
const KNOWN_ERRORS: Abi = [...TestToken.abi, ...WrappedNative.abi, ...Forwarder.abi, ...ForwarderFactory.abi, ...IntentPool.abi].filter(
  (item) => item.type === 'error',
);

/**
 * A readable reason from a failed call or gas estimate: `Error(string)`'s message, a custom error with its arguments
 * (`NotMinter(0x…)`), a panic, or viem's short message when the node gave no data.
 */
export function revertReasonOf(error: unknown): string {
  if (!(error instanceof BaseError)) return error instanceof Error ? error.message : String(error);
  const withData = error.walk(
    (cause) => typeof (cause as { data?: unknown }).data === 'string' && ((cause as { data: string }).data as string).startsWith('0x'),
  );
  const data = (withData as { data?: Hex } | null)?.data;
  if (data && data !== '0x') return revertDataReason(data);
  const reverted = error.walk((cause) => (cause as { name?: string }).name === 'ContractFunctionRevertedError') as { reason?: string } | null;
  if (reverted?.reason) return reverted.reason;
  const details = error.details || error.shortMessage;
  return details.replace(/^execution reverted:?\s*/i, '') || 'execution reverted';
}

/** The reason in a revert's returned bytes (a UserOperation's `UserOperationRevertReason`, a call's error data). */
export function revertDataReason(data: Hex | undefined): string {
  if (!data || data === '0x') return 'execution reverted';
  try {
    const decoded = decodeErrorResult({ abi: KNOWN_ERRORS, data });
    if (decoded.errorName === 'Error') return String(decoded.args?.[0]);
    return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`;
  } catch {
    return `reverted with data ${data}`;
  }
}
