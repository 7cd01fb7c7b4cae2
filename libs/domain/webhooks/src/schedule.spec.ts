import { INTEGRATION_EVENT_NAMES } from '@ramp/contracts';
import { parseEventSelection } from './events';
import { afterAttempt, isDelivered, MAX_ATTEMPTS } from './schedule';

const MINUTE = 60_000;

describe('the retry schedule', () => {
  it('retries 1 m, 5 m, 30 m, 2 h and 24 h after each failed attempt, then marks the delivery failed', () => {
    let at = new Date('2026-11-23T10:00:00.000Z');
    const gaps: number[] = [];
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt += 1) {
      const finished = new Date(at.getTime() + 1234);
      const outcome = afterAttempt(attempt, false, finished);
      if (outcome.status !== 'pending') throw new Error(`attempt ${attempt}: ${outcome.status}`);
      gaps.push(outcome.nextAttemptAt.getTime() - finished.getTime());
      at = outcome.nextAttemptAt;
    }
    expect(gaps).toEqual([1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE, 1440 * MINUTE]);
    expect(afterAttempt(MAX_ATTEMPTS, false, at)).toEqual({ status: 'failed' });
    expect(MAX_ATTEMPTS).toBe(6);
  });

  it('a success ends it at any attempt; a resend by hand gets one attempt', () => {
    expect(afterAttempt(3, true, new Date())).toEqual({ status: 'succeeded' });
    expect(afterAttempt(7, false, new Date(), 7)).toEqual({ status: 'failed' });
  });

  it('only 2xx is delivered', () => {
    expect([200, 204, 299].every(isDelivered)).toBe(true);
    expect([100, 301, 302, 400, 410, 500, 503, null, undefined].some(isDelivered)).toBe(false);
  });
});

describe('event selection', () => {
  it('accepts the eight names and *, without duplicates', () => {
    expect(parseEventSelection(['offramp.completed', '*', 'offramp.completed'])).toEqual({ ok: true, events: ['offramp.completed', '*'] });
    expect(parseEventSelection([...INTEGRATION_EVENT_NAMES])).toMatchObject({ ok: true });
  });

  it.each([
    [undefined, 'must be an array of event names or "*"'],
    ['*', 'must be an array of event names or "*"'],
    [[], 'must name at least one event (or "*" for all)'],
    [
      ['offramp.done'],
      '[0] "offramp.done" is not an event; use one of onramp.completed, onramp.failed, offramp.completed, offramp.failed, swap.completed, swap.failed, transfer.completed, transfer.failed, wallet.deposit_reversed, offramp.payout_reversed or "*"',
    ],
    [['swap.failed', 3], '[1] must be a string'],
    [['webhook.test'], expect.stringContaining('"webhook.test" is not an event')],
  ])('refuses %j', (value, message) => {
    expect(parseEventSelection(value)).toEqual({ ok: false, message });
  });
});
