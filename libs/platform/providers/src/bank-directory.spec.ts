import { makeNuban } from '@ramp/banking';
import { BankDirectories, SANDBOX_MISSING_ACCOUNT_SERIAL, SandboxBankDirectory, type BankDirectory } from './bank-directory';
import { PriceFeeds, SandboxPriceFeed } from './price-feed';
import { RouteProviders, SandboxRouteProvider } from './routes';

describe('SandboxBankDirectory', () => {
  const directory = new SandboxBankDirectory();
  const gtbAccount = makeNuban('058', '012345678');

  it('resolves an account to a first name and a surname in capitals, as NIBSS returns them', async () => {
    const { accountName } = await directory.resolveAccount('058', gtbAccount);
    expect(accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
  });

  it('resolves the same account to the same holder every time, in every instance', async () => {
    const first = await directory.resolveAccount('058', gtbAccount);
    expect(await directory.resolveAccount('058', gtbAccount)).toEqual(first);
    expect(await new SandboxBankDirectory().resolveAccount('058', gtbAccount)).toEqual(first);
  });

  it('resolves different accounts to a variety of holders', async () => {
    const names = new Set<string>();
    for (let serial = 100000000; serial < 100000040; serial++) {
      names.add((await directory.resolveAccount('057', makeNuban('057', String(serial)))).accountName);
    }
    expect(names.size).toBeGreaterThan(20);
  });

  it('finds no account with the magic serial, naming the bank', async () => {
    const missing = makeNuban('057', SANDBOX_MISSING_ACCOUNT_SERIAL);
    await expect(directory.resolveAccount('057', missing)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'accountNumber',
      message: 'accountNumber: no account with this number exists at Zenith Bank',
    });
  });

  it('finds an account whose serial merely ends in nines', async () => {
    await expect(directory.resolveAccount('057', makeNuban('057', '099999999'))).resolves.toHaveProperty('accountName');
  });

  describe('with a delay', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('answers only after the configured delay', async () => {
      const slow = new SandboxBankDirectory({ delayMs: 2000 });
      let answered = false;
      const pending = slow.resolveAccount('058', gtbAccount).then(() => (answered = true));
      await jest.advanceTimersByTimeAsync(1999);
      expect(answered).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await pending;
      expect(answered).toBe(true);
    });
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses the delay %p', (delayMs) => {
    expect(() => new SandboxBankDirectory({ delayMs })).toThrow(Error);
  });
});

describe('ByEnvironment - no configuration binds a sandbox adapter to a live key', () => {
  it('gives test keys the sandbox adapter and live keys only the live one, or refuses them', async () => {
    const sandbox = new SandboxBankDirectory();
    const partner: BankDirectory = { listBanks: async () => [], resolveAccount: async () => ({ accountName: 'FROM THE PARTNER' }) };
    expect(new BankDirectories(sandbox, partner).of('test')).toBe(sandbox);
    expect(new BankDirectories(sandbox, partner).of('live')).toBe(partner);
    for (const unconfigured of [
      new BankDirectories(sandbox, undefined),
      new PriceFeeds(new SandboxPriceFeed(), undefined),
      new RouteProviders(new SandboxRouteProvider(), undefined),
    ]) {
      expect(() => unconfigured.of('live')).toThrow(expect.objectContaining({ reason: 'LIVE_MODE_DISABLED' }));
    }
    expect(() => new BankDirectories(sandbox, undefined).of('live')).toThrow(/needs a bank partner/);
  });
});
