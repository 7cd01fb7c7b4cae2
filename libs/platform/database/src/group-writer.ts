/**
 * Group commit for independent rows: while one write is in flight, the rows that arrive queue up and go out together
 * in the next one. At low load every row is written alone and at once (no timer, no added latency); under load one
 * statement carries many rows, which saves the database a commit (and a round trip) per row. Each `add` resolves
 * only when its own row is committed, and rejects if the write that carried it failed, so callers answer exactly as
 * if they had written alone.
 */
export class GroupWriter<T> {
  private queue: { item: T; done: (error?: unknown) => void }[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxBatch = 200,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        await this.write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.done(error ?? new Error('write failed'));
      }
    }
    this.writing = false;
  }
}
