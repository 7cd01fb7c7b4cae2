import { CircuitBreaker, Rotation } from './circuit-breaker';
import { PartnerError } from './partner-http';

const unavailable = (provider: string) => new PartnerError(provider, 'bank_resolve', 'unavailable', 'answered 503');

describe('CircuitBreaker', () => {
  it('opens after the configured faults in a row, lets one trial through after openMs, and closes on its success', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failures: 3, openMs: 1000, now: () => now });
    breaker.failed();
    breaker.failed();
    breaker.succeeded(); // not in a row
    breaker.failed();
    breaker.failed();
    expect(breaker.state).toBe('closed');
    breaker.failed();
    expect(breaker.state).toBe('open');
    expect(breaker.allows()).toBe(false);
    now = 999;
    expect(breaker.allows()).toBe(false);
    now = 1000;
    expect(breaker.state).toBe('half-open');
    expect(breaker.allows()).toBe(true);
    expect(breaker.allows()).toBe(false); // one trial at a time
    breaker.succeeded();
    expect(breaker.state).toBe('closed');
    expect(breaker.allows()).toBe(true);
  });

  it('takes the partner out for another period when the trial fails', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failures: 1, openMs: 1000, now: () => now });
    breaker.failed();
    now = 1500;
    expect(breaker.allows()).toBe(true);
    breaker.failed();
    expect(breaker.state).toBe('open');
    now = 2499;
    expect(breaker.allows()).toBe(false);
    now = 2500;
    expect(breaker.allows()).toBe(true);
  });
});

describe('Rotation', () => {
  const entry = (name: string, failures = 1) => ({ name, provider: name, breaker: new CircuitBreaker({ failures, openMs: 60_000 }) });

  it('asks the next provider when one is unavailable, and skips it while its circuit is open', async () => {
    const rotation = new Rotation([entry('paystack'), entry('flutterwave')]);
    const asked: string[] = [];
    const call = async (provider: string) => {
      asked.push(provider);
      if (provider === 'paystack') throw unavailable(provider);
      return `${provider} answered`;
    };
    await expect(rotation.first(call)).resolves.toBe('flutterwave answered');
    await expect(rotation.first(call)).resolves.toBe('flutterwave answered');
    expect(asked).toEqual(['paystack', 'flutterwave', 'flutterwave']);
  });

  it('gives a refusal back as the answer, without asking another provider or counting a fault', async () => {
    const rotation = new Rotation([entry('paystack'), entry('flutterwave')]);
    const asked: string[] = [];
    const refusal = new PartnerError('paystack', 'bank_resolve', 'refused', 'answered 422');
    await expect(
      rotation.first(async (provider) => {
        asked.push(provider);
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(asked).toEqual(['paystack']);
    expect(rotation.entries[0].breaker.state).toBe('closed');
  });

  it('throws the last fault when every provider is unavailable, and says so when every circuit is open', async () => {
    const rotation = new Rotation([entry('paystack'), entry('flutterwave')]);
    await expect(rotation.first(async (provider) => Promise.reject(unavailable(provider)))).rejects.toThrow('flutterwave bank_resolve: answered 503');
    await expect(rotation.first(async () => 'never asked')).rejects.toThrow('every provider is out of rotation');
  });
});
