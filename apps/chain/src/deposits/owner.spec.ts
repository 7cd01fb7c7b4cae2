import { depositIdOf, isTreasury, ownerKey, treasuryOwner } from './owner';

describe('deposit address owners', () => {
  it("a managed wallet's or a non-custodial off-ramp's id is the key of its deposit address", () => {
    expect(ownerKey('wallet:wal_0123456789abcdef')).toBe('wal_0123456789abcdef');
    expect(ownerKey('offramp:txn_AbCdEf0123456789')).toBe('txn_AbCdEf0123456789');
  });

  it('no other owner has a deposit address: the treasury, another kind, a malformed or too short id', () => {
    for (const owner of [
      'treasury:test-base',
      'swap:txn_0123456789abcdef',
      'wallet:WAL_0123456789',
      'wallet:wal_short',
      'wallet:wal_0123456789abcdef:x',
      'wal_0123456789abcdef',
    ]) {
      expect(ownerKey(owner)).toBeUndefined();
    }
  });

  it("the hot wallet is watched as its chain's treasury, and only it", () => {
    expect(treasuryOwner('test-base')).toBe('treasury:test-base');
    expect(isTreasury(treasuryOwner('live-bsc'))).toBe(true);
    expect(isTreasury('wallet:wal_0123456789abcdef')).toBe(false);
  });

  it('a deposit is known by its environment, chain, transaction hash and log index (-1 for the native coin)', () => {
    expect(depositIdOf('test', 'base', '0xab', 3)).toBe('test:base:0xab:3');
    expect(depositIdOf('live', 'bsc', '0xcd', -1)).toBe('live:bsc:0xcd:-1');
  });
});
