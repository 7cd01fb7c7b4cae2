import { StepPending, untilFinal } from './step-pending';

describe('untilFinal - an idempotent request asked again until its answer is final, or StepPending', () => {
  it('given answers that become final, then the final one', async () => {
    const answers = ['queued', 'pending', 'confirmed'];
    let asked = 0;
    const final = await untilFinal(async () => answers[asked++]!, (status) => status === 'confirmed', 10_000, (status) => status);
    expect([final, asked]).toEqual(['confirmed', 3]);
  });

  it('given no final answer within the wait, then StepPending described by the last answer, after at least one ask', async () => {
    let asked = 0;
    const pending = untilFinal(async () => `pending ${++asked}`, () => false, 0, (last) => `still ${last}`);
    await expect(pending).rejects.toEqual(new StepPending('still pending 1'));
    await expect(pending).rejects.toBeInstanceOf(StepPending);
    expect(asked).toBe(1);
  });
});
