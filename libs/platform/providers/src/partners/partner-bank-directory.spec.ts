import { AppError } from '@ramp/contracts';
import { matchPartnerBanks, PartnerBankDirectory, type BankPartner, type PartnerBank } from './partner-bank-directory';
import { PartnerError } from './partner-http';

describe('matchPartnerBanks', () => {
  it("keeps the platform's banks the partner lists, by CBN code or NIP code, each with the partner's own code", () => {
    const matched = matchPartnerBanks([
      { name: 'Guaranty Trust Bank', code: '058', nipCode: '000013' },
      { name: 'Kuda Bank', code: '50211', nipCode: '090267' },
      { name: 'A bank the platform does not know', code: '777', nipCode: '777777' },
    ]);
    expect([...matched.keys()].sort()).toEqual(['058', '090267']);
    expect(matched.get('090267')).toEqual({ bank: { code: '090267', name: expect.stringMatching(/Kuda/) }, partnerCode: '50211' });
    expect(matched.get('058')!.partnerCode).toBe('058');
  });

  it("prefers a partner code equal to the platform's over a NIP code that happens to be equal", () => {
    const matched = matchPartnerBanks([
      { name: 'Other', code: '12345', nipCode: '058' },
      { name: 'Guaranty Trust Bank', code: '058' },
    ]);
    expect(matched.get('058')!.partnerCode).toBe('058');
  });
});

describe('PartnerBankDirectory', () => {
  function partner(banks: PartnerBank[]) {
    const calls = { list: 0 };
    let down = false;
    const bankPartner: BankPartner = {
      name: 'emulated',
      listBanks: async () => {
        calls.list += 1;
        if (down) throw new PartnerError('emulated', 'bank_list', 'unavailable', 'answered 503');
        return banks;
      },
      resolveAccount: async (code, accountNumber) => {
        if (accountNumber === '0000000000') throw new PartnerError('emulated', 'bank_resolve', 'refused', 'answered 422');
        return { accountName: `HOLDER ${code}` };
      },
    };
    return { bankPartner, calls, setDown: (value: boolean) => (down = value) };
  }

  it('keeps the list for refreshMs, then asks again, and keeps a stale list while the partner is down', async () => {
    let now = 0;
    const { bankPartner, calls, setDown } = partner([{ name: 'GTB', code: '058' }]);
    const directory = new PartnerBankDirectory(bankPartner, { refreshMs: 1000, now: () => now });
    expect(await directory.listBanks()).toEqual([{ code: '058', name: 'Guaranty Trust Bank' }]);
    now = 999;
    await directory.listBanks();
    expect(calls.list).toBe(1);
    now = 1000;
    setDown(true);
    expect(await directory.listBanks()).toEqual([{ code: '058', name: 'Guaranty Trust Bank' }]);
    expect(calls.list).toBe(2);
  });

  it("fails when it never had a list; resolves under the partner's code; a refusal is ACCOUNT_NOT_FOUND", async () => {
    const { bankPartner, setDown } = partner([{ name: 'Kuda', code: '50211', nipCode: '090267' }]);
    setDown(true);
    const directory = new PartnerBankDirectory(bankPartner);
    await expect(directory.listBanks()).rejects.toBeInstanceOf(PartnerError);
    setDown(false);
    await expect(directory.resolveAccount('090267', '1234567890')).resolves.toEqual({ accountName: 'HOLDER 50211' });
    const refused = await directory.resolveAccount('090267', '0000000000').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ reason: 'ACCOUNT_NOT_FOUND', field: 'accountNumber' });
    await expect(directory.resolveAccount('058', '1234567890')).rejects.toMatchObject({ reason: 'INVALID_FIELD', field: 'bankCode' });
  });
});
