import { AppError } from '@ramp/contracts';
import { ServiceNotReached } from '@ramp/messaging';
import { retryDelayMs } from './job-worker';

describe('retryDelayMs - how long a failed step waits before it runs again', () => {
  const none = () => 0;
  it('doubles from 250 ms per attempt up to a minute for a failure of the step itself', () => {
    const failure = new Error('the ledger refused the hold');
    expect([0, 1, 2, 7, 8, 20].map((attempts) => retryDelayMs(failure, attempts, none))).toEqual([250, 500, 1000, 32_000, 60_000, 60_000]);
    expect(retryDelayMs(new AppError('INVALID_FIELD', 'amount: must be positive'), 20, none)).toBe(60_000);
  });

  it('never waits more than 4 s while a service it calls is down or restarting, however long the outage lasted', () => {
    const outages = [
      new ServiceNotReached('SERVICE_UNAVAILABLE', 'The chain service is not running; retry with exponential backoff.'),
      new AppError('SERVICE_UNAVAILABLE', 'The chain chain is starting: try again in a moment'),
    ];
    for (const outage of outages) expect([0, 3, 4, 8, 40].map((attempts) => retryDelayMs(outage, attempts, none))).toEqual([250, 2000, 4000, 4000, 4000]);
  });

  it('spreads the retries of one outage over up to a quarter of the delay', () => {
    const outage = new ServiceNotReached('SERVICE_UNAVAILABLE', 'The chain service is not running');
    expect(retryDelayMs(outage, 10, () => 0.999)).toBe(3001);
    expect(retryDelayMs(outage, 10, () => 0.5)).toBe(3500);
  });
});
