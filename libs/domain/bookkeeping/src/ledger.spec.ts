import { keccak_256 } from '@noble/hashes/sha3';
import { hexToBytes } from '@noble/hashes/utils';
import { isValidEvmAddress } from '@ramp/chains';
import { assertBalanced, create2Address, externalAccount, heldAccount, mayGoNegative, move, netChanges, smartAccountAddress, walletAccount } from './index';

describe('journal', () => {
  it('moves a positive amount as two legs that balance', () => {
    const legs = move(externalAccount('sandbox-funding'), walletAccount('wal_A'), 'base:USDC', '100.5');
    expect(legs).toEqual([
      { account: 'external:sandbox-funding', asset: 'base:USDC', amount: '-100.5' },
      { account: 'wallet:wal_A', asset: 'base:USDC', amount: '100.5' },
    ]);
    expect(() => assertBalanced(legs)).not.toThrow();
  });

  it('refuses zero, negative and non-numeric movements', () => {
    expect(() => move('wallet:a', 'held:a', 'base:USDC', '0')).toThrow(/positive/);
    expect(() => move('wallet:a', 'held:a', 'base:USDC', '-1')).toThrow(/positive/);
    expect(() => move('wallet:a', 'held:a', 'base:USDC', 'NaN')).toThrow();
  });

  it('finds an entry that does not balance, per asset, to the last decimal', () => {
    expect(() =>
      assertBalanced([
        { account: 'wallet:a', asset: 'base:USDC', amount: '-1.000000000000000001' },
        { account: 'held:a', asset: 'base:USDC', amount: '1' },
      ]),
    ).toThrow(/base:USDC: off by -0.000000000000000001$/);
    // Balanced in total but not per asset.
    expect(() =>
      assertBalanced([
        { account: 'wallet:a', asset: 'base:USDC', amount: '-1' },
        { account: 'held:a', asset: 'bsc:USDC', amount: '1' },
      ]),
    ).toThrow(/does not balance/);
    expect(() => assertBalanced([])).toThrow();
  });

  it('nets legs per account and asset in a fixed order, dropping what cancels out', () => {
    const legs = [
      ...move(walletAccount('wal_B'), heldAccount('wal_B'), 'base:USDC', '5'),
      ...move(heldAccount('wal_B'), walletAccount('wal_B'), 'base:USDC', '2'),
      ...move(externalAccount('x'), externalAccount('y'), 'base:ETH', '1'),
      ...move(externalAccount('y'), externalAccount('x'), 'base:ETH', '1'),
    ];
    expect(netChanges(legs)).toEqual([
      { account: 'held:wal_B', asset: 'base:USDC', amount: '3' },
      { account: 'wallet:wal_B', asset: 'base:USDC', amount: '-3' },
    ]);
  });

  it('lets only external accounts go negative', () => {
    expect(mayGoNegative('external:offramp-provider')).toBe(true);
    expect(mayGoNegative(walletAccount('wal_A'))).toBe(false);
    expect(mayGoNegative(heldAccount('wal_A'))).toBe(false);
    expect(mayGoNegative('revenue:fees')).toBe(false);
    expect(() => mayGoNegative('mystery:x')).toThrow();
  });
});

describe('smart-account addresses', () => {
  it('computes CREATE2 addresses as EIP-1014 example 0 and 5 say', () => {
    const zero = new Uint8Array(32);
    expect(create2Address('0x0000000000000000000000000000000000000000', zero, keccak_256(hexToBytes('00')))).toBe('0x4D1A2e2bB4F88F0250f26Ffff098B0b30B26BF38');
    const salt = hexToBytes('00000000000000000000000000000000000000000000000000000000cafebabe');
    expect(create2Address('0x00000000000000000000000000000000deadbeef', salt, keccak_256(hexToBytes('deadbeef')))).toBe(
      '0x60f3f640a8508fC6a86d45DF051962668E1e8AC7',
    );
  });

  it('gives each wallet a stable, checksummed address of its own on its chain', () => {
    const a = smartAccountAddress('base', 'wal_01M82JKS0ACQ0629932VF4AS08');
    expect(a).toBe(smartAccountAddress('base', 'wal_01M82JKS0ACQ0629932VF4AS08'));
    expect(isValidEvmAddress(a)).toBe(true);
    expect(a).not.toBe(smartAccountAddress('base', 'wal_01M82JKS0ACQ0629932VF4AS09'));
    expect(a).not.toBe(smartAccountAddress('bsc', 'wal_01M82JKS0ACQ0629932VF4AS08'));
  });
});
