import { isIdOf, newId } from './ids';

describe('newId', () => {
  it('has the prefix and a 26-character ULID', () => {
    const id = newId('txn');
    expect(id).toMatch(/^txn_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(isIdOf('txn', id)).toBe(true);
    expect(isIdOf('qt', id)).toBe(false);
  });

  it('sorts by creation time', () => {
    const earlier = newId('qt', 1_700_000_000_000);
    const later = newId('qt', 1_700_000_000_001);
    expect(earlier < later).toBe(true);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('wal', 1)));
    expect(ids.size).toBe(10_000);
  });

  it('rejects malformed ids', () => {
    expect(isIdOf('txn', 'txn_../../etc/passwd')).toBe(false);
    expect(isIdOf('txn', 'txn_')).toBe(false);
    expect(isIdOf('txn', 42)).toBe(false);
  });
});
