import { decodeFunctionData, erc20Abi, getAddress, parseEventLogs, type Address, type Log } from 'viem';
import { ForwarderFactory, type SendRecord } from '@ramp/evm';

/**
 * What a hot-wallet send's successful receipt must hold for it to have done what it was for, or undefined when it does:
 * a token transfer (the hot wallet's `transfer`, or a lane's `transferFrom` of the hot wallet's tokens) its `Transfer`
 * log (from the hot wallet, to the recipient, of the amount), a sweep the factory's
 * `Swept` event. A token that answers `false` instead of reverting, or a contract that is not what it was taken for,
 * mines "successfully" and moves nothing: such a send fails instead of counting as done (SendQueue's `verify`).
 */
export function missingEffect(send: SendRecord, logs: readonly Log[], accounts: { hotWallet: Address; forwarderFactory: Address }): string | undefined {
  if (send.kind === 'transfer' && send.data !== '0x') {
    const call = decodeFunctionData({ abi: erc20Abi, data: send.data });
    // The hot wallet's own `transfer`, or a lane's `transferFrom` of the hot wallet's tokens (SendLanes): the same effect.
    if (call.functionName === 'transferFrom' && getAddress(call.args[0]) !== getAddress(accounts.hotWallet))
      return `it moves ${getAddress(call.args[0])}'s tokens, not the hot wallet's`;
    if (call.functionName !== 'transfer' && call.functionName !== 'transferFrom') return undefined;
    const [to, value] = call.functionName === 'transfer' ? call.args : [call.args[1], call.args[2]];
    const moved = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: [...logs] }).some(
      (log) =>
        getAddress(log.address) === getAddress(send.to) &&
        getAddress(log.args.from) === getAddress(accounts.hotWallet) &&
        getAddress(log.args.to) === getAddress(to) &&
        log.args.value === value,
    );
    return moved
      ? undefined
      : `its receipt has no Transfer of ${value} from the hot wallet to ${getAddress(to)} by ${getAddress(send.to)}: the token did not move`;
  }
  if (send.kind === 'sweep') {
    const swept = parseEventLogs({ abi: ForwarderFactory.abi, eventName: 'Swept', logs: [...logs] }).some(
      (log) => getAddress(log.address) === getAddress(accounts.forwarderFactory),
    );
    return swept ? undefined : `its receipt has no Swept event of the forwarder factory ${getAddress(accounts.forwarderFactory)}`;
  }
  return undefined;
}
