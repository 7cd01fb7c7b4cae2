import { AppError, depositAddressOrSimulated, ERROR_CODES, HTTP_STATUS_OF, invalidField, sandboxOnly } from './app-error';
import { ERROR_REASONS, ERROR_REASON_NAMES, FAILURE_REASON_NAMES, GENERIC_REASON_OF } from './reasons';

describe('error reasons - one catalogue, each reason under one code', () => {
  it('names every reason in UPPER_SNAKE under a code of the envelope, with a description', () => {
    for (const name of [...ERROR_REASON_NAMES, ...FAILURE_REASON_NAMES]) expect(name).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    for (const [name, entry] of Object.entries(ERROR_REASONS)) {
      expect(ERROR_CODES).toContain(entry.code);
      expect(entry.description.length).toBeGreaterThan(10);
      expect(new AppError(name as keyof typeof ERROR_REASONS, 'x').code).toBe(entry.code);
    }
  });

  it('has the reasons integrators branch on', () => {
    const required = [
      'QUOTE_EXPIRED',
      'QUOTE_ALREADY_USED',
      'QUOTE_NOT_FOUND',
      'INSUFFICIENT_BALANCE',
      'INVALID_CHECK_DIGIT',
      'ACCOUNT_NOT_FOUND',
      'WALLET_NOT_FOUND',
      'CHAIN_MISMATCH',
      'AMOUNT_TOO_SMALL',
      'AMOUNT_TOO_LARGE',
      'UNSUPPORTED_TOKEN',
      'IDEMPOTENCY_KEY_REUSED',
      'WEBHOOK_LIMIT_REACHED',
      'WEBHOOK_TARGET_REFUSED',
      'IP_NOT_ALLOWED',
      'LIVE_MODE_DISABLED',
    ];
    expect(ERROR_REASON_NAMES).toEqual(expect.arrayContaining(required));
    expect(FAILURE_REASON_NAMES).toEqual(
      expect.arrayContaining(['PAYOUT_REJECTED', 'SLIPPAGE_EXCEEDED', 'DEPOSIT_EXPIRED', 'DEPOSIT_AMOUNT_MISMATCH', 'BRIDGE_FAILED']),
    );
  });

  it('gives every code a generic reason of that code, for errors nothing more precise is known of', () => {
    for (const code of ERROR_CODES) expect(ERROR_REASONS[GENERIC_REASON_OF[code]].code).toBe(code);
  });

  it('crosses the wire with its reason, and falls back to the generic reason for one it does not know', () => {
    const error = invalidField('quoteId', 'the quote expired', 'QUOTE_EXPIRED');
    expect(error.toBody()).toEqual({ code: 'INVALID_REQUEST', reason: 'QUOTE_EXPIRED', message: 'quoteId: the quote expired', field: 'quoteId' });
    expect(AppError.fromBody(error.toBody())).toMatchObject({ code: 'INVALID_REQUEST', reason: 'QUOTE_EXPIRED', field: 'quoteId' });
    expect(AppError.fromBody({ code: 'CONFLICT', reason: 'FROM_THE_FUTURE', message: 'x' })).toMatchObject({
      code: 'CONFLICT',
      reason: 'TRANSACTION_STATE_CONFLICT',
    });
    // A reason that does not belong to the code is not believed.
    expect(AppError.fromBody({ code: 'NOT_FOUND', reason: 'QUOTE_EXPIRED', message: 'x' })).toMatchObject({ code: 'NOT_FOUND', reason: 'RESOURCE_NOT_FOUND' });
    expect(HTTP_STATUS_OF[new AppError('RATE_LIMIT_EXCEEDED', 'slow down').code]).toBe(429);
  });
});

describe('sandboxOnly - the guard of sandbox routes and handlers', () => {
  it('lets a test key through, and a request that names the test environment too', () => {
    expect(() => sandboxOnly('test')).not.toThrow();
    expect(() => sandboxOnly('test', 'test')).not.toThrow();
  });

  it('refuses a live key, a request naming live with a test key, a missing key, and nothing at all, as SANDBOX_ONLY (404)', () => {
    for (const environments of [['live'], ['test', 'live'], ['live', 'test'], [undefined], []]) {
      let thrown: unknown;
      try {
        sandboxOnly(...environments);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect((thrown as AppError).toBody()).toEqual({ code: 'NOT_FOUND', reason: 'SANDBOX_ONLY', message: 'Sandbox endpoints exist for test keys only' });
    }
  });
});

describe('depositAddressOrSimulated - a deposit address on a chain the environment does not run', () => {
  const unsupported = async (): Promise<string> => {
    throw new AppError('UNSUPPORTED_CHAIN', 'bsc is not configured for live keys', 'chain');
  };

  it("is the chain service's address where it has one, for either environment", async () => {
    await expect(depositAddressOrSimulated('live', 'base', async () => '0xabc')).resolves.toBe('0xabc');
    await expect(depositAddressOrSimulated('test', 'base', async () => '0xabc')).resolves.toBe('0xabc');
  });

  it('is none (a simulated address the sandbox plays) for a test key, and refused for a live key, whose real funds would be lost', async () => {
    await expect(depositAddressOrSimulated('test', 'bsc', unsupported)).resolves.toBeUndefined();
    const refused = await depositAddressOrSimulated('live', 'bsc', unsupported).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ reason: 'LIVE_MODE_DISABLED', code: 'FORBIDDEN', field: 'chain' });
    expect((refused as AppError).message).toContain('bsc has no live chain');
  });

  it('throws any other failure on as it is', async () => {
    const down = new AppError('SERVICE_UNAVAILABLE', 'the chain service is not running');
    await expect(depositAddressOrSimulated('test', 'base', () => Promise.reject(down))).rejects.toBe(down);
  });
});
