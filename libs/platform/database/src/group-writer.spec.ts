import { GroupWriter } from './group-writer';

/** A write whose completion the test controls, recording what each call carried. */
function controlledWrite() {
  const calls: { items: number[]; finish: (error?: Error) => void }[] = [];
  const write = (items: number[]) => new Promise<void>((resolve, reject) => calls.push({ items, finish: (error) => (error ? reject(error) : resolve()) }));
  return { calls, write };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupWriter', () => {
  it('given an idle writer, when one row arrives, then it is written at once and alone', async () => {
    const { calls, write } = controlledWrite();
    const writer = new GroupWriter(write);
    const done = writer.add(1);
    await settle();
    expect(calls.map((call) => call.items)).toEqual([[1]]);
    calls[0]!.finish();
    await expect(done).resolves.toBeUndefined();
  });

  it('given a write in flight, when rows arrive, then they go out together in the next write, in order', async () => {
    const { calls, write } = controlledWrite();
    const writer = new GroupWriter(write);
    const first = writer.add(1);
    const rest = [2, 3, 4].map((item) => writer.add(item));
    await settle();
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await first;
    await settle();
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.finish();
    await expect(Promise.all(rest)).resolves.toHaveLength(3);
  });

  it('resolves no row before its own write commits', async () => {
    const { calls, write } = controlledWrite();
    const writer = new GroupWriter(write);
    void writer.add(1);
    let secondDone = false;
    void writer.add(2).then(() => (secondDone = true));
    await settle();
    calls[0]!.finish();
    await settle();
    expect(secondDone).toBe(false);
    calls[1]!.finish();
    await settle();
    expect(secondDone).toBe(true);
  });

  it('splits a long queue into writes of at most maxBatch rows', async () => {
    const { calls, write } = controlledWrite();
    const writer = new GroupWriter(write, 2);
    const all = [1, 2, 3, 4, 5].map((item) => writer.add(item));
    for (let i = 0; i < 3; i++) {
      await settle();
      calls[i]!.finish();
    }
    await Promise.all(all);
    expect(calls.map((call) => call.items)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('rejects every row of a failed write, and only those; the next rows are written', async () => {
    const { calls, write } = controlledWrite();
    const writer = new GroupWriter(write);
    const first = writer.add(1);
    const second = writer.add(2);
    const third = writer.add(3);
    await settle();
    calls[0]!.finish();
    await settle();
    calls[1]!.finish(new Error('disk full'));
    await expect(first).resolves.toBeUndefined();
    await expect(second).rejects.toThrow('disk full');
    await expect(third).rejects.toThrow('disk full');
    const fourth = writer.add(4);
    await settle();
    expect(calls[2]!.items).toEqual([4]);
    calls[2]!.finish();
    await expect(fourth).resolves.toBeUndefined();
  });
});
