/** Sleeps that end early when woken (by a NOTIFY, or a stop): the loops of the relay and of job workers. */
export class Waker {
  private readonly waiters = new Set<() => void>();

  /** Resolves after `ms`, or at the next {@link wakeAll}, whichever comes first. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  wakeAll(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
