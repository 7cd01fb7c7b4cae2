import {
  encodeAbiParameters,
  encodeEventTopics,
  erc20Abi,
  getContractAddress,
  keccak256,
  maxUint256,
  recoverMessageAddress,
  toHex,
  zeroAddress,
  zeroHash,
  type Address,
  type Hex,
  type Log,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { entryPoint07Abi } from 'viem/account-abstraction';
import {
  CANONICAL_ACCOUNT_FACTORY,
  CANONICAL_ENTRY_POINT,
  STUB_SIGNATURE,
  accountSalt,
  operationFromJson,
  operationLogs,
  operationNonce,
  operationSenderOfLog,
  operationToJson,
  smartAccountContracts,
} from './smart-accounts';

describe('smart accounts - where the contracts are and what a step’s operation is numbered', () => {
  const owner = '0x1111111111111111111111111111111111111111';

  it("puts EntryPoint v0.7 and its SimpleAccountFactory at the canonical addresses public chains have, and the paymaster at its owner's first deployment", () => {
    const contracts = smartAccountContracts(owner);
    expect(contracts.entryPoint).toBe(CANONICAL_ENTRY_POINT);
    expect(contracts.accountFactory).toBe(CANONICAL_ACCOUNT_FACTORY);
    expect(contracts.paymaster).toBe(getContractAddress({ opcode: 'CREATE', from: owner, nonce: 0n }));
    expect(smartAccountContracts('0x2222222222222222222222222222222222222222').paymaster).not.toBe(contracts.paymaster);
  });

  it("numbers a step's operation with the step's own nonce key at sequence 0, the same every time", () => {
    const nonce = operationNonce('txn_1:swap');
    expect(nonce).toBe(operationNonce('txn_1:swap'));
    expect(nonce & ((1n << 64n) - 1n)).toBe(0n);
    expect(nonce >> 64n).toBeGreaterThan(0n);
    expect(nonce).toBeLessThanOrEqual(maxUint256);
    expect(operationNonce('txn_1:send') >> 64n).not.toBe(nonce >> 64n);
  });

  it('estimates with a constant stub signature, a public throwaway key’s, never a custody key’s', async () => {
    const throwaway = privateKeyToAccount(keccak256(toHex('ramp-platform/stub-signature')));
    expect(await recoverMessageAddress({ message: { raw: zeroHash }, signature: STUB_SIGNATURE })).toBe(throwaway.address);
  });

  it('salts each wallet’s account by its id', () => {
    expect(accountSalt('wal_1')).toBe(accountSalt('wal_1'));
    expect(accountSalt('wal_2')).not.toBe(accountSalt('wal_1'));
  });
});

describe('smart accounts - which operation of a bundle moved a token', () => {
  const entryPoint = CANONICAL_ENTRY_POINT;
  const token = '0x3333333333333333333333333333333333333333';
  const [first, second] = ['0x4444444444444444444444444444444444444444', '0x5555555555555555555555555555555555555555'] as const;
  const log = (address: Address, logIndex: number, topics: Hex[], data: Hex): Log =>
    ({
      address,
      logIndex,
      topics,
      data,
      blockHash: zeroHash,
      blockNumber: 1n,
      transactionHash: zeroHash,
      transactionIndex: 0,
      removed: false,
    }) as unknown as Log;
  const transfer = (logIndex: number) =>
    log(
      token,
      logIndex,
      encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from: first, to: second } }) as Hex[],
      encodeAbiParameters([{ type: 'uint256' }], [1n]),
    );
  const operation = (logIndex: number, sender: Address, from = entryPoint) =>
    log(
      from,
      logIndex,
      encodeEventTopics({ abi: entryPoint07Abi, eventName: 'UserOperationEvent', args: { userOpHash: zeroHash, sender, paymaster: zeroAddress } }) as Hex[],
      encodeAbiParameters([{ type: 'uint256' }, { type: 'bool' }, { type: 'uint256' }, { type: 'uint256' }], [0n, true, 1n, 1n]),
    );

  it("names the operation whose calls emitted a log: the first UserOperationEvent after it, the EntryPoint's only", () => {
    // Operation 1's calls (log 0), its event (1); operation 2's calls (2, 3), its event (4).
    const logs = [transfer(0), operation(1, first), transfer(2), transfer(3), operation(4, second)];
    expect(operationSenderOfLog(logs, entryPoint, 0)).toBe(first);
    expect(operationSenderOfLog(logs, entryPoint, 2)).toBe(second);
    expect(operationSenderOfLog(logs, entryPoint, 3)).toBe(second);
    // A log after every operation's (none emitted it), and a look-alike event of another contract.
    expect(operationSenderOfLog([...logs, transfer(5)], entryPoint, 5)).toBeUndefined();
    expect(operationSenderOfLog([transfer(0), operation(1, first, token)], entryPoint, 0)).toBeUndefined();
    // A transaction that is no bundle.
    expect(operationSenderOfLog([transfer(0)], entryPoint, 0)).toBeUndefined();
    // A log before the bundle's BeforeExecution (its validation, or a call around handleOps) is no operation's.
    const beforeExecution = log(entryPoint, 1, encodeEventTopics({ abi: entryPoint07Abi, eventName: 'BeforeExecution' }) as Hex[], '0x');
    const wrapped = [transfer(0), beforeExecution, transfer(2), operation(3, first)];
    expect(operationSenderOfLog(wrapped, entryPoint, 0)).toBeUndefined();
    expect(operationSenderOfLog(wrapped, entryPoint, 2)).toBe(first);
  });

  it("reads an operation's own logs out of a bundle: after the previous operation's event (or BeforeExecution), before its own", () => {
    const hashed = (logIndex: number, sender: Address, userOpHash: Hex) =>
      log(
        entryPoint,
        logIndex,
        encodeEventTopics({ abi: entryPoint07Abi, eventName: 'UserOperationEvent', args: { userOpHash, sender, paymaster: zeroAddress } }) as Hex[],
        encodeAbiParameters([{ type: 'uint256' }, { type: 'bool' }, { type: 'uint256' }, { type: 'uint256' }], [0n, true, 1n, 1n]),
      );
    const [one, two] = [keccak256(toHex('one')), keccak256(toHex('two'))];
    const beforeExecution = log(entryPoint, 1, encodeEventTopics({ abi: entryPoint07Abi, eventName: 'BeforeExecution' }) as Hex[], '0x');
    // Validation's log (0), BeforeExecution (1), operation one's calls (2) and event (3), operation two's calls (4, 5) and event (6).
    const logs = [transfer(0), beforeExecution, transfer(2), hashed(3, first, one), transfer(4), transfer(5), hashed(6, second, two)];
    expect(operationLogs(logs, entryPoint, one).map((entry) => entry.logIndex)).toEqual([2]);
    expect(operationLogs([...logs].reverse(), entryPoint, two).map((entry) => entry.logIndex)).toEqual([4, 5]);
    expect(operationLogs(logs, entryPoint, keccak256(toHex('three')))).toEqual([]);
  });

  it('keeps a signed operation as plain JSON and reads it back the same', () => {
    const operation = {
      sender: first,
      nonce: operationNonce('txn_1:send'),
      callData: '0x1234' as Hex,
      callGasLimit: 100_000n,
      verificationGasLimit: 200_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      signature: '0xabcd' as Hex,
    };
    const kept = operationToJson(operation);
    expect(kept).not.toMatch(/http/);
    expect(operationFromJson(kept)).toEqual(operation);
  });
});
