import { setTimeout as sleep } from 'timers/promises';
import { Waker, WakeupListener, type WakeupListenerOptions } from './waker';

/** With no NOTIFY (the listener down, or a writer that sends none), a waiter still looks this often. */
const FALLBACK_LOOK_MS = 1_000;
/** A waiter looks at most this often, however busy the channel: its NOTIFYs may be for anybody's writes (an event log's). */
const MIN_GAP_MS = 100;

/**
 * Waits until something another process writes is recorded (a faucet's send signed, a deposit credited, an event
 * appended): each waiter looks once, then again at each NOTIFY on the channel the writer signals at its commit, with a
 * look every second as the fallback. One LISTEN connection per process and channel, opened at the first wait; a NOTIFY
 * between a look and the sleep after it is not lost (Waker). What the sandbox's synchronous endpoints wait for, in
 * place of loops that polled every 50 or 100 ms.
 */
export class RecordedWaits {
  private readonly waker = new Waker();
  private readonly listener: WakeupListener;
  private listening: Promise<void> | undefined;
  private closed = false;

  private readonly fallbackLookMs: number;

  constructor(options: Omit<WakeupListenerOptions, 'waker'> & { fallbackLookMs?: number }) {
    this.listener = new WakeupListener({ ...options, waker: this.waker });
    this.fallbackLookMs = options.fallbackLookMs ?? FALLBACK_LOOK_MS;
  }

  /** What `look` finds (anything but undefined), or undefined when it found nothing within `timeoutMs` or on close. */
  async until<T>(look: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
    if (this.closed) return undefined;
    const deadline = Date.now() + timeoutMs;
    // Listening before the first look, so that a write committed after it is signalled to this wait; but never longer
    // than a fallback look (PostgreSQL unreachable): the looks go on meanwhile.
    this.listening ??= this.listener.start();
    await Promise.race([this.listening, sleep(Math.min(timeoutMs, this.fallbackLookMs))]);
    while (!this.closed) {
      const lookedAt = Date.now();
      // Read before the look: a NOTIFY during it ends the sleep after it at once, whichever waiter it woke first.
      const generation = this.waker.generation;
      const found = await look();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.closed) return undefined;
      await this.waker.sleepUnless(generation, Math.min(left, this.fallbackLookMs));
      const since = Date.now() - lookedAt;
      if (since < MIN_GAP_MS) await sleep(MIN_GAP_MS - since);
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.waker.wakeAll();
    await this.listener.stop();
  }

  /**
   * Closed as the service begins to stop (Nest's hook, when it is a provider): the waits in flight end at once with
   * undefined (their requests answer "in a moment"), so that the RPC server's drain does not wait out their timeouts.
   */
  beforeApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
