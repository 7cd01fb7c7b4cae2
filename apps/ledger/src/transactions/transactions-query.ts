import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { isChainName } from '@ramp/chains';
import { AppError, generationOf, invalidField, isIdOf, type Tenant, type TransactionList, type TransactionRecord } from '@ramp/contracts';
import { PG_POOL } from '@ramp/service-kit';
import { pageMeta, parsePage } from '@ramp/contracts';

const TYPES = ['onramp', 'offramp', 'swap', 'transfer'];
const STATUSES = ['pending', 'completed', 'failed'];
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** GET /transactions and GET /transactions/{id} over the read model, for the caller's tenant only. */
@Injectable()
export class TransactionsQuery {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  async list(tenant: Tenant, request: TransactionList.Request): Promise<TransactionList.Response> {
    const page = parsePage(request);
    const where = ['organization_id = $1', 'environment = $2', 'generation = $3'];
    const values: unknown[] = [tenant.organizationId, tenant.environment, generationOf(tenant)];
    /** `column operator $n`, with the value as parameter n. */
    const add = (condition: string, value: unknown) => {
      values.push(value);
      where.push(`${condition} $${values.length}`);
    };
    if (request.type !== undefined) add('type =', oneOf(request.type, 'type', TYPES));
    if (request.status !== undefined) add('status =', oneOf(request.status, 'status', STATUSES));
    if (request.chain !== undefined) {
      if (!isChainName(request.chain))
        throw invalidField('chain', 'must be one of base, bsc, ethereum, polygon, arbitrum, avalanche, solana', 'UNSUPPORTED_CHAIN');
      add('chain =', request.chain);
    }
    if (request.walletId !== undefined) {
      if (!isIdOf('wal', request.walletId)) throw invalidField('walletId', 'must be a wallet id (wal_…)');
      add('wallet_id =', request.walletId);
    }
    const from = request.from !== undefined ? dateTime(request.from, 'from') : undefined;
    const to = request.to !== undefined ? dateTime(request.to, 'to') : undefined;
    if (from && to && from > to) throw invalidField('to', 'must not be before from');
    if (from) add('created_at >=', from);
    if (to) add('created_at <=', to);
    const filter = where.join(' and ');
    const [{ rows: counted }, { rows }] = await Promise.all([
      this.pool.query<{ total: number }>(`select count(*)::int as total from ledger.transactions where ${filter}`, values),
      this.pool.query<{ view: TransactionRecord }>(
        `select view from ledger.transactions where ${filter} order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`,
        values,
      ),
    ]);
    const total = counted[0]?.total ?? 0;
    return { data: rows.map((row) => row.view), meta: pageMeta(page, total) };
  }

  async get(tenant: Tenant, transactionId: unknown): Promise<TransactionRecord> {
    if (!isIdOf('txn', transactionId)) throw new AppError('TRANSACTION_NOT_FOUND', `Transaction ${String(transactionId)} was not found`);
    const { rows } = await this.pool.query<{ view: TransactionRecord }>(
      `select view from ledger.transactions where id = $1 and organization_id = $2 and environment = $3 and generation = $4`,
      [transactionId, tenant.organizationId, tenant.environment, generationOf(tenant)],
    );
    if (!rows[0]) throw new AppError('TRANSACTION_NOT_FOUND', `Transaction ${transactionId} was not found`);
    return rows[0].view;
  }
}

function oneOf(raw: string, field: string, allowed: string[]): string {
  if (!allowed.includes(raw)) throw invalidField(field, `must be one of ${allowed.join(', ')}`);
  return raw;
}

function dateTime(raw: string, field: string): Date {
  const value = new Date(raw);
  if (!ISO_DATE_TIME.test(raw) || Number.isNaN(value.getTime())) throw invalidField(field, 'must be an ISO 8601 date or date-time, e.g. 2026-11-22T10:00:00Z');
  return value;
}
