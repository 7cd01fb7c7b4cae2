import { Waker } from './waker';

describe('Waker - sleeps that end when woken', () => {
  const elapsed = async (sleep: Promise<void>) => {
    const start = Date.now();
    await sleep;
    return Date.now() - start;
  };

  it('ends a sleep at the wake, not at its timeout', async () => {
    const waker = new Waker();
    const sleeping = elapsed(waker.sleep(10_000));
    waker.wakeAll();
    expect(await sleeping).toBeLessThan(1_000);
  });

  it('forgets a wake nobody was sleeping for: sleep alone is for loops that can miss one', async () => {
    const waker = new Waker();
    waker.wakeAll();
    const sleeping = waker.sleep(60_000);
    const settled = await Promise.race([sleeping.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('sleeping'), 200))]);
    expect(settled).toBe('sleeping');
    waker.wakeAll();
    await sleeping;
  });

  it('sleepUnless: a waiter that read the generation before a wake another waiter consumed does not sleep', async () => {
    const waker = new Waker();
    const other = waker.sleep(60_000);
    const generation = waker.generation;
    waker.wakeAll();
    await other;
    expect(await elapsed(waker.sleepUnless(generation, 10_000))).toBeLessThan(1_000);
    const current = waker.generation;
    const sleeping = waker.sleepUnless(current, 60_000);
    const settled = await Promise.race([sleeping.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('sleeping'), 200))]);
    expect(settled).toBe('sleeping');
    waker.wakeAll();
    await sleeping;
  });

  it('a wake consumed by the sleepers it ended is not remembered for a later sleep', async () => {
    const waker = new Waker();
    const first = waker.sleep(60_000);
    waker.wakeAll();
    await first;
    const later = waker.sleep(60_000);
    const settled = await Promise.race([later.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('sleeping'), 200))]);
    expect(settled).toBe('sleeping');
    waker.wakeAll();
    await later;
  });
});
