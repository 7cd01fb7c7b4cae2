import 'reflect-metadata';
import type { Pool } from 'pg';
import { Config } from '@ramp/config';
import { withTransaction } from '@ramp/database';
import { liveCollectionsFrom } from '@ramp/providers';
import { openServiceDatabase, runOperatorCommand, UsageError } from '@ramp/service-kit';
import { RAMP_DATABASE } from '../ramp.module';

const USAGE = `Usage:
  npm run ops -- held
      Lists what waits for an operator in the ramp service, as JSON: collection payments held (unpaid on-ramps of
      several organizations on the account) or whose refund the partner refused, payments into accounts no on-ramp
      was given, partner events parked after repeated failures, paid payouts the bank sent back, and live off-ramps
      held after their swap on chain because every payout failed (their CNGN is in the hot wallet).
  npm run ops -- refund-collection PROVIDER REFERENCE --operator NAME
      Gives back a collection payment (the partner's charge REFERENCE) that is held, whose refund was refused or
      failed (an on-ramp's too), or that was paid into an account no on-ramp was given, through the partner that took it, and records NAME. Safe to run
      again: a payment refunded already is not refunded twice. Exits 1 when the partner refuses or does not answer.
  npm run ops -- help   (or --help, -h, or no command): prints this.
Needs PostgreSQL (DATABASE_URL) and, to refund, the partner's key (PAYSTACK_SECRET_KEY).`;

/** What waits for an operator. */
async function held(pool: Pool) {
  const [collections, unknownPayments, parkedEvents, reversedPayouts, heldPayouts] = await Promise.all([
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
         from ramp.events where type = 'offramp.payout_held' order by global_position`,
    ),
  ]);
  return {
    collections: collections.rows,
    unknownPayments: unknownPayments.rows,
    parkedEvents: parkedEvents.rows,
    reversedPayouts: reversedPayouts.rows,
    heldPayouts: heldPayouts.rows,
  };
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

function parse(argv: string[]): 'help' | { command: 'held' } | { command: 'refund-collection'; provider: string; reference: string; operator: string } {
  if (argv.length === 0 || argv[0] === 'help' || argv.some((arg) => arg === '--help' || arg === '-h')) return 'help';
  const [command, ...rest] = argv;
  if (command === 'held') {
    if (rest.length > 0) throw new UsageError(`held takes no arguments (got ${rest.join(' ')})`);
    return { command };
  }
  if (command === 'refund-collection') {
    const positional: string[] = [];
    let operator: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i]!;
      if (arg === '--operator' || arg.startsWith('--operator=')) {
        operator = arg.includes('=') ? arg.slice('--operator='.length) : rest[++i];
        continue;
      }
      if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg} for refund-collection`);
      positional.push(arg);
    }
    const [provider, reference] = positional;
    if (!provider || !reference || positional.length > 2) throw new UsageError('refund-collection takes PROVIDER and REFERENCE');
    if (!operator?.trim()) throw new UsageError('--operator NAME is required: who refunds is recorded');
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
      const { output, ok } = await refundCollection(database.pool, config, request.provider, request.reference, request.operator);
      process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      return ok ? 0 : 1;
    } finally {
      await database.close();
    }
  },
});
