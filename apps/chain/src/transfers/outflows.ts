import type { PoolClient } from 'pg';
import { AppError } from '@ramp/contracts';
import { outflowRefusal, type OutflowLimit } from '@ramp/chains';
import type { ChainToken } from '../context/platform-contracts';

/** The chain service's schema (as CHAIN_SCHEMA; not imported, the context imports this). */
const SCHEMA = 'chain';

/** One send that spends the hot wallet's funds, as the transaction that queues it records it. */
export interface Outflow {
  sendKey: string;
  token: ChainToken;
  /** In the token's units. */
  amount: string;
  /** What it pays out: the transaction whose hold or ledger entry it settles, or the deposit a refund gives back. */
  paysOut: string;
  /** The organization whose transaction it is (the per-organization limit). */
  organizationId?: string;
  /**
   * Whether it leaves the platform for an address outside (a transfer, a swap paid to an address, a bridge deposit),
   * and so counts against the limits. A swap into the hot wallet does not; nor does a refund, which gives back exactly
   * a deposit that arrived.
   */
  counted: boolean;
}

/**
 * Every send that spends a hot wallet's funds names what it pays out (`chain.outflows`, one row per send, written in
 * the transaction that queues it), and the chain service's own brake on what leaves for the outside: whatever a caller
 * asks, a send above the per-send cap is refused (AMOUNT_TOO_LARGE: asking again changes nothing), and one that would
 * take the last hour's outflow of the token, on the chain or for the organization, above its limit waits
 * (SERVICE_UNAVAILABLE, `outflow limit: …`, which its caller retries: the hour moves on). So a compromised caller or a
 * bug can move at most the limits before an operator sees it (the metric ramp_chain_outflow_refusals_total).
 */
export class Outflows {
  /** Refusals at a limit since start, by kind (perSend, perHour, perOrganizationPerHour): the metric. */
  readonly refusals = new Map<keyof OutflowLimit, number>();

  constructor(
    /** The chain's id (`test-base`) and name (`base`). */
    private readonly chain: { id: string; name: string },
    private readonly limits: Readonly<Record<string, OutflowLimit>> | undefined,
  ) {}

  /** In the transaction that queues the send: refuses it beyond a limit, or records it with what it pays out. */
  async record(tx: PoolClient, send: Outflow): Promise<void> {
    const limit = send.counted ? this.limits?.[send.token.symbol] : undefined;
    if (limit) await this.judge(tx, send, limit);
    await tx.query(
      `insert into ${SCHEMA}.outflows (chain, send_key, token_symbol, amount, organization_id, pays_out, counted) values ($1, $2, $3, $4::numeric, $5, $6, $7)
         on conflict do nothing`,
      [this.chain.id, send.sendKey, send.token.symbol, send.amount, send.organizationId ?? null, send.paysOut, send.counted],
    );
  }

  private async judge(tx: PoolClient, send: Outflow, limit: OutflowLimit): Promise<void> {
    const { id, name } = this.chain;
    const symbol = send.token.symbol;
    // One queueing at a time per chain and token, so that two sends cannot both fit under what only one fits under.
    await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`outflow:${id}:${symbol}`]);
    const { rows } = await tx.query<{ chain: string; organization: string }>(
      `select coalesce(sum(amount), 0)::text as chain, coalesce(sum(amount) filter (where organization_id = $3), 0)::text as organization from ${SCHEMA}.outflows
        where chain = $1 and token_symbol = $2 and counted and created_at > now() - interval '1 hour'`,
      [id, symbol, send.organizationId ?? null],
    );
    const refusal = outflowRefusal(limit, send.amount, {
      chain: rows[0]!.chain,
      ...(send.organizationId !== undefined && { organization: rows[0]!.organization }),
    });
    if (refusal === undefined) return;
    this.refusals.set(refusal, (this.refusals.get(refusal) ?? 0) + 1);
    if (refusal === 'perSend') {
      throw new AppError(
        'AMOUNT_TOO_LARGE',
        `amount: ${send.amount} ${symbol} is more than one send may take out of the hot wallet on ${name} (${limit.perSend})`,
        'amount',
      );
    }
    if (refusal === 'perHour') {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `outflow limit: ${name}'s hot wallet has sent out its limit of ${limit.perHour} ${symbol} in the last hour: the send waits; an operator is alerted`,
      );
    }
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      `outflow limit: the organization's transactions have taken their limit of ${limit.perOrganizationPerHour} ${symbol} out of ${name}'s hot wallet in the last hour: the send waits`,
    );
  }
}
