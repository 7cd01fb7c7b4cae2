import { AppError, type HoldPlace, type HoldSettle, type OfframpQuote, type RpcContract, type Tenant } from '@ramp/contracts';
import { dec } from '@ramp/money';
import { isInitiated, LedgerSteps, type ChainLegs } from '@ramp/process-kit';
import type { OfframpRails } from '@ramp/providers';
import {
  decideOfframp,
  evolveOfframp,
  initialOfframpState,
  listedCounterparty,
  nextOfframpStep,
  parseDenylist,
  type OfframpCommand,
  type OfframpEvent,
  type OfframpState,
} from '@ramp/ramping';
import { OfframpSteps } from './offramp.steps';

const TENANT: Tenant = { organizationId: 'org_a', environment: 'test', keyId: 'key_a' };
const TXN = 'txn_01M82JKS0653T6WKTARA9RFX7D';
const OTHER_TXN = 'txn_01M82JKS0653T6WKTARA9RFX7E';
const WALLET = 'wal_01M82JKS0653T6WKTARA9RFX7D';
const at = '2026-11-22T10:00:00.000Z';

type Hold = { walletId: string; tokenSymbol: string; amount: string; status: HoldPlace.Response['status'] };

/**
 * The ledger's holds as its contract states them (HoldPlace, HoldSettle): a placement is idempotent by hold id and
 * refused beyond the available balance; a release of a hold that was never placed, given `ifMissing`, records it as
 * released, so that a placement arriving later answers it as it is and moves nothing. A placement can be kept in
 * flight (`holdNextPlacement`) to arrive when the test says.
 */
class LedgerOfHolds {
  readonly available = new Map<string, string>([[`${WALLET}:USDC`, '100']]);
  readonly holds = new Map<string, Hold>();
  private inFlight: Promise<void> | undefined;

  holdNextPlacement(): () => void {
    let arrive!: () => void;
    this.inFlight = new Promise((resolve) => (arrive = resolve));
    return arrive;
  }

  held(walletId: string): string {
    return [...this.holds.values()]
      .filter((hold) => hold.walletId === walletId && hold.status === 'held')
      .reduce((sum, hold) => sum.add(hold.amount), dec(0))
      .toFixed();
  }

  async call(contract: RpcContract<unknown, unknown>, _tenant: Tenant, data: unknown): Promise<unknown> {
    if (contract.subject === 'ledger.v1.holds.place') {
      const inFlight = this.inFlight;
      this.inFlight = undefined;
      if (inFlight) await inFlight;
      return this.place(data as HoldPlace.Request);
    }
    if (contract.subject === 'ledger.v1.holds.settle') return this.settle(data as HoldSettle.Request);
    throw new Error(`unexpected ${contract.subject}`);
  }

  private place({ holdId, walletId, tokenSymbol, amount }: HoldPlace.Request): HoldPlace.Response {
    const existing = this.holds.get(holdId);
    if (!existing) {
      const key = `${walletId}:${tokenSymbol}`;
      const available = this.available.get(key) ?? '0';
      if (dec(available).lt(amount))
        throw new AppError('INSUFFICIENT_BALANCE', `amount: exceeds the wallet's available balance of ${available} ${tokenSymbol}`, 'amount');
      this.available.set(key, dec(available).sub(amount).toFixed());
      this.holds.set(holdId, { walletId, tokenSymbol, amount, status: 'held' });
    }
    return this.view(holdId);
  }

  private settle({ holdId, outcome, ifMissing }: HoldSettle.Request): HoldPlace.Response {
    if (!this.holds.has(holdId) && ifMissing) this.holds.set(holdId, { ...ifMissing, status: 'released' });
    const hold = this.holds.get(holdId);
    if (!hold) throw new AppError('TRANSACTION_NOT_FOUND', `Hold ${holdId} was not found`);
    if (hold.status === 'held') {
      if (outcome === 'release') {
        const key = `${hold.walletId}:${hold.tokenSymbol}`;
        this.available.set(
          key,
          dec(this.available.get(key) ?? '0')
            .add(hold.amount)
            .toFixed(),
        );
      }
      hold.status = outcome === 'release' ? 'released' : 'captured';
    }
    return this.view(holdId);
  }

  private view(holdId: string): HoldPlace.Response {
    const { walletId, tokenSymbol, amount, status } = this.holds.get(holdId)!;
    return { holdId, walletId, chain: 'base', tokenSymbol, amount, status };
  }
}

const initiated: OfframpEvent = {
  type: 'offramp.initiated',
  data: {
    transactionId: TXN,
    tenant: TENANT,
    quote: { quoteId: 'qt_01M82JKS0653T6WKTARA9RFX7D', chain: 'base', tokenSymbol: 'USDC', cryptoAmount: '100' } as OfframpQuote.Response,
    walletId: WALLET,
    sourceAddress: null,
    depositAddress: null,
    depositExpiresAt: null,
    reference: null,
    callbackUrl: null,
    at,
  },
};

describe('off-ramp steps - a hold placement that raced a failure leaves the wallet as it was', () => {
  it('a custodial off-ramp whose first placement is still in flight when a second one is refused ends failed, the wallet whole', async () => {
    const ledger = new LedgerOfHolds();
    const steps = new OfframpSteps(
      {} as OfframpRails,
      new LedgerSteps(ledger as never),
      { call: () => Promise.reject(new Error('no chain in this test')) },
      {} as ChainLegs,
      0,
    );
    let state: OfframpState = evolveOfframp(initialOfframpState, initiated);
    const record = (command: OfframpCommand) => {
      state = decideOfframp(command, state).reduce(evolveOfframp, state);
    };
    const runNextStep = async () => {
      const current = state;
      if (!isInitiated(current)) throw new Error('the off-ramp is not initiated');
      return steps.perform({ transactionId: TXN, state: current, step: nextOfframpStep(current), tenant: TENANT });
    };

    // Another transaction holds 60 of the wallet's 100 USDC for a moment.
    await ledger.call({ subject: 'ledger.v1.holds.place' } as never, TENANT, { holdId: OTHER_TXN, walletId: WALLET, tokenSymbol: 'USDC', amount: '60' });
    const arrive = ledger.holdNextPlacement();
    const late = runNextStep();
    // The job runs the step again (its lease ran out): 40 available, so the ledger refuses, and the off-ramp fails.
    const refused = await runNextStep();
    expect(refused).toMatchObject({ type: 'fail', failureReason: 'INSUFFICIENT_BALANCE' });
    record(refused);
    expect(nextOfframpStep(state)).toEqual({ kind: 'releaseHold' });

    // The other transaction gives its 60 back; the off-ramp releases a hold it never recorded, then fails.
    await ledger.call({ subject: 'ledger.v1.holds.settle' } as never, TENANT, { holdId: OTHER_TXN, outcome: 'release' });
    record(await runNextStep());
    expect(nextOfframpStep(state)).toEqual({ kind: 'fail' });
    record(await runNextStep());
    expect(state).toMatchObject({ status: 'failed', failureReason: 'INSUFFICIENT_BALANCE', fundsHeld: false, fundsReleased: true });

    // The first placement arrives now, with the whole balance available again: it finds its hold released.
    arrive();
    const outcome = await late;
    expect(outcome).toMatchObject({ type: 'fail', reason: 'The wallet could not be debited: the hold is already released' });
    record(outcome);

    // The wallet has all of its balance available and nothing held; the transaction stays failed.
    expect(ledger.available.get(`${WALLET}:USDC`)).toBe('100');
    expect(ledger.held(WALLET)).toBe('0');
    expect(ledger.holds.get(TXN)).toMatchObject({ status: 'released', amount: '100' });
    expect(state.status).toBe('failed');
    expect(nextOfframpStep(state)).toEqual({ kind: 'none' });
  });
});

describe('off-ramp steps - an extra deposit from a denylisted sender is never sent back', () => {
  const LISTED = '0x8576aCC5C05D6Ce88f4e49bf65BdF0C62F91353C';
  const OTHER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  const denylist = parseDenylist(LISTED);
  const screening = {
    screen: (counterparties: Parameters<typeof listedCounterparty>[1]) => {
      const listed = listedCounterparty(denylist, counterparties);
      return listed && { ...listed, reason: 'listed' };
    },
  };
  const extra = (from: string, environment: 'live' | 'test') => ({
    depositId: `${environment}:base:0x${'e'.repeat(64)}:3`,
    environment,
    chain: 'base',
    owner: 'offramp:txn_x',
    address: OTHER,
    tokenSymbol: 'USDT',
    amount: '5',
    transactionHash: `0x${'e'.repeat(64)}`,
    from,
    blockNumber: '10',
  });

  it('sends back a live one from anyone else, and a test one from anyone; holds a live one from a listed sender', async () => {
    const asked: { to: string; amount: string }[] = [];
    const warned: unknown[] = [];
    const steps = new OfframpSteps(
      {} as OfframpRails,
      new LedgerSteps({ call: () => Promise.reject(new Error('no ledger in this test')) } as never),
      { call: async (_contract: unknown, _tenant: unknown, data: unknown) => void asked.push(data as { to: string; amount: string }) } as never,
      {} as ChainLegs,
      0,
      { warn: (data: unknown) => void warned.push(data) } as never,
      undefined,
      undefined,
      undefined,
      screening,
    );
    await steps.refundExtraDeposit(extra(OTHER, 'live') as never);
    await steps.refundExtraDeposit(extra(LISTED, 'test') as never);
    expect(asked.map((request) => [request.to, request.amount])).toEqual([
      [OTHER, '5'],
      [LISTED, '5'],
    ]);
    await steps.refundExtraDeposit(extra(LISTED, 'live') as never);
    expect(asked).toHaveLength(2);
    expect(warned).toEqual([expect.objectContaining({ address: LISTED, role: 'deposit sender', tokenSymbol: 'USDT', amount: '5' })]);
  });
});
