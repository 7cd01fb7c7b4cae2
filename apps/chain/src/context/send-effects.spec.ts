import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, erc20Abi, type Address, type Hex, type Log } from 'viem';
import { ForwarderFactory, type SendRecord } from '@ramp/evm';
import { missingEffect } from './send-effects';

const hotWallet: Address = '0x00000000000000000000000000000000000000a1';
const forwarderFactory: Address = '0x00000000000000000000000000000000000000f1';
const token: Address = '0x00000000000000000000000000000000000000c1';
const recipient: Address = '0x00000000000000000000000000000000000000b1';
const accounts = { hotWallet, forwarderFactory };

const send = (kind: string, to: Address, data: Hex): SendRecord => ({
  id: '1',
  chain: 'test-base',
  sender: hotWallet,
  idempotencyKey: 'k',
  to,
  data,
  value: 0n,
  status: 'pending',
  attempts: [],
  kind,
});
const log = (address: Address, topics: Hex[], data: Hex): Log => ({
  address,
  topics: topics as never,
  data,
  blockHash: null,
  blockNumber: null,
  logIndex: null,
  transactionHash: null,
  transactionIndex: null,
  removed: false,
});
const transferLog = (from: Address, to: Address, value: bigint, by = token) =>
  log(by, encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from, to } }) as Hex[], encodeAbiParameters([{ type: 'uint256' }], [value]));

describe('send effects - a mined send counts as done only with the log of what it was for', () => {
  const transfer = send('transfer', token, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, 1_000n] }));

  it('a token transfer needs its Transfer log: from the hot wallet, to the recipient, of the amount, by the token', () => {
    expect(missingEffect(transfer, [transferLog(hotWallet, recipient, 1_000n)], accounts)).toBeUndefined();
    // A token that returned false moved nothing: no log.
    expect(missingEffect(transfer, [], accounts)).toMatch(/^its receipt has no Transfer of 1000 from the hot wallet to 0x0{38}[bB]1/);
    expect(missingEffect(transfer, [transferLog(hotWallet, recipient, 999n)], accounts)).toMatch(/no Transfer/);
    expect(missingEffect(transfer, [transferLog(hotWallet, recipient, 1_000n, '0x00000000000000000000000000000000000000c2')], accounts)).toMatch(/no Transfer/);
  });

  it("a lane's transferFrom of the hot wallet's tokens needs the same log, and is refused for anyone else's tokens", () => {
    const lane = { ...send('transfer', token, encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [hotWallet, recipient, 1_000n] })) };
    expect(missingEffect(lane, [transferLog(hotWallet, recipient, 1_000n)], accounts)).toBeUndefined();
    expect(missingEffect(lane, [transferLog(hotWallet, recipient, 10n)], accounts)).toMatch(/no Transfer of 1000 from the hot wallet/);
    const other = send('transfer', token, encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [recipient, hotWallet, 1_000n] }));
    expect(missingEffect(other, [transferLog(recipient, hotWallet, 1_000n)], accounts)).toMatch(/not the hot wallet's/);
  });

  it("a sweep needs the factory's Swept event; a native transfer and other kinds need nothing more than success", () => {
    const sweep = send('sweep', forwarderFactory, '0x1234');
    const swept = log(
      forwarderFactory,
      encodeEventTopics({ abi: ForwarderFactory.abi, eventName: 'Swept', args: { salt: `0x${'11'.repeat(32)}`, forwarder: recipient } }) as Hex[],
      '0x',
    );
    expect(missingEffect(sweep, [swept], accounts)).toBeUndefined();
    expect(missingEffect(sweep, [], accounts)).toMatch(/no Swept event/);
    expect(missingEffect(send('transfer', recipient, '0x'), [], accounts)).toBeUndefined();
    expect(missingEffect(send('swap', token, '0x'), [], accounts)).toBeUndefined();
  });
});
