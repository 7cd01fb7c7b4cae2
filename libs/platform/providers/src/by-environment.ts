import { AppError } from '@ramp/contracts';

/**
 * One capability's adapter for each environment: the sandbox's for test keys, a live adapter for live keys, or none.
 * There is no other way to reach an adapter, so no configuration can bind a sandbox adapter to a live key: a live key
 * asking a capability with no live adapter is refused (LIVE_MODE_DISABLED, saying what is missing), never simulated.
 */
export class ByEnvironment<T> {
  constructor(
    /** What a live key asked for, and what it needs: "Live bank verification needs a bank partner". */
    private readonly missing: string,
    private readonly test: T,
    private readonly live: T | undefined,
  ) {}

  of(environment: 'test' | 'live'): T {
    if (environment === 'test') return this.test;
    if (this.live === undefined) throw new AppError('LIVE_MODE_DISABLED', `${this.missing}, and none is configured on this platform yet: use a test key`);
    return this.live;
  }
}
