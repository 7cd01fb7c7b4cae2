import { currentLogContext, withLogContext } from './log-context';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('log context - the ids of the work in progress, across awaits', () => {
  it('keeps concurrent pieces of work apart, each with its own ids after its awaits', async () => {
    const seen = await Promise.all(
      ['req-a', 'req-b', 'req-c'].map((requestId) =>
        withLogContext({ requestId }, async () => {
          await tick();
          await tick();
          return currentLogContext().requestId;
        }),
      ),
    );
    expect(seen).toEqual(['req-a', 'req-b', 'req-c']);
    expect(currentLogContext()).toEqual({});
  });

  it('adds to the current context, and a fresh one replaces it so nothing of the outer work leaks in', async () => {
    await withLogContext({ requestId: 'outer', correlationId: 'txn_1' }, async () => {
      expect(withLogContext({ eventId: 'e1' }, () => currentLogContext())).toEqual({ requestId: 'outer', correlationId: 'txn_1', eventId: 'e1' });
      expect(withLogContext({ eventId: 'e2' }, () => currentLogContext(), { fresh: true })).toEqual({ eventId: 'e2' });
    });
  });

  it('leaves out ids that are undefined or empty rather than overwriting known ones with nothing', () => {
    withLogContext({ requestId: 'kept' }, () => {
      expect(withLogContext({ requestId: undefined, correlationId: '' }, () => currentLogContext())).toEqual({ requestId: 'kept' });
    });
  });
});
