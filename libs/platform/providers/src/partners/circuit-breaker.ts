import { PartnerError } from './partner-http';

export interface CircuitBreakerOptions {
  /** Consecutive calls that found the partner unavailable before it is taken out of rotation. */
  failures?: number;
  /** How long it stays out before one trial call may go to it again. */
  openMs?: number;
  now?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Takes a partner out of rotation after `failures` calls in a row found it unavailable (a timeout, a 5xx), for
 * `openMs`; then lets one trial call through (half-open): its success puts the partner back, its failure takes it out
 * again for another `openMs`. A refusal (a 4xx) is an answer, so it counts as the partner being up.
 */
export class CircuitBreaker {
  private readonly threshold: number;
  private readonly openMs: number;
  private readonly now: () => number;
  private consecutive = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = options.failures ?? 5;
    this.openMs = options.openMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.openMs ? 'half-open' : 'open';
  }

  /** Whether a call may go to the partner now; in half-open, only one at a time (the trial). */
  allows(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  succeeded(): void {
    this.consecutive = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
  }

  /** A call that told nothing about the partner (our own check refused it first): a half-open trial may go again. */
  release(): void {
    this.trialInFlight = false;
  }

  failed(): void {
    this.trialInFlight = false;
    if (this.openedAt !== undefined) {
      // The trial failed: out for another period.
      this.openedAt = this.now();
      return;
    }
    this.consecutive += 1;
    if (this.consecutive >= this.threshold) this.openedAt = this.now();
  }
}

/** One provider of a capability, as configuration orders them, with its breaker. */
export interface RotationEntry<T> {
  name: string;
  provider: T;
  breaker: CircuitBreaker;
}

/**
 * The providers of one capability in their configured order. `first` runs a call that is safe to send to another
 * provider when one is unavailable (a read: the bank list, a name enquiry): the first provider in rotation is asked,
 * and on an unavailable answer the next. A refusal is the answer and goes back to the caller as it is. Payouts do not
 * use it: a payout moves to another provider only once its transfer is known to have failed.
 */
export class Rotation<T> {
  constructor(readonly entries: readonly RotationEntry<T>[]) {
    if (entries.length === 0) throw new Error('a rotation needs at least one provider');
  }

  async first<R>(call: (provider: T, name: string) => Promise<R>): Promise<R> {
    let last: unknown;
    let asked = 0;
    for (const entry of this.entries) {
      if (!entry.breaker.allows()) continue;
      asked += 1;
      try {
        const result = await call(entry.provider, entry.name);
        entry.breaker.succeeded();
        return result;
      } catch (error) {
        if (error instanceof PartnerError && error.kind === 'unavailable') {
          entry.breaker.failed();
          last = error;
          continue;
        }
        // The partner's refusal is an answer: it is up. Anything else (our own check, before or after it was asked) says
        // nothing about it.
        if (error instanceof PartnerError) entry.breaker.succeeded();
        else entry.breaker.release();
        throw error;
      }
    }
    if (asked === 0)
      throw new PartnerError(this.entries.map((entry) => entry.name).join(', '), 'rotation', 'unavailable', 'every provider is out of rotation (circuit open)');
    throw last;
  }
}
