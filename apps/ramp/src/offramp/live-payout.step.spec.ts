import { payoutReference } from '@ramp/banking';
import type { Tenant } from '@ramp/contracts';
import { isInitiated, StepPending, type WithInitiation } from '@ramp/process-kit';
import { CircuitBreaker, LivePayouts, type PayoutProvider, type PayoutRequest, type PayoutResult } from '@ramp/providers';
import { decideOfframp, evolveOfframp, initialOfframpState, type OfframpCommand, type OfframpEvent, type OfframpState } from '@ramp/ramping';
import { liveOfframpQuote } from './live-offramp.spec-helper';
import { LivePayoutStep, type PayoutOutcome } from './live-payout.step';

const TENANT: Tenant = { organizationId: 'org_a', environment: 'live', keyId: 'key_a' };
const TXN = 'txn_01M82JKS0653T6WKTARA9RFX7D';
const at = '2026-11-22T10:00:00.000Z';
const ref = (attempt: number) => payoutReference(TXN, attempt);

const quote = liveOfframpQuote('0123456789', at);

/** A partner whose answers the test sets: what it was asked is kept. */
class Partner implements PayoutProvider {
  readonly sent: PayoutRequest[] = [];
  readonly verified: string[] = [];
  sendAnswer: PayoutResult = { state: 'pending', partnerReference: 'TRF_1' };
  verifyAnswer: PayoutResult = { state: 'pending' };
  balanceNaira = '1000000';

  constructor(readonly name: string) {}

  async send(request: PayoutRequest): Promise<PayoutResult> {
    this.sent.push(request);
    return this.sendAnswer;
  }

  async verify(reference: string): Promise<PayoutResult> {
    this.verified.push(reference);
    return this.verifyAnswer;
  }

  async balance(): Promise<string> {
    return this.balanceNaira;
  }
}

/** The off-ramp as the commands leave it, applied through its decider: its state and its stream version. */
function offramp(commands: OfframpCommand[], settlement?: 'onchain'): { state: WithInitiation<OfframpState>; version: number } {
  const initiated: OfframpEvent = {
    type: 'offramp.initiated',
    data: {
      transactionId: TXN,
      tenant: TENANT,
      quote,
      walletId: 'wal_01M82JKS0653T6WKTARA9RFX7D',
      sourceAddress: null,
      depositAddress: null,
      depositExpiresAt: null,
      reference: 'order-1',
      callbackUrl: null,
      ...(settlement && { settlement }),
      at,
    },
  };
  const events: OfframpEvent[] = [
    initiated,
    { type: 'offramp.funds_held', data: { at } },
    { type: 'offramp.swapped', data: { cngnAmount: '149250', transactionHash: '0xswap', at } },
  ];
  let state = events.reduce(evolveOfframp, initialOfframpState);
  let version = events.length;
  for (const command of commands) {
    const decided = decideOfframp(command, state);
    state = decided.reduce(evolveOfframp, state);
    version += decided.length;
  }
  if (!isInitiated(state)) throw new Error('not initiated');
  return { state, version };
}

const sending = (attempt: number, provider: string): OfframpCommand => ({ type: 'recordPayoutSending', attempt, provider, reference: ref(attempt), at });
const answer = (attempt: number, provider: string, state: string, send = 1): OfframpCommand =>
  ({ type: 'recordPayoutAttempt', attempt, provider, reference: ref(attempt), state, send, at }) as OfframpCommand;

/** A command as the step answers it: made at its own time. */
const made = (command: OfframpCommand) => ({ ...command, at: expect.any(String) });

describe('LivePayoutStep - one move per run, each ask counted before it is made', () => {
  let paystack: Partner;
  let flutterwave: Partner;
  let breakers: CircuitBreaker[];
  let counted: [string, PayoutOutcome][];
  let step: LivePayoutStep;

  const configure = (partners: Partner[]) => {
    breakers = partners.map(() => new CircuitBreaker({ failures: 1, openMs: 60_000 }));
    step = new LivePayoutStep(new LivePayouts(partners.map((partner, index) => ({ name: partner.name, provider: partner, breaker: breakers[index]! }))), {
      verifyMs: 1000,
      count: (provider, outcome) => counted.push([provider, outcome]),
    });
  };

  beforeEach(() => {
    paystack = new Partner('paystack');
    flutterwave = new Partner('flutterwave');
    counted = [];
    configure([paystack, flutterwave]);
  });

  /** The run of the job the last event scheduled, claimed `claims` times (1: its first run). */
  const run = (commands: OfframpCommand[], claims = 1, olderBy = 0, settlement?: 'onchain') => {
    const { state, version } = offramp(commands, settlement);
    return step.perform({ transactionId: TXN, state, version, job: { decided_at_version: version - olderBy, attempts: claims } });
  };

  it('records a new attempt before asking anyone: the first partner in rotation, once its balance covers the payout', async () => {
    expect(await run([])).toEqual(made(sending(1, 'paystack')));
    expect(paystack.sent).toEqual([]);
    paystack.balanceNaira = '149010.74';
    await expect(run([])).rejects.toBeInstanceOf(StepPending);
    expect(counted).toEqual([['paystack', 'waiting_for_balance']]);
    expect(paystack.sent).toEqual([]);
  });

  it("asks only in the first run of the job that the ask's record scheduled, and records its answer to that ask", async () => {
    expect(await run([sending(1, 'paystack')])).toEqual(made({ ...answer(1, 'paystack', 'pending'), partnerReference: 'TRF_1' } as OfframpCommand));
    expect(paystack.sent).toEqual([
      { reference: ref(1), bankCode: '058', accountNumber: '0123456789', accountName: 'ADA OBI', amount: '149010.75', narration: 'Off-ramp order-1' },
    ]);
    // Claimed again (no answer, a crash, a lease that ran out): the next ask is recorded first, nothing is sent.
    expect(await run([sending(1, 'paystack')], 2)).toEqual(made(sending(1, 'paystack')));
    // An older job of the stream (another event came since) ends, recording nothing new.
    expect(await run([sending(1, 'paystack')], 1, 1)).toEqual(made(answer(1, 'paystack', 'unknown')));
    // Without the job's facts, never an ask.
    const { state, version } = offramp([sending(1, 'paystack')]);
    expect(await step.perform({ transactionId: TXN, state, version })).toEqual(made(sending(1, 'paystack')));
    expect(paystack.sent).toHaveLength(1);
  });

  it('believes a refusal of the first ask; one after an unanswered ask leaves the attempt open, counted unresolved', async () => {
    paystack.sendAnswer = { state: 'rejected', reason: 'Invalid account' };
    expect(await run([sending(1, 'paystack')])).toEqual(made({ ...answer(1, 'paystack', 'rejected'), reason: 'Invalid account' } as OfframpCommand));
    await expect(run([sending(1, 'paystack'), sending(1, 'paystack')])).rejects.toBeInstanceOf(StepPending);
    expect(counted).toContainEqual(['paystack', 'unresolved']);
    // No answer at all: the attempt waits, doubling its pause with each ask.
    paystack.sendAnswer = { state: 'unknown', reason: 'timeout' };
    await expect(run([sending(1, 'paystack'), sending(1, 'paystack'), sending(1, 'paystack')])).rejects.toMatchObject({ retryInMs: 4000 });
  });

  it("looks a pending attempt up at its partner and records only the partner's news", async () => {
    const pending = [sending(1, 'paystack'), answer(1, 'paystack', 'pending')];
    await expect(run(pending)).rejects.toMatchObject({ retryInMs: 1000 });
    paystack.verifyAnswer = { state: 'paid', partnerReference: 'TRF_1' };
    expect(await run(pending)).toEqual(made({ ...answer(1, 'paystack', 'paid'), partnerReference: 'TRF_1' } as OfframpCommand));
    expect(paystack.verified).toEqual([ref(1), ref(1)]);
    expect(paystack.sent).toEqual([]);
  });

  it('moves to the next partner only after a known failure, and rejects the payout after three attempts that paid nothing', async () => {
    expect(await run([sending(1, 'paystack'), answer(1, 'paystack', 'failed')])).toEqual(made(sending(2, 'flutterwave')));
    const threeFailed = [
      sending(1, 'paystack'),
      answer(1, 'paystack', 'failed'),
      sending(2, 'flutterwave'),
      answer(2, 'flutterwave', 'rejected'),
      sending(3, 'paystack'),
      { ...answer(3, 'paystack', 'failed'), reason: 'account dormant' } as OfframpCommand,
    ];
    expect(await run(threeFailed)).toEqual({ type: 'recordPayout', ok: false, reason: 'account dormant', at: expect.any(String) });
    expect(counted).not.toContainEqual(['paystack', 'failed_after_swap']);
    // Swapped on the live chain: the same rejection, counted for an operator, and the off-ramp is held, not failed.
    const onChain = await run(threeFailed, 1, 0, 'onchain');
    expect(onChain).toEqual({ type: 'recordPayout', ok: false, reason: 'account dormant', at: expect.any(String) });
    expect(counted).toContainEqual(['paystack', 'failed_after_swap']);
    expect(decideOfframp(onChain, offramp(threeFailed, 'onchain').state)).toEqual([
      { type: 'offramp.payout_held', data: { errorMessage: 'The bank payout was rejected: account dormant', at: expect.any(String) } },
    ]);
  });

  it('waits when every partner is out of rotation, and never sends an open attempt elsewhere when its partner is gone', async () => {
    for (const breaker of breakers) breaker.failed();
    await expect(run([])).rejects.toBeInstanceOf(StepPending);
    expect(counted).toEqual([['all', 'no_partner']]);
    // Paystack taken out of PAYOUT_PROVIDERS with its attempt open: the attempt waits for it, nobody else is asked.
    configure([flutterwave]);
    await expect(run([sending(1, 'paystack')])).rejects.toMatchObject({ retryInMs: 10_000 });
    expect(counted).toContainEqual(['paystack', 'no_partner']);
    expect(flutterwave.sent).toEqual([]);
  });
});
