import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { escapeLiteral, type Pool } from 'pg';
import { Config } from '@ramp/config';
import { GroupWriter } from '@ramp/database';
import { PG_POOL } from '@ramp/service-kit';
import { AppError, generationOf, isIdOf, newId, type QuoteConsume, type QuoteKind, type QuotePeek, type Tenant } from '@ramp/contracts';
import { QuoteSchema, type QuoteRecord } from './quote.entity';

const KIND_NAMES: Record<QuoteKind, string> = { onramp: 'an on-ramp', offramp: 'an off-ramp', swap: 'a swap', transfer: 'a transfer' };

/** Stores quotes and consumes each at most once, atomically, for its own tenant. */
@Injectable()
export class QuoteStore {
  private readonly ttlSeconds: number;
  /**
   * Every quote is one INSERT, the hottest write of the platform: plain SQL in autocommit (a unit-of-work flush would
   * add BEGIN and COMMIT), grouped so that quotes arriving together share one statement and one commit. Its values are
   * the service's own (ids, JSON it serialised, dates, the tenant) written as literals with pg's escapeLiteral: a
   * simple query is one message, where bind parameters (up to 1,800 for a group of 200) mean parse, bind and execute
   * messages whose allocations made the quote service's memory under load grow by a quarter.
   */
  private readonly inserts = new GroupWriter<unknown[]>(async (rows) => {
    const literal = (value: unknown) => escapeLiteral(value instanceof Date ? value.toISOString() : String(value));
    await this.pool.query(
      `insert into quote.quotes (id, organization_id, environment, generation, kind, request, response, created_at, expires_at)
       values ${rows.map((row) => `(${row.map(literal).join(', ')})`).join(', ')}`,
    );
  });

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(MikroORM) private readonly orm: MikroORM,
    @Inject(Config) config: Config,
  ) {
    this.ttlSeconds = config.int('quoteTtlSeconds', 1, 86_400);
  }

  /** Saves a priced quote and returns it with its id and expiry. `now` comes from the caller, once per request. */
  async save<T extends object>(tenant: Tenant, kind: QuoteKind, request: object, priced: T, now: Date): Promise<T & { quoteId: string; expiresAt: string }> {
    const quoteId = newId('qt', now.getTime());
    const expiresAt = new Date(now.getTime() + this.ttlSeconds * 1000);
    const response = { quoteId, ...priced, expiresAt: expiresAt.toISOString() };
    await this.inserts.add([
      quoteId,
      tenant.organizationId,
      tenant.environment,
      generationOf(tenant),
      kind,
      JSON.stringify(request),
      JSON.stringify(response),
      now,
      expiresAt,
    ]);
    return response;
  }

  /**
   * Marks the quote used by `consumer` in one conditional UPDATE, so that of any number of concurrent initiations
   * exactly one wins. The same consumer asking again gets the quote again (its retries are safe).
   */
  async consume(tenant: Tenant, request: QuoteConsume.Request, now: Date): Promise<QuoteConsume.Response> {
    if (!isIdOf('qt', request.quoteId)) throw new AppError('QUOTE_NOT_FOUND', `Quote ${String(request.quoteId)} was not found`);
    const claimed = await this.pool.query<{ response: object; consumed_at: Date }>(
      `update quote.quotes set consumed_at = $1, consumed_by = $2
        where id = $3 and organization_id = $4 and environment = $5 and generation = $6 and kind = $7 and consumed_at is null and expires_at > $1
        returning response, consumed_at`,
      [now, request.consumer, request.quoteId, tenant.organizationId, tenant.environment, generationOf(tenant), request.kind],
    );
    const row = claimed.rows[0];
    if (row) return this.consumed(request, row.response, row.consumed_at);
    return this.explainRefusal(tenant, request, now);
  }

  /** The quote if this tenant could use it now as `kind`; the same refusals as {@link consume} otherwise. */
  async peek(tenant: Tenant, request: QuotePeek.Request, now: Date): Promise<QuotePeek.Response> {
    if (!isIdOf('qt', request.quoteId)) throw new AppError('QUOTE_NOT_FOUND', `Quote ${String(request.quoteId)} was not found`);
    const quote: QuoteRecord | null = await this.orm.em
      .fork()
      .findOne(QuoteSchema, { id: request.quoteId, organizationId: tenant.organizationId, environment: tenant.environment, generation: generationOf(tenant) });
    if (!quote) throw new AppError('QUOTE_NOT_FOUND', `Quote ${request.quoteId} was not found`);
    this.refuseUnusable(quote, request.kind, now);
    return { quoteId: quote.id, kind: quote.kind, quote: quote.response as QuotePeek.Response['quote'] };
  }

  private refuseUnusable(quote: QuoteRecord, kind: QuoteKind, now: Date): void {
    if (quote.kind !== kind) {
      throw new AppError('QUOTE_KIND_MISMATCH', `quoteId: ${quote.id} is ${KIND_NAMES[quote.kind]} quote; this needs ${KIND_NAMES[kind]} quote`, 'quoteId');
    }
    if (quote.consumedAt) throw new AppError('QUOTE_ALREADY_USED', `Quote ${quote.id} has already been used; request a new quote`);
    if (quote.expiresAt <= now) {
      throw new AppError('QUOTE_EXPIRED', `quoteId: the quote expired at ${quote.expiresAt.toISOString()}; request a new quote`, 'quoteId');
    }
  }

  private async explainRefusal(tenant: Tenant, request: QuoteConsume.Request, now: Date): Promise<QuoteConsume.Response> {
    const quote: QuoteRecord | null = await this.orm.em
      .fork()
      .findOne(QuoteSchema, { id: request.quoteId, organizationId: tenant.organizationId, environment: tenant.environment, generation: generationOf(tenant) });
    if (!quote) throw new AppError('QUOTE_NOT_FOUND', `Quote ${request.quoteId} was not found`);
    if (quote.kind !== request.kind) {
      throw new AppError(
        'QUOTE_KIND_MISMATCH',
        `quoteId: ${quote.id} is ${KIND_NAMES[quote.kind]} quote; this needs ${KIND_NAMES[request.kind]} quote`,
        'quoteId',
      );
    }
    if (quote.consumedAt && quote.consumedBy === request.consumer) return this.consumed(request, quote.response, quote.consumedAt);
    if (quote.consumedAt) throw new AppError('QUOTE_ALREADY_USED', `Quote ${quote.id} has already been used; request a new quote`);
    if (quote.expiresAt <= now) {
      throw new AppError('QUOTE_EXPIRED', `quoteId: the quote expired at ${quote.expiresAt.toISOString()}; request a new quote`, 'quoteId');
    }
    throw new AppError('QUOTE_ALREADY_USED', `Quote ${quote.id} could not be used; retry`);
  }

  private consumed(request: QuoteConsume.Request, response: object, consumedAt: Date): QuoteConsume.Response {
    return {
      quoteId: request.quoteId,
      kind: request.kind,
      quote: response as QuoteConsume.Response['quote'],
      consumedAt: new Date(consumedAt).toISOString(),
    };
  }
}
