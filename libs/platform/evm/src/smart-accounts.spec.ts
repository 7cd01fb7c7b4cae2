import { getContractAddress, keccak256, maxUint256, recoverMessageAddress, toHex, zeroHash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CANONICAL_ACCOUNT_FACTORY, CANONICAL_ENTRY_POINT, STUB_SIGNATURE, accountSalt, operationNonce, smartAccountContracts } from './smart-accounts';

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
