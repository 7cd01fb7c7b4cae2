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
  private readonly waker = new Waker({ latch: true });
  private readonly listener: WakeupListener;
  private listening: Promise<void> | undefined;

  private readonly fallbackLookMs: number;

  constructor(options: Omit<WakeupListenerOptions, 'waker'> & { fallbackLookMs?: number }) {
    this.listener = new WakeupListener({ ...options, waker: this.waker });
    this.fallbackLookMs = options.fallbackLookMs ?? FALLBACK_LOOK_MS;
  }

  /** What `look` finds (anything but undefined), or undefined when it found nothing within `timeoutMs`. */
  async until<T>(look: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
    // Listening before the first look: a write committed after it is signalled to this wait.
    await (this.listening ??= this.listener.start());
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const lookedAt = Date.now();
      const found = await look();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await this.waker.sleep(Math.min(left, this.fallbackLookMs));
      const since = Date.now() - lookedAt;
      if (since < MIN_GAP_MS) await sleep(MIN_GAP_MS - since);
    }
  }

  async close(): Promise<void> {
    this.waker.wakeAll();
    await this.listener.stop();
  }

  /** Closed with the service (Nest's hook, when it is a provider). */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
