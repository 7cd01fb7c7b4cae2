import { finalOrPending, StepPending } from './step-pending';

describe('finalOrPending - an answer used when final, or the step released pending', () => {
  it('given a final answer, then that answer', () => {
    expect(
      finalOrPending(
        'confirmed',
        (status) => status === 'confirmed',
        (status) => status,
      ),
    ).toBe('confirmed');
  });

  it('given an answer not final, then StepPending described by it, to run again after the fallback', () => {
    let thrown: unknown;
    try {
      finalOrPending(
        'pending',
        (status) => status === 'confirmed',
        (status) => `the transfer is ${status}`,
        5_000,
      );
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StepPending);
    expect(thrown).toMatchObject({ message: 'the transfer is pending', retryInMs: 5_000 });
  });
});
