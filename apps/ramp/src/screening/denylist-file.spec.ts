import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DenylistFile } from './denylist-file';

describe('DenylistFile - the operator updates the file, the ramp service follows', () => {
  const listed = '0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c';
  const later = '0x7f367cc41522ce07553e823bf3be79a889debe1b';
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'denylist-'));
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds a listed counterparty with its reason, and follows an update within the look-again period', () => {
    const path = join(dir, 'denylist.txt');
    writeFileSync(path, `${listed}\n`);
    const file = new DenylistFile(path);
    expect(file.screen([{ address: listed, role: 'deposit sender' }])).toEqual({
      address: listed,
      role: 'deposit sender',
      reason: expect.stringMatching(/^The deposit sender is on the screening denylist/),
    });
    expect(file.screen([{ address: later, role: 'destination address' }])).toBeUndefined();
    writeFileSync(path, `${listed}\n${later}\n`);
    utimesSync(path, new Date(), new Date(Date.now() + 5_000));
    // Not looked at again yet; then, past the period, read again.
    expect(file.screen([{ address: later, role: 'destination address' }])).toBeUndefined();
    jest.advanceTimersByTime(2_001);
    expect(file.screen([{ address: later, role: 'destination address' }])).toMatchObject({ address: later });
    expect(file.size).toBe(2);
  });

  it('keeps the last list read when the file goes away, and logs it', () => {
    const path = join(dir, 'denylist.txt');
    writeFileSync(path, listed);
    const error = jest.fn();
    const file = new DenylistFile(path, { warn: jest.fn(), info: jest.fn(), error });
    rmSync(path);
    jest.advanceTimersByTime(2_001);
    expect(file.screen([{ address: listed, role: 'source address' }])).toMatchObject({ address: listed });
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ path, addresses: 1 }), expect.stringMatching(/last list read stays in force/));
  });

  it('refuses to start on a named file it cannot read; screens nothing, and says so, without one', () => {
    expect(() => new DenylistFile(join(dir, 'missing.txt'))).toThrow(/ENOENT/);
    const warn = jest.fn();
    const info = jest.fn();
    const file = new DenylistFile(undefined, { warn, info, error: jest.fn() }, true);
    expect(file.screen([{ address: listed, role: 'deposit sender' }])).toBeUndefined();
    expect(warn).toHaveBeenCalledWith({}, expect.stringMatching(/not screened/));
    // Live providers off (a test stack): said as information, not a warning.
    new DenylistFile(undefined, { warn, info, error: jest.fn() });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(info).toHaveBeenCalledWith({}, expect.stringMatching(/not screened/));
  });
});
