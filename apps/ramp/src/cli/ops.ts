import 'reflect-metadata';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { withTransaction } from '@ramp/database';
import { AppError, isIdOf } from '@ramp/contracts';
import { EventLog } from '@ramp/event-store';
import { isInitiated, JobQueue, StreamProcess, type ProcessDefinition } from '@ramp/process-kit';
import { liveCollectionsFrom } from '@ramp/providers';
import {
  nextOfframpStep,
  nextOnrampStep,
  offrampDecider,
  offrampView,
  onrampDecider,
  onrampView,
  type OfframpCommand,
  type OfframpEvent,
  type OfframpState,
  type OnrampCommand,
  type OnrampEvent,
  type OnrampState,
} from '@ramp/ramping';
import { openServiceDatabase, runOperatorCommand, UsageError } from '@ramp/service-kit';
import { RAMP_DATABASE } from '../ramp.module';

const USAGE = `Usage:
  npm run ops -- held
      Lists what waits for an operator in the ramp service, as JSON: collection payments held (unpaid on-ramps of
      several organizations on the account) or whose refund the partner refused, payments into accounts no on-ramp
      was given, partner events parked after repeated failures, paid payouts the bank sent back, live off-ramps
      held after their swap on chain because every payout failed (their CNGN is in the hot wallet), and live
      payouts and deliveries waiting for an operator's approval (above LIVE_APPROVAL_ABOVE_NGN), and live ramps
      held for compliance (a counterparty on SCREENING_DENYLIST_FILE).
  npm run ops -- approve TRANSACTION_ID --operator NAME
      Approves a live off-ramp's payout or a live on-ramp's delivery that waits for it (awaitingApproval), recording
      NAME on the transaction (<kind>.approved), and wakes its step. Safe to run again: an approval is recorded once.
      Exits 1 for a transaction that does not wait for an approval.
  npm run ops -- reject TRANSACTION_ID --operator NAME --reason TEXT
      Declines instead a live off-ramp's payout or a live on-ramp's delivery that waits for an approval, recording NAME
      and TEXT on the transaction (<kind>.approval_rejected; the integrator is told DECLINED_IN_REVIEW, not TEXT). An
      on-ramp fails and its Naira is refunded; an off-ramp fails and its deposit (or wallet hold) is given back, or,
      swapped on chain already, is held for an operator (heldPayouts). Safe to run again; exits 1 for a transaction
      that does not wait for an approval, or that was approved already.
  npm run ops -- refund-collection PROVIDER REFERENCE --operator NAME
      Gives back a collection payment (the partner's charge REFERENCE) that is held, whose refund was refused or
      failed (an on-ramp's too), or that was paid into an account no on-ramp was given, through the partner that took it, and records NAME. Safe to run
      again: a payment refunded already is not refunded twice. Exits 1 when the partner refuses or does not answer.
  npm run ops -- help   (or --help, -h, or no command): prints this.
Needs PostgreSQL (DATABASE_URL) and, to refund, the partner's key (PAYSTACK_SECRET_KEY).`;

/** What waits for an operator. */
async function held(pool: Pool) {
  const [collections, unknownPayments, parkedEvents, reversedPayouts, heldPayouts, awaitingApproval, complianceHolds] = await Promise.all([
    pool.query(
      `select provider, reference, account_number as "accountNumber", amount::text, paid_at as "paidAt", matched, reason, refund
         from ramp.collection_payments where (matched = 'hold' and refund is distinct from 'refunded') or refund = 'rejected' order by paid_at`,
    ),
    pool.query(
      `select e.provider, e.reference, e.received_at as "receivedAt", e.processed_at is not null as closed
         from ramp.partner_events e
        where e.event = 'charge.success' and e.outcome = 'unmatched'
          and not exists (select from ramp.collection_payments p where p.provider = e.provider and p.reference = e.reference)
        order by e.id`,
    ),
    pool.query(`select id::text, provider, event, reference, last_error as "lastError" from ramp.partner_events where outcome = 'parked' order by id`),
    pool.query(
      `select substr(stream_id, length('offramp-') + 1) as "transactionId", data->>'provider' as provider, data->>'payoutReference' as "payoutReference",
              data->>'amount' as amount, data->>'at' as at
         from ramp.events where type = 'offramp.payout_reversed' order by global_position`,
    ),
    pool.query(
      `select substr(stream_id, length('offramp-') + 1) as "transactionId", data->>'errorMessage' as "errorMessage", data->>'at' as at
         from ramp.events h where type = 'offramp.payout_held'
          and not exists (select from ramp.events e where e.stream_id = h.stream_id and e.type in ('offramp.completed', 'offramp.failed'))
        order by global_position`,
    ),
    pool.query(
      `select substr(r.stream_id, strpos(r.stream_id, '-') + 1) as "transactionId", split_part(r.stream_id, '-', 1) as kind,
              r.data->>'amountNgn' as "amountNgn", r.data->>'thresholdNgn' as "thresholdNgn", r.data->>'at' as at
         from ramp.events r
        where r.type in ('offramp.approval_required', 'onramp.approval_required')
          and not exists (
            select from ramp.events a where a.stream_id = r.stream_id
               and a.type in ('offramp.approved', 'onramp.approved', 'offramp.approval_rejected', 'onramp.approval_rejected', 'offramp.failing', 'onramp.failing',
                              'offramp.failed', 'onramp.failed', 'offramp.completed', 'onramp.completed'))
        order by r.global_position`,
    ),
    pool.query(
      `select substr(stream_id, strpos(stream_id, '-') + 1) as "transactionId", split_part(stream_id, '-', 1) as kind,
              data->>'address' as address, data->>'role' as role, data->>'reason' as reason, data->>'at' as at
         from ramp.events where type in ('offramp.compliance_hold', 'onramp.compliance_hold') order by global_position`,
    ),
  ]);
  return {
    collections: collections.rows,
    unknownPayments: unknownPayments.rows,
    parkedEvents: parkedEvents.rows,
    reversedPayouts: reversedPayouts.rows,
    heldPayouts: heldPayouts.rows,
    awaitingApproval: awaitingApproval.rows,
    complianceHolds: complianceHolds.rows,
  };
}

type Approvable = ProcessDefinition<OfframpState | OnrampState, OfframpCommand | OnrampCommand, OfframpEvent | OnrampEvent, { kind: string }>;

/** The kinds whose transactions may wait for an approval, as the StreamProcess definitions the approval goes through. */
const APPROVABLE: Record<'offramp' | 'onramp', Omit<Approvable, 'systemActor' | 'dueAt'>> = {
  offramp: { prefix: 'offramp', decider: offrampDecider, nextStep: nextOfframpStep, view: offrampView } as unknown as Omit<Approvable, 'systemActor' | 'dueAt'>,
  onramp: { prefix: 'onramp', decider: onrampDecider, nextStep: nextOnrampStep, view: onrampView } as unknown as Omit<Approvable, 'systemActor' | 'dueAt'>,
};

/**
 * Records an operator's decision on the live transaction that waits for it (`<kind>.approved`, or
 * `<kind>.approval_rejected` with the reason, each with the name and the actor `operator:<name>`), through the
 * transaction's own decider, with its next step's job due now: the step that waited moves the money, or the refund
 * runs. Decided so already: said, nothing new.
 */
async function decide(
  pool: Pool,
  transactionId: string,
  decision: { type: 'approve'; operator: string } | { type: 'reject'; operator: string; reason: string },
): Promise<{ output: object; ok: boolean }> {
  const { operator } = decision;
  const found = (
    await pool.query<{ stream_id: string }>(`select stream_id from ramp.events where stream_id = any($1) limit 1`, [
      Object.keys(APPROVABLE).map((kind) => `${kind}-${transactionId}`),
    ])
  ).rows[0];
  if (!found) throw new UsageError(`${transactionId} is no on-ramp or off-ramp of this platform`);
  const kind = found.stream_id.slice(0, found.stream_id.indexOf('-')) as keyof typeof APPROVABLE;
  const process = new StreamProcess(pool, new EventLog('ramp'), new JobQueue(pool, 'ramp'), {
    ...APPROVABLE[kind],
    systemActor: 'system:ramp',
    dueAt: () => new Date(),
  });
  const state = await process.load(pool, transactionId);
  if (!isInitiated(state)) throw new UsageError(`${transactionId} is no on-ramp or off-ramp of this platform`);
  if (state.initiated.tenant.environment !== 'live') throw new UsageError(`${transactionId} is a test key's ${kind}: only live ones wait for approvals`);
  const decided = (approval: typeof state.approval) => (decision.type === 'approve' ? approval?.approved : approval?.rejected);
  const already = decided(state.approval);
  // The request that started the transaction stays findable from its every event, as the service's own steps keep it.
  const requestId = (await new EventLog('ramp').readStream(pool, `${kind}-${transactionId}`))[0]?.metadata.requestId;
  try {
    const after = await process.apply(
      transactionId,
      state.initiated.tenant,
      { ...decision, at: new Date().toISOString() },
      { causationId: `ops:${decision.type}:${transactionId}`, actor: `operator:${operator}`, ...(requestId !== undefined && { requestId }) },
    );
    // The job the waiting step left (decided before the decision) goes: only the one just scheduled, due now, runs the
    // next step, so that no second run of the waiting one makes a second ask of a partner.
    if (decided(after.approval) && !already) {
      await pool.query(
        `delete from ramp.jobs where stream_id = $1 and decided_at_version < (select max(stream_version) from ramp.events where stream_id = $1)`,
        [`${kind}-${transactionId}`],
      );
    }
    // A transaction that has ended decides nothing: a decision on one that never waited is said to be refused too.
    const recorded = decided(after.approval);
    if (!recorded) return { output: { transactionId, kind, refused: `The ${kind} does not wait for an approval` }, ok: false };
    const field = decision.type === 'approve' ? 'approved' : 'rejected';
    return { output: { transactionId, kind, [field]: recorded, ...(already && { already: true }) }, ok: true };
  } catch (error) {
    // Refused by the transaction's decider (it does not wait for an approval): said, and exit 1.
    if (error instanceof AppError) return { output: { transactionId, kind, refused: error.message }, ok: false };
    throw error;
  }
}

/** Refunds a collection payment an operator settles; the row is locked meanwhile, so two operators refund it once. */
async function refundCollection(pool: Pool, config: Config, provider: string, reference: string, operator: string): Promise<{ output: object; ok: boolean }> {
  const partners = liveCollectionsFrom(config);
  const partner = partners?.provider(provider);
  if (!partners || !partner) throw new UsageError(`${provider} is not a configured collection partner (COLLECTION_PROVIDERS and its secret key)`);
  return withTransaction(pool, async (tx) => {
    let row = (
      await tx.query<{ amount: string; matched: string; refund: string | null; transaction_id: string | null }>(
        `select amount::text, matched, refund, transaction_id from ramp.collection_payments where provider = $1 and reference = $2 for update`,
        [provider, reference],
      )
    ).rows[0];
    if (!row) {
      // A payment into an account no on-ramp was given: recorded as held by this operator, so that its event, processed
      // again, can never give it to an on-ramp as well.
      const event = (
        await tx.query<{ body: { event: string; data: Record<string, unknown> } }>(
          `select body from ramp.partner_events where provider = $1 and event = 'charge.success' and reference = $2 order by id limit 1`,
          [provider, reference],
        )
      ).rows[0];
      const payment = event && partner.paymentOf(event.body);
      if (!payment) throw new UsageError(`${provider} sent no payment into a collection account with the reference ${reference}`);
      await tx.query(
        `insert into ramp.collection_payments (provider, reference, account_number, amount, paid_at, matched, reason)
         values ($1, $2, $3, $4, $5, 'hold', 'paid into an account no on-ramp was given')`,
        [provider, reference, payment.accountNumber, payment.amount, payment.paidAt],
      );
      row = { amount: payment.amount, matched: 'hold', refund: null, transaction_id: null };
    }
    if (row.refund === 'refunded') return { output: { provider, reference, refund: 'refunded', already: true }, ok: true };
    // An on-ramp's payment is the on-ramp's to refund, unless the partner failed that refund (refund.failed).
    if (row.matched === 'onramp' && row.refund !== 'rejected')
      throw new UsageError(
        `${reference} paid the on-ramp ${row.transaction_id}: the on-ramp refunds it itself when it must (GET /v1/onramp/${row.transaction_id})`,
      );
    if (row.matched === 'refund' && row.refund === null) throw new UsageError(`${reference} is being refunded by the platform: look again later`);
    const refund = await partners.refund(provider, { reference, amount: row.amount }, `refunded by operator ${operator}`);
    if (refund.state !== 'unknown') {
      await tx.query(`update ramp.collection_payments set refund = $3, resolved_by = $4, resolved_at = now() where provider = $1 and reference = $2`, [
        provider,
        reference,
        refund.state,
        operator,
      ]);
    }
    const output = { provider, reference, amount: row.amount, refund: refund.state, ...(refund.reason && { reason: refund.reason }), operator };
    return { output, ok: refund.state === 'refunded' };
  });
}

function parse(
  argv: string[],
):
  | 'help'
  | { command: 'held' }
  | { command: 'approve'; transactionId: string; operator: string }
  | { command: 'reject'; transactionId: string; operator: string; reason: string }
  | { command: 'refund-collection'; provider: string; reference: string; operator: string } {
  if (argv.length === 0 || argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h')) return 'help';
  const [command, ...rest] = argv;
  if (command === 'held') {
    if (rest.length > 0) throw new UsageError(`held takes no arguments (got ${rest.join(' ')})`);
    return { command };
  }
  if (command === 'refund-collection' || command === 'approve' || command === 'reject') {
    const positional: string[] = [];
    const options: { operator?: string; reason?: string } = {};
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i]!;
      const option = (['operator', 'reason'] as const).find(
        (name) => (name === 'operator' || command === 'reject') && (arg === `--${name}` || arg.startsWith(`--${name}=`)),
      );
      if (option) {
        options[option] = arg.includes('=') ? arg.slice(`--${option}=`.length) : rest[++i];
        continue;
      }
      if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} for ${command}`);
      positional.push(arg);
    }
    const { operator } = options;
    const does = { approve: 'approves', reject: 'declines', 'refund-collection': 'refunds' }[command];
    if (!operator?.trim()) throw new UsageError(`--operator NAME is required: who ${does} is recorded`);
    if (command === 'approve' || command === 'reject') {
      const [transactionId] = positional;
      if (!transactionId || positional.length > 1) throw new UsageError(`${command} takes one TRANSACTION_ID`);
      if (!isIdOf('txn', transactionId)) throw new UsageError(`${transactionId} is not a transaction id (txn_...)`);
      if (command === 'approve') return { command, transactionId, operator: operator.trim() };
      if (!options.reason?.trim()) throw new UsageError('--reason TEXT is required: why it is declined is recorded (for operators, not the integrator)');
      return { command, transactionId, operator: operator.trim(), reason: options.reason.trim() };
    }
    const [provider, reference] = positional;
    if (!provider || !reference || positional.length > 2) throw new UsageError('refund-collection takes PROVIDER and REFERENCE');
    return { command, provider, reference, operator: operator.trim() };
  }
  throw new UsageError(`unknown command "${command}"`);
}

runOperatorCommand<Exclude<ReturnType<typeof parse>, 'help'>>({
  name: 'ops',
  usage: USAGE,
  parse,
  run: async (request) => {
    const config = new Config();
    const database = await openServiceDatabase(RAMP_DATABASE, config, 'ramp-ops', 2);
    try {
      if (request.command === 'held') {
        process.stdout.write(`${JSON.stringify(await held(database.pool), null, 2)}\n`);
        return 0;
      }
      if (request.command === 'approve' || request.command === 'reject') {
        const decision =
          request.command === 'approve'
            ? { type: 'approve' as const, operator: request.operator }
            : { type: 'reject' as const, operator: request.operator, reason: request.reason };
        const { output, ok } = await decide(database.pool, request.transactionId, decision);
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
        return ok ? 0 : 1;
      }
      const { output, ok } = await refundCollection(database.pool, config, request.provider, request.reference, request.operator);
      process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      return ok ? 0 : 1;
    } finally {
      await database.close();
    }
  },
});
