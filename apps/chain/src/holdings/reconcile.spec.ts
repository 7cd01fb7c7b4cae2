import { bookedHoldings } from './reconcile';

describe('holdings - what the books should hold, from what the chain shows', () => {
  const balances = new Map([
    ['ETH', 10_000n],
    ['USDC', 5_000n],
    ['CNGN', 0n],
  ]);

  it('given nothing in flight, the balances on chain', () => {
    expect(bookedHoldings(balances, [], [], 'ETH')).toEqual(balances);
  });

  it('a deposit seen on chain but not credited yet is not in the books yet', () => {
    expect(bookedHoldings(balances, [{ symbol: 'USDC', units: 1_200n }], [], 'ETH').get('USDC')).toBe(3_800n);
  });

  it('a send mined but not final yet: its gas and what it took out are still in the books, what it brought in not yet', () => {
    const held = bookedHoldings(
      balances,
      [],
      [
        {
          gas: 21n,
          moved: [
            { symbol: 'USDC', units: 700n },
            { symbol: 'CNGN', units: -900n },
          ],
        },
      ],
      'ETH',
    );
    expect(Object.fromEntries(held)).toEqual({ ETH: 10_021n, USDC: 5_700n, CNGN: -900n });
  });

  it('sums several sends and deposits of the same token, and leaves the balances it was given alone', () => {
    const held = bookedHoldings(
      balances,
      [
        { symbol: 'ETH', units: 100n },
        { symbol: 'ETH', units: 50n },
      ],
      [
        { gas: 7n, moved: [] },
        { gas: 3n, moved: [{ symbol: 'ETH', units: 1_000n }] },
      ],
      'ETH',
    );
    expect(held.get('ETH')).toBe(10_000n - 150n + 10n + 1_000n);
    expect(balances.get('ETH')).toBe(10_000n);
  });
});
