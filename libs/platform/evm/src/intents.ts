import { encodeFunctionData, getAddress, parseEventLogs, type Address, type Log } from 'viem';
import { IntentPool } from './artifacts.generated';
import type { SendRequest } from './send-queue';

/**
 * The calls of the intent bridge (IntentPool.sol, one pool per chain) and what their receipts say. The relayer is the
 * pool's chain's hot wallet: it deposits on the source chain (for a route's leg), fills on the destination, and settles
 * (is repaid) or refunds back on the source.
 */
export interface IntentDeposit {
  inputToken: Address;
  inputAmount: bigint;
  destinationChainId: number;
  outputToken: Address;
  outputAmount: bigint;
  recipient: Address;
  /** Unix seconds: the fill must be mined by then, the refund after. */
  fillDeadline: number;
}

export function intentDepositCall(pool: Address, deposit: IntentDeposit): SendRequest {
  const { inputToken, inputAmount, destinationChainId, outputToken, outputAmount, recipient, fillDeadline } = deposit;
  return {
    to: pool,
    data: encodeFunctionData({
      abi: IntentPool.abi,
      functionName: 'deposit',
      args: [inputToken, inputAmount, BigInt(destinationChainId), outputToken, outputAmount, recipient, fillDeadline],
    }),
  };
}

/** The fill of deposit `depositId` of chain `originChainId`, on the destination's pool, from the relayer's funds. */
export function intentFillCall(
  pool: Address,
  originChainId: number,
  depositId: bigint,
  deposit: Pick<IntentDeposit, 'outputToken' | 'outputAmount' | 'recipient' | 'fillDeadline'>,
): SendRequest {
  return {
    to: pool,
    data: encodeFunctionData({
      abi: IntentPool.abi,
      functionName: 'fill',
      args: [BigInt(originChainId), depositId, deposit.outputToken, deposit.outputAmount, deposit.recipient, deposit.fillDeadline],
    }),
  };
}

export function intentSettleCall(pool: Address, depositId: bigint): SendRequest {
  return { to: pool, data: encodeFunctionData({ abi: IntentPool.abi, functionName: 'settle', args: [depositId] }) };
}

export function intentRefundCall(pool: Address, depositId: bigint): SendRequest {
  return { to: pool, data: encodeFunctionData({ abi: IntentPool.abi, functionName: 'refund', args: [depositId] }) };
}

/** The pool's id of the deposit a mined `deposit` call made, from its receipt's Deposited event (undefined: none). */
export function intentDepositIdOf(pool: Address, logs: readonly Log[]): bigint | undefined {
  const deposited = parseEventLogs({ abi: IntentPool.abi, eventName: 'Deposited', logs: [...logs] }).filter(
    (log) => getAddress(log.address) === getAddress(pool),
  );
  return deposited[0]?.args.depositId;
}
