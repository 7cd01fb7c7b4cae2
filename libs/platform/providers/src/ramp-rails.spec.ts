import { makeNuban } from '@ramp/banking';
import { SANDBOX_MAGIC, SandboxOfframpRails, sandboxHash } from './ramp-rails';

describe('sandbox off-ramp rails', () => {
  const rails = new SandboxOfframpRails();

  it('swaps to the quoted CNGN, with a hash that is the same every time for the same transaction', async () => {
    const swap = await rails.swapToCngn({ transactionId: 'txn_A', tokenSymbol: 'USDC', amount: '100', expectedCngn: '149250.00' });
    expect(swap).toEqual({ ok: true, cngnAmount: '149250.00', transactionHash: sandboxHash('txn_A', 'swap') });
    expect(swap.ok && swap.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await rails.swapToCngn({ transactionId: 'txn_A', tokenSymbol: 'USDC', amount: '100', expectedCngn: '149250.00' })).toEqual(swap);
  });

  it('has no magic amount for swaps any more: 13.13 swaps like any other amount (swaps fail on chain, for real)', async () => {
    const swap = await rails.swapToCngn({ transactionId: 'txn_B', tokenSymbol: 'ETH', amount: '13.13', expectedCngn: '1' });
    expect(swap).toMatchObject({ ok: true, cngnAmount: '1' });
  });

  it('pays out with a NIP reference, and rejects the magic account serial', async () => {
    const paid = await rails.payout({ transactionId: 'txn_C', bankCode: '058', accountNumber: makeNuban('058', '012345678'), amount: '1000.00' });
    expect(paid).toMatchObject({ ok: true, payoutReference: expect.stringMatching(/^NIP\d{20}$/) });
    const rejected = await rails.payout({
      transactionId: 'txn_C',
      bankCode: '058',
      accountNumber: makeNuban('058', SANDBOX_MAGIC.payoutRejectedSerial),
      amount: '1000.00',
    });
    expect(rejected).toMatchObject({ ok: false, reason: expect.stringContaining('rejected') });
  });

  it('refunds to the sender with a hash of its own', async () => {
    const refund = await rails.refundDeposit({ transactionId: 'txn_D', to: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: '24', tokenSymbol: 'USDC' });
    expect(refund.transactionHash).not.toBe(sandboxHash('txn_D', 'swap'));
  });
});
