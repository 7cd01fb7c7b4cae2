import { afterConfirmed, afterReorg, afterSeen, confirmationsOf, confirmedThrough, forkPoint, type DepositState } from './deposits';

describe('deposits - confirmation depth', () => {
  it('counts the block of the transaction as its first confirmation', () => {
    expect(confirmationsOf(100n, 100n)).toBe(1n);
    expect(confirmationsOf(100n, 101n)).toBe(2n);
    expect(confirmationsOf(100n, 99n)).toBe(0n);
  });

  it('confirms through the block that has the depth at the head', () => {
    expect(confirmedThrough(100n, 1)).toBe(100n);
    expect(confirmedThrough(100n, 2)).toBe(99n);
    expect(confirmedThrough(1n, 3)).toBe(-1n);
    expect(() => confirmedThrough(100n, 0)).toThrow('1 or more');
  });
});

describe('deposits - fork point', () => {
  const recorded = new Map([
    [10n, '0xa'],
    [11n, '0xb'],
    [12n, '0xc'],
  ]);

  it('is undefined when the recorded blocks are still the chain', () => {
    expect(
      forkPoint(
        recorded,
        new Map([
          [10n, '0xA'],
          [11n, '0xb'],
          [12n, '0xc'],
        ]),
      ),
    ).toBeUndefined();
  });

  it('is the lowest block that changed, above the highest that did not', () => {
    expect(
      forkPoint(
        recorded,
        new Map([
          [10n, '0xa'],
          [11n, '0xB2'],
          [12n, '0xc2'],
        ]),
      ),
    ).toBe(11n);
    expect(
      forkPoint(
        recorded,
        new Map([
          [10n, '0xa'],
          [11n, '0xb'],
          [12n, undefined],
        ]),
      ),
    ).toBe(12n);
  });

  it('is the oldest recorded block when everything recorded changed', () => {
    expect(
      forkPoint(
        recorded,
        new Map([
          [10n, '0x1'],
          [11n, '0x2'],
          [12n, '0x3'],
        ]),
      ),
    ).toBe(10n);
  });
});

describe('deposits - a deposit is credited once, and a reorg of a credited one is reported', () => {
  const seen: DepositState = { status: 'seen', credited: false };

  it('credits at the depth, once', () => {
    const first = afterConfirmed(seen);
    expect(first).toEqual({ next: { status: 'confirmed', credited: true }, credit: true });
    expect(afterConfirmed(first.next)).toEqual({ next: first.next, credit: false });
  });

  it('drops an unconfirmed deposit its reorg removed, silently, and takes it up again if it comes back', () => {
    const dropped = afterReorg(seen);
    expect(dropped).toEqual({ next: { status: 'dropped', credited: false }, report: false });
    expect(afterSeen(dropped.next)).toEqual(seen);
    expect(afterConfirmed(afterSeen(dropped.next)).credit).toBe(true);
  });

  it('reverses the credit of a confirmed deposit a reorg removed, and credits it again only if the chain takes it back in and confirms it', () => {
    const credited = afterConfirmed(seen).next;
    const reversed = afterReorg(credited);
    expect(reversed).toEqual({ next: { status: 'reversed', credited: false }, report: true });
    // Removed again before anything else: nothing more to take back.
    expect(afterReorg(reversed.next)).toEqual({ next: reversed.next, report: false });
    const back = afterSeen(reversed.next);
    expect(back).toEqual({ status: 'seen', credited: false });
    expect(afterConfirmed(back)).toEqual({ next: { status: 'confirmed', credited: true }, credit: true });
    // Back but removed again before its depth: dropped, and nothing was credited to take back.
    expect(afterReorg(back)).toEqual({ next: { status: 'dropped', credited: false }, report: false });
  });

  it('sees a new deposit as seen, and a deposit seen twice as the one deposit', () => {
    expect(afterSeen(undefined)).toEqual(seen);
    const confirmed = afterConfirmed(seen).next;
    expect(afterSeen(confirmed)).toBe(confirmed);
  });
});
