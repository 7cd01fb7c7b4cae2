import type { PoolClient } from 'pg';
import { getAddress, type Address, type Log } from 'viem';
import { AppError, type SendFinished } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import { NATIVE_TOKEN, recordOf, routerAmountOut, routerSwapCall, swapOutputOf, type SendRecord, type SendRow } from '@ramp/evm';
import { dec, fromBaseUnits, toBaseUnits } from '@ramp/money';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';
import { swapDex } from './pools';

/**
 * How long a queued swap may wait to be mined: after it, the router refuses it (`UniswapV2Router: EXPIRED`) and the swap
 * fails (what it took is given back). Minutes, not an hour: a swap signed now must not fill at a price an hour later.
 */
const SWAP_DEADLINE_SECONDS = 300;

/** What a swap asks (ChainSwap), as recorded beside its send. */
export interface SwapTerms {
  fromToken: ChainToken;
  toToken: ChainToken;
  amountIn: string;
  minimumOut: string;
  /** Who receives the output: the hot wallet, or an address outside. */
  to: Address;
  account: string;
  /** What it pays out: the transaction whose hold or ledger entry it settles. */
  paysOut: string;
  /** The organization whose transaction it is, for the outflow limit of a swap paid outside. */
  organizationId?: string;
  /** Paid into this managed wallet's own account (`to` is its address): within the platform's holdings. */
  toWallet?: string;
}

/** A swap's send and, once confirmed, what it gave (base units of toToken). */
export interface SwapRecord {
  send: SendRecord;
  amountOut?: bigint;
}

/** A swap as recorded beside its send (chain.swaps). */
export interface SwapRow {
  send_key: string;
  from_token: string;
  to_token: string;
  amount_in: string;
  minimum_out: string;
  to_address: string;
  account: string;
  amount_out: string | null;
  /** Paid into a wallet's account (ChainSwap `toWallet`): the wallet; null otherwise. */
  to_wallet: string | null;
}

/** A swap's columns as SwapRow reads them (amounts as text: exact), of the table or of `alias` in a join. */
const columnsOf = (alias?: string): string =>
  ['send_key', 'from_token', 'to_token', 'amount_in::text', 'minimum_out::text', 'to_address', 'account', 'amount_out::text', 'to_wallet']
    .map((column) => (alias ? `${alias}.${column}` : column))
    .join(', ');
const COLUMNS = columnsOf();

/** Swaps from a chain's hot wallet through the router of the platform's pools, for the platform's own services. */
export class Swaps {
  constructor(private readonly context: ChainContext) {}

  /**
   * Queues a swap from the hot wallet through the router of the platform's pools, booked against the ledger account
   * `terms.account` when final; the same key is the same swap (other terms: IDEMPOTENCY_KEY_REUSED). The router's
   * approval of the token goes first, once per token for good (its own send, before the swap in the queue's order).
   */
  async request(key: string, terms: SwapTerms): Promise<SwapRecord> {
    const { context } = this;
    const dex = swapDex(await context.poolsFor(terms.fromToken.symbol, terms.toToken.symbol), context, terms);
    const sendKey = `swap:${key}`;
    const { fromToken, toToken } = terms;
    const call = routerSwapCall(dex, {
      fromToken: fromToken.symbol,
      toToken: toToken.symbol,
      amountIn: toBaseUnits(terms.amountIn, fromToken.decimals),
      minimumOut: toBaseUnits(terms.minimumOut, toToken.decimals),
      to: terms.to,
      deadline: BigInt(Math.floor(Date.now() / 1000) + SWAP_DEADLINE_SECONDS),
    });
    // Asked again (a step polling its swap): read only, no write transaction.
    const known = await this.known(context.pool, sendKey, terms);
    if (known) return known;
    return withTransaction(context.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.swaps (chain, send_key, from_token, to_token, amount_in, minimum_out, to_address, account, to_wallet)
         values ($1, $2, $3, $4, $5::numeric, $6::numeric, $7, $8, $9) on conflict do nothing`,
        [
          context.id,
          sendKey,
          fromToken.symbol,
          toToken.symbol,
          terms.amountIn,
          terms.minimumOut,
          terms.to.toLowerCase(),
          terms.account,
          terms.toWallet ?? null,
        ],
      );
      // Queued meanwhile by a concurrent request: this one's answer is that one's.
      if (inserted.rowCount === 0) return (await this.known(tx, sendKey, terms))!;
      // Recorded with what it pays out; paid to an address outside, what goes in leaves the hot wallet for good: it
      // counts against the outflow limits.
      const counted = terms.to.toLowerCase() !== context.hot.sender.toLowerCase() && terms.toWallet === undefined;
      await context.outflows.record(tx, {
        sendKey,
        token: fromToken,
        amount: terms.amountIn,
        paysOut: terms.paysOut,
        organizationId: terms.organizationId,
        counted,
      });
      if (fromToken.address !== NATIVE_TOKEN) await context.approveSpender(tx, dex.router, fromToken);
      return { send: await context.enqueue(tx, 'swap', sendKey, call) };
    });
  }

  /** What a swap would give now, or at a block (a refused swap's), by the router's own arithmetic. */
  async quote(terms: Pick<SwapTerms, 'fromToken' | 'toToken' | 'amountIn'>, blockNumber?: bigint): Promise<bigint> {
    const { context } = this;
    const dex = swapDex(await context.poolsFor(terms.fromToken.symbol, terms.toToken.symbol), context, terms);
    return routerAmountOut(
      context.client,
      dex,
      terms.fromToken.symbol,
      terms.toToken.symbol,
      toBaseUnits(terms.amountIn, terms.fromToken.decimals),
      blockNumber,
    );
  }

  /** In the transaction that makes a swap's send confirmed: its output, read from its receipt and recorded beside it, for send.finished. */
  async finished(tx: PoolClient, send: SendRecord, logs: readonly Log[]): Promise<SendFinished['swap']> {
    const { context } = this;
    const row = await this.row(tx, send.idempotencyKey);
    if (!row) return undefined;
    const [from, to] = [context.token(row.from_token)!, context.token(row.to_token)!];
    const out = swapOutputOf(await context.poolsFor(from.symbol, to.symbol), from.symbol, to.symbol, logs);
    // A successful router swap always emits its pairs' Swap events: without one, nothing can be booked, and the send
    // stays unfinished (this transaction rolls back) for an operator rather than booked wrong.
    if (out === undefined) throw new Error(`swap ${send.idempotencyKey} (${send.txHash}) confirmed without a Swap event of its last pair`);
    await tx.query(`update ${CHAIN_SCHEMA}.swaps set amount_out = $3::numeric where chain = $1 and send_key = $2`, [
      context.id,
      send.idempotencyKey,
      out.toString(),
    ]);
    return {
      fromToken: from.symbol,
      amountIn: dec(row.amount_in).toFixed(),
      toToken: to.symbol,
      amountOut: fromBaseUnits(out, to.decimals),
      to: getAddress(row.to_address),
      // Into the hot wallet, or a wallet's account: within the platform's holdings either way.
      intoHotWallet: row.to_address === context.hot.sender.toLowerCase() || row.to_wallet !== null,
      account: row.account,
    };
  }

  /** The swaps among some sends of the hot wallet (holdings). */
  async ofSends(db: Pick<PoolClient, 'query'>, sendKeys: string[]): Promise<SwapRow[]> {
    const { rows } = await db.query<SwapRow>(`select ${COLUMNS} from ${CHAIN_SCHEMA}.swaps where chain = $1 and send_key = any($2)`, [
      this.context.id,
      sendKeys,
    ]);
    return rows;
  }

  /**
   * A swap queued before under `sendKey`, with its send and, once confirmed, its output; IDEMPOTENCY_KEY_REUSED when it
   * was queued with other terms; undefined when there is none. One statement: the send's status and the swap's output
   * are read on the same snapshot (both are written in the transaction that finishes the send).
   */
  private async known(db: Pick<PoolClient, 'query'>, sendKey: string, terms: SwapTerms): Promise<SwapRecord | undefined> {
    const { rows } = await db.query<SendRow & { swap: SwapRow }>(
      `select s.*, (select row_to_json(c) from (select ${columnsOf('w')}) c) as swap
         from ${CHAIN_SCHEMA}.swaps w join ${CHAIN_SCHEMA}.chain_sends s on s.chain = w.chain and s.idempotency_key = w.send_key
        where w.chain = $1 and w.send_key = $2`,
      [this.context.id, sendKey],
    );
    const found = rows[0];
    if (!found) return undefined;
    const row = found.swap;
    const same =
      row.from_token === terms.fromToken.symbol &&
      row.to_token === terms.toToken.symbol &&
      dec(row.amount_in).eq(terms.amountIn) &&
      dec(row.minimum_out).eq(terms.minimumOut) &&
      row.to_address === terms.to.toLowerCase() &&
      (row.to_wallet ?? undefined) === terms.toWallet &&
      row.account === terms.account;
    if (!same) throw new AppError('IDEMPOTENCY_KEY_REUSED', `Swap ${sendKey.slice('swap:'.length)} was queued with other terms`);
    const send = recordOf(found);
    const out = send.status === 'confirmed' ? row.amount_out : null;
    return { send, ...(out !== null && { amountOut: BigInt(out) }) };
  }

  private async row(db: Pick<PoolClient, 'query'>, sendKey: string): Promise<SwapRow | undefined> {
    const { rows } = await db.query<SwapRow>(`select ${COLUMNS} from ${CHAIN_SCHEMA}.swaps where chain = $1 and send_key = $2`, [this.context.id, sendKey]);
    return rows[0];
  }
}
