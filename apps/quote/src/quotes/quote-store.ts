import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { Config } from '@ramp/config';
import { GroupWriter } from '@ramp/database';
import { AppError, isIdOf, newId, notFound, type QuoteConsume, type QuoteKind, type QuotePeek, type Tenant } from '@ramp/contracts';
import { QuoteSchema, type QuoteRecord } from './quote.entity';

const KIND_NAMES: Record<QuoteKind, string> = { onramp: 'an on-ramp', offramp: 'an off-ramp', swap: 'a swap', transfer: 'a transfer' };

/** Stores quotes and consumes each at most once, atomically, for its own tenant. */
@Injectable()
export class QuoteStore {
  private readonly ttlSeconds: number;
  /**
   * Every quote is one INSERT, the hottest write of the platform: plain SQL in autocommit (a unit-of-work flush would
   * add BEGIN and COMMIT), grouped so that quotes arriving together share one statement and one commit.
   */
  private readonly inserts = new GroupWriter<unknown[]>(async (rows) => {
    await this.orm.em.getConnection().execute(
      `insert into quote.quotes (id, organization_id, environment, kind, request, response, created_at, expires_at)
       values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      rows.flat(),
    );
  });

  constructor(
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
    await this.inserts.add([quoteId, tenant.organizationId, tenant.environment, kind, JSON.stringify(request), JSON.stringify(response), now, expiresAt]);
    return response;
  }

  /**
   * Marks the quote used by `consumer` in one conditional UPDATE, so that of any number of concurrent initiations
   * exactly one wins. The same consumer asking again gets the quote again (its retries are safe).
   */
  async consume(tenant: Tenant, request: QuoteConsume.Request, now: Date): Promise<QuoteConsume.Response> {
    if (!isIdOf('qt', request.quoteId)) throw notFound(`Quote ${String(request.quoteId)} was not found`);
    const connection = this.orm.em.getConnection();
    const claimed = await connection.execute<{ response: object; consumed_at: Date }[]>(
      `update quote.quotes set consumed_at = ?, consumed_by = ?
        where id = ? and organization_id = ? and environment = ? and kind = ? and consumed_at is null and expires_at > ?
        returning response, consumed_at`,
      [now, request.consumer, request.quoteId, tenant.organizationId, tenant.environment, request.kind, now],
    );
    const row = claimed[0];
    if (row) return this.consumed(request, row.response, row.consumed_at);
    return this.explainRefusal(tenant, request, now);
  }

  /** The quote if this tenant could use it now as `kind`; the same refusals as {@link consume} otherwise. */
  async peek(tenant: Tenant, request: QuotePeek.Request, now: Date): Promise<QuotePeek.Response> {
    if (!isIdOf('qt', request.quoteId)) throw notFound(`Quote ${String(request.quoteId)} was not found`);
    const quote: QuoteRecord | null = await this.orm.em
      .fork()
      .findOne(QuoteSchema, { id: request.quoteId, organizationId: tenant.organizationId, environment: tenant.environment });
    if (!quote) throw notFound(`Quote ${request.quoteId} was not found`);
    this.refuseUnusable(quote, request.kind, now);
    return { quoteId: quote.id, kind: quote.kind, quote: quote.response as QuotePeek.Response['quote'] };
  }

  private refuseUnusable(quote: QuoteRecord, kind: QuoteKind, now: Date): void {
    if (quote.kind !== kind) {
      throw new AppError('INVALID_REQUEST', `quoteId: ${quote.id} is ${KIND_NAMES[quote.kind]} quote; this needs ${KIND_NAMES[kind]} quote`, 'quoteId');
    }
    if (quote.consumedAt) throw new AppError('CONFLICT', `Quote ${quote.id} has already been used; request a new quote`);
    if (quote.expiresAt <= now) {
      throw new AppError('INVALID_REQUEST', `quoteId: the quote expired at ${quote.expiresAt.toISOString()}; request a new quote`, 'quoteId');
    }
  }

  private async explainRefusal(tenant: Tenant, request: QuoteConsume.Request, now: Date): Promise<QuoteConsume.Response> {
    const quote: QuoteRecord | null = await this.orm.em
      .fork()
      .findOne(QuoteSchema, { id: request.quoteId, organizationId: tenant.organizationId, environment: tenant.environment });
    if (!quote) throw notFound(`Quote ${request.quoteId} was not found`);
    if (quote.kind !== request.kind) {
      throw new AppError('INVALID_REQUEST', `quoteId: ${quote.id} is ${KIND_NAMES[quote.kind]} quote; this needs ${KIND_NAMES[request.kind]} quote`, 'quoteId');
    }
    if (quote.consumedAt && quote.consumedBy === request.consumer) return this.consumed(request, quote.response, quote.consumedAt);
    if (quote.consumedAt) throw new AppError('CONFLICT', `Quote ${quote.id} has already been used; request a new quote`);
    if (quote.expiresAt <= now) {
      throw new AppError('INVALID_REQUEST', `quoteId: the quote expired at ${quote.expiresAt.toISOString()}; request a new quote`, 'quoteId');
    }
    throw new AppError('CONFLICT', `Quote ${quote.id} could not be used; retry`);
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
