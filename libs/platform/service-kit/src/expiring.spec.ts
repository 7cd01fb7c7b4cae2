import { Expiring } from './expiring';

describe('Expiring - one load per key and period', () => {
  afterEach(() => jest.useRealTimers());

  it('given callers within the period, then one load shared by all of them, per key', async () => {
    const cache = new Expiring<number>(1000);
    let loads = 0;
    const load = async () => ++loads;
    const answers = await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('b', load)]);
    expect(answers).toEqual([1, 1, 2]);
    expect(await cache.get('a', load)).toBe(1);
    expect(loads).toBe(2);
  });

  it('given the period passed, then the next caller loads again', async () => {
    jest.useFakeTimers({ now: 0 });
    const cache = new Expiring<number>(250);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    jest.setSystemTime(249);
    expect(await cache.get('a', load)).toBe(1);
    jest.setSystemTime(250);
    expect(await cache.get('a', load)).toBe(2);
  });

  it('given a failed load, then it is not kept: the next caller loads again', async () => {
    const cache = new Expiring<number>(60_000);
    await expect(cache.get('a', async () => Promise.reject(new Error('node down')))).rejects.toThrow('node down');
    expect(await cache.get('a', async () => 7)).toBe(7);
  });
});
