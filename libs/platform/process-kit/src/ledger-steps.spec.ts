import { AppError, HoldPlace, type RpcContract, type Tenant } from '@ramp/contracts';
import type { HoldTerms } from '@ramp/transactions';
import { failingEnds, LedgerSteps } from './ledger-steps';

const TENANT: Tenant = { organizationId: 'org_1', environment: 'test', keyId: 'key_1' };
const TXN = 'txn_01M82JKS0653T6WKTARA9RFX7D';
const TERMS: HoldTerms = { walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D', tokenSymbol: 'USDC', amount: '100' };
const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

/** A ledger that answers every request with `answer` and remembers what it was asked. */
function ledgerAnswering(answer: (subject: string, data: unknown) => unknown) {
  const requests: { subject: string; data: unknown }[] = [];
  const rpc = {
    call: async (contract: RpcContract<unknown, unknown>, _tenant: Tenant, data: unknown) => {
      requests.push({ subject: contract.subject, data });
      return answer(contract.subject, data);
    },
  };
  return { steps: new LedgerSteps(rpc as never), requests };
}

const hold = (status: HoldPlace.Response['status']): HoldPlace.Response => ({
  holdId: TXN,
  walletId: TERMS.walletId,
  chain: 'base',
  tokenSymbol: 'USDC',
  amount: '100',
  status,
});

describe("ledger steps - holding a wallet's funds", () => {
  it('records the funds held once the ledger holds them, by transaction id', async () => {
    const { steps, requests } = ledgerAnswering(() => hold('held'));
    expect(await steps.placeHold(TENANT, TXN, TERMS)).toEqual({ type: 'recordFundsHeld', at });
    expect(requests).toEqual([{ subject: 'ledger.v1.holds.place', data: { holdId: TXN, ...TERMS } }]);
  });

  it('fails the transaction when the ledger refuses the hold, saying why for people and for programs', async () => {
    const short = ledgerAnswering(() => {
      throw new AppError('INSUFFICIENT_BALANCE', "amount: exceeds the wallet's available balance of 40 USDC", 'amount');
    });
    expect(await short.steps.placeHold(TENANT, TXN, TERMS)).toEqual({
      type: 'fail',
      reason: "The wallet could not be debited: exceeds the wallet's available balance of 40 USDC",
      failureReason: 'INSUFFICIENT_BALANCE',
      at,
    });
    const gone = ledgerAnswering(() => {
      throw new AppError('WALLET_NOT_FOUND', 'Wallet wal_x was not found');
    });
    expect(await gone.steps.placeHold(TENANT, TXN, TERMS)).toMatchObject({
      type: 'fail',
      reason: 'The wallet could not be debited: Wallet wal_x was not found',
      failureReason: 'TRANSACTION_FAILED',
    });
  });

  it('fails the transaction when its hold is settled already: a failure released it while this placement was in flight', async () => {
    const { steps } = ledgerAnswering(() => hold('released'));
    expect(await steps.placeHold(TENANT, TXN, TERMS)).toEqual({
      type: 'fail',
      reason: 'The wallet could not be debited: the hold is already released',
      failureReason: 'TRANSACTION_FAILED',
      at,
    });
  });

  it('throws a fault (the ledger down), so that the job retries the step', async () => {
    const { steps } = ledgerAnswering(() => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The ledger service is not running; retry with exponential backoff.');
    });
    await expect(steps.placeHold(TENANT, TXN, TERMS)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('ledger steps - giving back, capturing, crediting', () => {
  it("releases with the hold's terms, so that a hold never placed is recorded as released and a late placement takes nothing", async () => {
    const { steps, requests } = ledgerAnswering(() => hold('released'));
    expect(await steps.releaseHold(TENANT, TXN, TERMS)).toEqual({ type: 'recordFundsReleased', at });
    expect(requests).toEqual([{ subject: 'ledger.v1.holds.settle', data: { holdId: TXN, outcome: 'release', ifMissing: TERMS } }]);
  });

  it('captures the hold for its destination, with the fee and the credit of what it bought, then completes', async () => {
    const { steps, requests } = ledgerAnswering(() => hold('captured'));
    const fee = { amount: '0.5', account: 'swap-fees' };
    const credit = { tokenSymbol: 'ETH', amount: '0.03', source: 'route-execution' };
    expect(await steps.captureHold(TENANT, TXN, { destination: 'route-execution', fee, credit })).toEqual({ type: 'complete', at });
    expect(requests).toEqual([{ subject: 'ledger.v1.holds.settle', data: { holdId: TXN, outcome: 'capture', destination: 'route-execution', fee, credit } }]);
  });

  it('credits a wallet once per entry id', async () => {
    const { steps, requests } = ledgerAnswering(() => ({ entryId: TXN, applied: true }));
    const credit = { entryId: TXN, walletId: TERMS.walletId, tokenSymbol: 'USDC', amount: '33.1', source: 'onramp-liquidity' };
    await steps.credit(TENANT, credit);
    expect(requests).toEqual([{ subject: 'ledger.v1.wallets.credit', data: credit }]);
  });

  it('ends a failing transaction with the reason its failure started with', () => {
    expect(failingEnds({ failing: 'The bank payout was rejected: closed', failureReason: 'PAYOUT_REJECTED' })).toEqual({
      type: 'fail',
      reason: 'The bank payout was rejected: closed',
      failureReason: 'PAYOUT_REJECTED',
      at,
    });
    expect(failingEnds({})).toEqual({ type: 'fail', reason: 'failed', failureReason: 'TRANSACTION_FAILED', at });
  });
});
