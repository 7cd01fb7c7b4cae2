import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { Counter } from 'prom-client';
import { Config } from '@ramp/config';
import { withTransaction } from '@ramp/database';
import type { Tenant, VirtualAccount } from '@ramp/contracts';
import { Metrics } from '@ramp/observability';
import { liveCollectionsFrom, OnrampCollections, partnerObserver, type CollectionPayment, type LiveCollections } from '@ramp/providers';
import { matchCollectionPayment, type CollectionCandidate, type CollectionMatch, type OnrampCustomer } from '@ramp/ramping';
import { PG_POOL } from '@ramp/service-kit';

/** A payment's match as recorded (the first processing of its event decided it; any later one reads it). */
export type RecordedMatch = Exclude<CollectionMatch, { kind: 'unknown' }> & { refund: 'refunded' | 'rejected' | null };

/**
 * Live on-ramps' Naira collections (COLLECTION_PROVIDERS): the payer's dedicated account opened at a partner and
 * recorded for the on-ramp, each payment into one matched once (matchCollectionPayment) and recorded with its match,
 * and refunds through the partner that took the payment. Test keys never reach it (OnrampCollections).
 */
@Injectable()
export class OnrampCollectionAccounts {
  readonly collections: OnrampCollections;
  /** The live partners, or undefined when none is configured. */
  readonly partners: LiveCollections | undefined;
  readonly counted: Counter<'provider' | 'outcome'>;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(Config) config: Config,
    @Inject(Metrics) metrics: Metrics,
  ) {
    this.partners = liveCollectionsFrom(config, partnerObserver(metrics.partnerCallSeconds));
    this.collections = new OnrampCollections(this.partners);
    this.counted = new Counter({
      name: 'ramp_collections_total',
      help: "Live on-ramps' collections by provider and outcome: opened (a payer's account given to an on-ramp), paid (a payment matched to its on-ramp), late (matched to an expired on-ramp, which refunds it), refunded_unmatched (given back at once: no on-ramp could take it), held (unpaid on-ramps of several organizations wait on the account: an operator decides), refund_rejected (the partner refused a refund: an operator must look), refund_failed (a refund the partner accepted failed later: nothing was given back), unknown_account (a payment into an account no on-ramp was given: kept for an operator).",
      labelNames: ['provider', 'outcome'],
      registers: [metrics.registry],
    });
  }

  /** The live partners, or LIVE_MODE_DISABLED when none is configured (checked before a live quote is used). */
  live(): LiveCollections {
    this.collections.of('live');
    return this.partners!;
  }

  /**
   * Opens the payer's account at the first partner in rotation and records it for the on-ramp before its initiation
   * is (a payment can only be matched to an on-ramp whose initiation is recorded, so a row of one that never started
   * is inert). The instructions are the partner's: its bank, account and name, with the on-ramp's exact amount and expiry.
   */
  async open(
    tenant: Tenant,
    transactionId: string,
    payer: OnrampCustomer,
    amount: string,
    expiresAt: string,
  ): Promise<{ virtualAccount: VirtualAccount; collection: { provider: string; customerCode: string } }> {
    const account = await this.live().openAccount(payer);
    await this.pool.query(
      `insert into ramp.onramp_collections (transaction_id, organization_id, provider, account_number, customer_code, amount, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict (transaction_id) do nothing`,
      [transactionId, tenant.organizationId, account.provider, account.accountNumber, account.customerCode, amount, expiresAt],
    );
    this.counted.inc({ provider: account.provider, outcome: 'opened' });
    return {
      virtualAccount: {
        bankName: account.bankName,
        bankCode: account.bankCode,
        accountNumber: account.accountNumber,
        accountName: account.accountName,
        amount,
        expiresAt,
      },
      collection: { provider: account.provider, customerCode: account.customerCode },
    };
  }

  /**
   * The payment's match: the one recorded when its event was processed before, or decided now and recorded, in one
   * transaction that locks the account's waiting on-ramps (two payments into one account are matched one after the
   * other, never to the same on-ramp). `unknown` is not recorded: the event is tried again later.
   */
  async match(provider: string, payment: CollectionPayment): Promise<RecordedMatch | { kind: 'unknown' }> {
    return withTransaction(this.pool, async (tx) => {
      const recorded = await tx.query<{
        matched: RecordedMatch['kind'];
        transaction_id: string | null;
        reason: string | null;
        refund: RecordedMatch['refund'];
        late: boolean;
      }>(
        `select p.matched, p.transaction_id, p.reason, p.refund, coalesce(p.paid_at > c.expires_at, false) as late
           from ramp.collection_payments p left join ramp.onramp_collections c on c.transaction_id = p.transaction_id
          where p.provider = $1 and p.reference = $2`,
        [provider, payment.reference],
      );
      const previous = recorded.rows[0];
      if (previous) return recordedMatch(previous);
      // The account's on-ramps whose initiation is recorded and that no payment took yet, locked until this commits.
      const waiting = await tx.query<{ transaction_id: string; organization_id: string; amount: string; expires_at: Date; created_at: Date }>(
        `select c.transaction_id, c.organization_id, c.amount::text, c.expires_at, c.created_at from ramp.onramp_collections c
          where c.provider = $1 and c.account_number = $2 and c.payment_reference is null
            and exists (select from ramp.events e where e.stream_id = 'onramp-' || c.transaction_id)
          order by c.created_at for update`,
        [provider, payment.accountNumber],
      );
      const candidates: CollectionCandidate[] = waiting.rows.map((row) => ({
        transactionId: row.transaction_id,
        organizationId: row.organization_id,
        amount: row.amount,
        expiresAt: row.expires_at.toISOString(),
        createdAt: row.created_at.toISOString(),
      }));
      // Any on-ramp of the account, and the organizations of its unpaid ones of the last day (initiating ones too).
      const account = await tx.query<{ known: boolean; organizations: string[] }>(
        `select count(*) > 0 as known,
                coalesce(array_agg(distinct organization_id) filter (where payment_reference is null and expires_at > now() - interval '1 day'), '{}') as organizations
           from ramp.onramp_collections where provider = $1 and account_number = $2`,
        [provider, payment.accountNumber],
      );
      const { known, organizations } = account.rows[0]!;
      const match = matchCollectionPayment(payment, candidates, known, new Set([...organizations, ...candidates.map((candidate) => candidate.organizationId)]));
      if (match.kind === 'unknown') return match;
      const transactionId = match.kind === 'onramp' ? match.transactionId : null;
      if (transactionId) {
        const taken = await tx.query(`update ramp.onramp_collections set payment_reference = $2 where transaction_id = $1 and payment_reference is null`, [
          transactionId,
          payment.reference,
        ]);
        if (taken.rowCount !== 1) throw new Error(`${transactionId} was paid by another payment while ${payment.reference} was matched to it`);
      }
      await tx.query(
        `insert into ramp.collection_payments (provider, reference, account_number, amount, paid_at, matched, transaction_id, reason)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          provider,
          payment.reference,
          payment.accountNumber,
          payment.amount,
          payment.paidAt,
          match.kind,
          transactionId,
          'reason' in match ? match.reason : null,
        ],
      );
      return { ...match, refund: null };
    });
  }

  /** Records how a refund at once ended (`refunded`, or `rejected`: an operator must look). */
  async recordRefund(provider: string, reference: string, refund: 'refunded' | 'rejected'): Promise<void> {
    await this.pool.query(`update ramp.collection_payments set refund = $3 where provider = $1 and reference = $2`, [provider, reference, refund]);
  }
}

function recordedMatch(row: {
  matched: RecordedMatch['kind'];
  transaction_id: string | null;
  reason: string | null;
  refund: RecordedMatch['refund'];
  late: boolean;
}): RecordedMatch {
  if (row.matched === 'onramp') return { kind: 'onramp', transactionId: row.transaction_id!, late: row.late, refund: row.refund };
  return { kind: row.matched, reason: row.reason ?? '', refund: row.refund };
}
