import { leastLoaded } from './lanes';

describe('lanes - which lane a transfer goes out through', () => {
  it('takes the lane with the fewest open sends', () => {
    expect(leastLoaded([5, 2, 7, 3])).toBe(1);
  });

  it('takes the first of the least loaded on a tie', () => {
    expect(leastLoaded([0, 0, 0])).toBe(0);
    expect(leastLoaded([4, 1, 1])).toBe(1);
  });

  it('gives nothing to a stuck lane while another has room', () => {
    const open = [0, 16, 0, 0];
    const chosen: number[] = [];
    for (let i = 0; i < 6; i++) {
      const lane = leastLoaded(open);
      chosen.push(lane);
      open[lane]! += 1;
    }
    expect(chosen).toEqual([0, 2, 3, 0, 2, 3]);
    // Spread evenly once they are level again.
    expect(leastLoaded([2, 16, 2, 1])).toBe(3);
  });

  it('refuses an empty list', () => {
    expect(() => leastLoaded([])).toThrow('no lane');
  });
});
