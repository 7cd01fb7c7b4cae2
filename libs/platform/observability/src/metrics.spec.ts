import { Metrics } from './metrics';

function valueOf(exposition: string, name: string): string | undefined {
  return exposition
    .split('\n')
    .find((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    ?.split(' ')
    .pop();
}

describe('metrics - sampled gauges read their source at scrape time', () => {
  it('labels every series with the service', async () => {
    const metrics = new Metrics('quote');
    metrics.sampled('test_figure', 'A figure.', async () => 7);
    const { body } = await metrics.exposition();
    expect(body).toContain('test_figure{service="quote"} 7');
  });

  it('shows NaN for a source that does not answer within a second, without holding the scrape up', async () => {
    const metrics = new Metrics('ramp');
    metrics.sampled('test_slow', 'Never answers.', () => new Promise<number>(() => undefined));
    metrics.sampled('test_fast', 'Answers.', async () => 3);
    const started = Date.now();
    const { body } = await metrics.exposition();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(valueOf(body, 'test_slow')).toBe('Nan');
    expect(valueOf(body, 'test_fast')).toBe('3');
  });

  it('shows NaN for a failing source, never a reassuring 0', async () => {
    const metrics = new Metrics('ramp');
    metrics.sampled('test_failing', 'Throws.', async () => {
      throw new Error('database down');
    });
    expect(valueOf((await metrics.exposition()).body, 'test_failing')).toBe('Nan');
  });

  it('never starts a second read of a source whose first read is still running (single flight)', async () => {
    const metrics = new Metrics('notifier');
    let started = 0;
    let finishFirst: (value: number) => void = () => undefined;
    metrics.sampled('test_pending', 'Slow once.', () => {
      started += 1;
      return started === 1 ? new Promise<number>((resolve) => (finishFirst = resolve)) : Promise.resolve(5);
    });
    expect(valueOf((await metrics.exposition()).body, 'test_pending')).toBe('Nan');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(valueOf((await metrics.exposition()).body, 'test_pending')).toBe('Nan');
    expect(started).toBe(1);
    finishFirst(4);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(valueOf((await metrics.exposition()).body, 'test_pending')).toBe('5');
    expect(started).toBe(2);
  });

  it('leaves a labelled series of a source that fails out of the scrape', async () => {
    const metrics = new Metrics('ledger');
    metrics.watchConsumer('ledger_transactions', 'RAMP_EVENTS', async () => {
      throw new Error('NATS down');
    });
    expect((await metrics.exposition()).body).not.toContain('consumer="ledger_transactions"');
  });

  it("samples a watched consumer's backlog and stops when it is unwatched", async () => {
    const metrics = new Metrics('ledger');
    metrics.watchConsumer('ledger_transactions', 'RAMP_EVENTS', async () => ({ pending: 12, ackPending: 3 }));
    const { body } = await metrics.exposition();
    expect(body).toContain('ramp_consumer_pending_messages{consumer="ledger_transactions",stream="RAMP_EVENTS",service="ledger"} 12');
    expect(body).toContain('ramp_consumer_ack_pending_messages{consumer="ledger_transactions",stream="RAMP_EVENTS",service="ledger"} 3');
    metrics.unwatchConsumer('ledger_transactions');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await metrics.exposition()).body).not.toContain('consumer="ledger_transactions"');
  });
});
