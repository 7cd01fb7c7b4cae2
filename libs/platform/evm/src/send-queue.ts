import type { Pool, PoolClient } from 'pg';
import { keccak256, TransactionReceiptNotFoundError, type Address, type Hex, type Log, type PublicClient } from 'viem';
import { gasCost, gasLimitOf, replacementFees, type Eip1559Fees } from '@ramp/chains';
import { schemaName, withTransaction, type Sql } from '@ramp/database';
import type { Finality } from './chain-settings';
import type { Signer } from './custody';
import type { ChainLogger } from './chain-logger';
import { finalThrough } from './deposit-watcher';
import { isInsufficientFunds, isRevert, isTransient } from './rpc-errors';
import { revertReasonOf } from './revert-reason';

export type { ChainLogger } from './chain-logger';

/** What to send: a call or a transfer of the native coin (or both). */
export interface SendRequest {
  to: Address;
  data?: Hex;
  value?: bigint;
}

export type SendStatus = 'queued' | 'pending' | 'confirmed' | 'failed';

export interface SendRecord {
  id: string;
  chain: string;
  sender: Address;
  idempotencyKey: string;
  to: Address;
  data: Hex;
  value: bigint;
  status: SendStatus;
  nonce?: bigint;
  /** The hash of the transaction that was mined (once confirmed or reverted), else of the latest attempt. */
  txHash?: Hex;
  /** Every hash signed for this send, oldest first: more than one when a stuck transaction was replaced. */
  attempts: Hex[];
  blockNumber?: bigint;
  /** What the network cost, in wei of the native coin (gas used × effective price), once mined. */
  gasCost?: bigint;
  error?: string;
  /** What it is for (`sweep`, `transfer`, ...), where the schema records it. */
  kind?: string;
}

export interface SendQueueOptions {
  /** The chain service's schema, where sendQueueMigration created the tables. */
  schema: string;
  pool: Pool;
  chain: string;
  chainId: number;
  client: PublicClient;
  signer: Signer;
  /** Blocks a receipt must have before the send is final (1: its own block). */
  confirmations: number;
  /** `safe`/`finalized`: a receipt is final only once its block is at or below the node's block of that tag too. */
  finality?: Finality;
  /** A transaction with no receipt this long after its latest attempt is replaced with higher fees. */
  stuckAfterMs: number;
  /** The ceiling of maxFeePerGas, in wei: no replacement goes above it. */
  maxFeePerGas: bigint;
  logger: ChainLogger;
  /**
   * Called in the transaction that makes a send final (confirmed, or failed with its reason): a ledger entry for its
   * gas, the event that moves a transaction on. Runs once per send, whatever crashes around it. `logs`: the mined
   * receipt's (none when the send was refused before signing), for what a call did (a swap's output).
   */
  onFinished?: (tx: PoolClient, send: SendRecord, logs: readonly Log[]) => Promise<void>;
  /**
   * What is missing from a successful receipt for the send to have done what it was for (a transfer's `Transfer` log, a
   * sweep's `Swept`), or undefined. A send whose receipt lacks it fails with that reason instead of counting as done:
   * a token that returns false instead of reverting, a contract that is not what it was taken for.
   */
  verify?: (send: SendRecord, logs: readonly Log[]) => string | undefined;
  /**
   * The most sends signed and not yet mined at once (none: no limit). A node keeps only so many of one sender's
   * transactions for sure (geth's `txpool.accountslots`, 16), and one stuck transaction holds every later nonce of its
   * sender: a chain's lanes share the load instead. Mined sends waiting for their finality do not count.
   */
  maxPending?: number;
  /**
   * Other senders whose sends may bring what this queue's spend (a lane's `transferFrom` of the hot wallet's tokens
   * depends on the hot wallet's sweeps): while one of theirs is open, a send of this queue that reverts at estimation
   * waits and is estimated again, as it does after this queue's own unmined sends.
   */
  dependsOn?: readonly Address[];
}

/** Whether a sender has sends queued, and signed but not final (SendQueue.openSends). */
export interface OpenSends {
  queued: boolean;
  pending: boolean;
  /**
   * The sender's next nonce as recorded (undefined before its first pass records it), read with the rest before the
   * queue's pass starts: only that pass signs, so it holds for the pass, and its nonce check reads nothing more.
   */
  nextNonce?: bigint;
}

/** How often a queue compares its nonce with the chain's (checkNonce), at most. */
const NONCE_CHECK_MS = 1000;

/** How long a send that reverts at estimation while the wallet has unmined sends is estimated again before it fails. */
const REVERT_RETRY_MS = 30_000;

/** Most sends signed in one database transaction. */
const SIGN_BATCH = 50;

/** How recent this replica's last pass of a queue must be for its own view of why the queue waits to be the answer. */
const WAITING_FRESH_MS = 2_000;
/** Most receipts asked for at once. */
const RECEIPT_BATCH = 100;

/**
 * The most JSON-RPC requests in one HTTP request to a chain's node (the chain service's transport batches; providers
 * cap batches, some at 50 or 100), and so the signed sends a queue broadcasts at once: each group goes in one request.
 */
export const RPC_BATCH_SIZE = 20;

/** The channel a queue NOTIFYs when sends are signed or end (at the commit), for whoever waits on one (RecordedWaits). */
export function sendQueueChannel(schema: string): string {
  return `${schema}_sends`;
}

/** The tables of the durable send queue, for the chain service's migration. */
export function sendQueueMigration(schema: string): string[] {
  const s = schemaName(schema);
  return [
    `create schema if not exists ${s}`,
    `create table ${s}.chain_senders (
       chain text not null,
       address text not null,
       next_nonce bigint not null,
       waiting text,
       primary key (chain, address)
     )`,
    `create table ${s}.chain_sends (
       id bigint generated always as identity primary key,
       chain text not null,
       sender text not null,
       idempotency_key text not null,
       to_address text not null,
       data text not null,
       value numeric(78, 0) not null,
       status text not null check (status in ('queued', 'pending', 'confirmed', 'failed')),
       nonce bigint,
       gas bigint,
       max_fee_per_gas numeric(78, 0),
       max_priority_fee_per_gas numeric(78, 0),
       raw text,
       tx_hash text,
       attempts jsonb not null default '[]',
       last_attempt_at timestamptz,
       block_number bigint,
       gas_cost numeric(78, 0),
       error text,
       created_at timestamptz not null default now(),
       finished_at timestamptz,
       unique (chain, idempotency_key),
       unique (chain, sender, nonce)
     )`,
    `create index chain_sends_open on ${s}.chain_sends (chain, sender, status, id) where status in ('queued', 'pending')`,
  ];
}

/** A send's receipt as settle reads it. */
type MinedReceipt = { status: 'success' | 'reverted'; transactionHash: Hex; blockNumber: bigint; gasUsed: bigint; effectiveGasPrice: bigint; logs: Log[] };
/** A mined send and why it failed, if it did. */
type SettledSend = { row: SendRow; receipt: MinedReceipt; error: string | undefined };

/** A chain_sends row as `select *` (or `s.*` of a join) reads it. */
export interface SendRow {
  id: string;
  chain: string;
  sender: string;
  idempotency_key: string;
  to_address: string;
  data: string;
  value: string;
  status: SendStatus;
  nonce: string | null;
  gas: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  raw: string | null;
  tx_hash: string | null;
  attempts: Hex[];
  last_attempt_at: Date | null;
  block_number: string | null;
  gas_cost: string | null;
  error: string | null;
  created_at: Date;
  /** What the send is for, where the schema records it (the chain service's). */
  kind?: string | null;
}

/** A send as a chain_sends row has it. */
export function recordOf(row: SendRow): SendRecord {
  return {
    id: row.id,
    chain: row.chain,
    sender: row.sender as Address,
    idempotencyKey: row.idempotency_key,
    to: row.to_address as Address,
    data: row.data as Hex,
    value: BigInt(row.value),
    status: row.status,
    ...(row.nonce !== null && { nonce: BigInt(row.nonce) }),
    ...(row.tx_hash !== null && { txHash: row.tx_hash as Hex }),
    attempts: row.attempts,
    ...(row.block_number !== null && { blockNumber: BigInt(row.block_number) }),
    ...(row.gas_cost !== null && { gasCost: BigInt(row.gas_cost) }),
    ...(row.error !== null && { error: row.error }),
    ...(row.kind && { kind: row.kind }),
  };
}

/**
 * The durable send queue of one hot wallet on one chain. A send is requested with an idempotency key (the
 * transaction and its step) and is sent once, whatever crashes: its nonce is assigned under a row lock in PostgreSQL,
 * and it is signed and recorded in that same transaction before it is broadcast, so a process killed at any point
 * finds, on restart, either nothing signed (and signs it) or the signed bytes (and broadcasts them again, a no-op if
 * the node has them). A transaction with no receipt after `stuckAfterMs` is replaced (same nonce, higher fees); a
 * revert, at estimation or on chain, fails the send with its reason. Run `tick()` from one loop per replica: replicas
 * share the work through the locks.
 */
export class SendQueue {
  private readonly s: string;
  private senderReady = false;
  /** Why the queue signs nothing now (checkNonce), undefined while it sends. */
  private halted: string | undefined;
  /** Why an operator's rule (the reconciliation) paused it: it signs nothing new meanwhile. */
  private paused: string | undefined;
  /** When checkNonce last ran, and what it found. */
  private nonceCheckedAt = 0;
  private nonceAgrees = true;
  /** When this replica last finished a pass of the queue (0: never): its own waitingReason is then the answer to waiting(). */
  private passedAt = 0;
  /** What recordWaiting last wrote (undefined: nothing yet). */
  private recordedWaiting: string | null | undefined;
  /** When a send last waited because the wallet could not pay for it, and why. */
  private cannotPay = 0;
  private cannotPayReason: string | undefined;
  /** When each kind of alert was last logged: one line a minute, not one a pass. */
  private readonly alerted = new Map<string, number>();
  /** The sends already reported reorganised out, so that each is reported once. */
  private readonly reorgedOut = new Set<string>();
  /**
   * This queue's sends signed and not mined, as its last pass over them found (plus what it signed since); undefined
   * until a pass has looked (every signed send not final then counts).
   */
  private unmined: number | undefined;

  constructor(private readonly options: SendQueueOptions) {
    this.s = schemaName(options.schema);
  }

  get sender(): Address {
    return this.options.signer.address;
  }

  /**
   * Queues a send, or finds the one queued with this key: the same key never sends twice. `kind` says what the send is
   * for (`sweep`, `transfer`, ...), stored in the `kind` column, which a schema that records it adds to chain_sends.
   */
  async enqueue(db: Sql, idempotencyKey: string, request: SendRequest, kind?: string): Promise<SendRecord> {
    const [kindColumn, kindValue] = kind === undefined ? ['', ''] : [', kind', ', $7'];
    const { rows } = await db.query<SendRow>(
      `with inserted as (
         insert into ${this.s}.chain_sends (chain, sender, idempotency_key, to_address, data, value, status${kindColumn})
         values ($1, $2, $3, $4, $5, $6, 'queued'${kindValue})
         on conflict (chain, idempotency_key) do nothing
         returning *
       )
       select * from inserted
       union all
       select * from ${this.s}.chain_sends where chain = $1 and idempotency_key = $3 and not exists (select 1 from inserted)`,
      [
        this.options.chain,
        this.sender,
        idempotencyKey,
        request.to,
        request.data ?? '0x',
        (request.value ?? 0n).toString(),
        ...(kind === undefined ? [] : [kind]),
      ],
    );
    if (rows[0]) return recordOf(rows[0]);
    // A concurrent enqueue of the same key committed after this statement's snapshot was taken: read it now.
    const again = await db.query<SendRow>(`select * from ${this.s}.chain_sends where chain = $1 and idempotency_key = $2`, [
      this.options.chain,
      idempotencyKey,
    ]);
    return recordOf(again.rows[0]);
  }

  /** The sends signed and not yet final, oldest nonce first (every attempt's hash in `attempts`). */
  async pending(): Promise<SendRecord[]> {
    const { rows } = await this.options.pool.query<SendRow>(
      `select * from ${this.s}.chain_sends where chain = $1 and sender = $2 and status = 'pending' order by nonce`,
      [this.options.chain, this.sender],
    );
    return rows.map(recordOf);
  }

  /** The send queued under a key (read through `db`: a transaction's own view, or the pool). */
  async find(idempotencyKey: string, db: Sql = this.options.pool): Promise<SendRecord | undefined> {
    const { rows } = await db.query<SendRow>(`select * from ${this.s}.chain_sends where chain = $1 and idempotency_key = $2`, [
      this.options.chain,
      idempotencyKey,
    ]);
    return rows[0] && recordOf(rows[0]);
  }

  private async hasQueued(): Promise<boolean> {
    const { rows } = await this.options.pool.query<{ queued: boolean }>(
      `select exists (select 1 from ${this.s}.chain_sends where chain = $1 and sender = $2 and status = 'queued') as queued`,
      [this.options.chain, this.sender],
    );
    return rows[0]!.queued;
  }

  /** Why the queue is halted (it signs nothing until the chain and the queue agree on its nonce), or undefined. */
  get haltedReason(): string | undefined {
    return this.halted;
  }

  /**
   * Why the queue's sends wait, for a caller waiting on one: halted, paused, or the wallet cannot pay for the oldest
   * (until it is funded); undefined while it sends.
   */
  get waitingReason(): string | undefined {
    return (
      this.halted ??
      (this.paused && `the chain's outbound sends are paused: ${this.paused}`) ??
      (this.cannotPay > Date.now() - 60_000 ? this.cannotPayReason : undefined)
    );
  }

  /** A send the wallet cannot pay for yet: one alert a minute saying what to do, never a warning at every pass. */
  private unpaid(fields: object): void {
    this.cannotPay = Date.now();
    this.cannotPayReason = `the hot wallet ${this.sender} cannot pay for its sends on ${this.options.chain} (value and gas): fund it with the chain's native coin`;
    this.alert('unpaid', { chain: this.options.chain, sender: this.sender, ...fields }, `send waits: ${this.cannotPayReason}`);
  }

  /** Why the queue is paused (pause), or undefined. */
  get pausedReason(): string | undefined {
    return this.paused;
  }

  /**
   * Pauses the queue with a reason (it signs nothing new; what is signed is still followed to its end), or resumes it
   * with undefined.
   */
  pause(reason: string | undefined): void {
    if (reason !== this.paused) {
      if (reason) this.options.logger.error({ chain: this.options.chain, sender: this.sender, reason }, 'send queue paused: nothing new is signed');
      else this.options.logger.warn({ chain: this.options.chain, sender: this.sender }, 'send queue resumed');
    }
    this.paused = reason;
  }

  /**
   * One pass: compare the queue's nonce with the chain's (checkNonce), sign and broadcast what is queued unless that
   * halted it, then follow what is pending to its end.
   */
  async tick(open?: OpenSends): Promise<void> {
    // The nonces are compared before anything is signed, at every pass while halted, and once a second when idle (a
    // send taken out by a reorganisation is caught within it): an idle chain's passes cost no node round trip for it.
    const queued = open ? open.queued : undefined;
    if (open && !open.pending) this.unmined = 0;
    if (this.halted || Date.now() - this.nonceCheckedAt >= NONCE_CHECK_MS || (queued ?? (await this.hasQueued()))) {
      this.nonceCheckedAt = Date.now();
      this.nonceAgrees = await this.checkNonce(open?.nextNonce);
    }
    let signed = false;
    if (this.nonceAgrees && !this.paused && queued !== false) {
      while (await this.signBatch()) {
        // until nothing is queued, or as many are in flight as the queue allows
        signed = true;
      }
    }
    if (open?.pending !== false || signed) await this.settlePending();
    await this.recordWaiting();
    this.passedAt = Date.now();
  }

  /**
   * Which senders of a chain have sends queued and signed-not-final, in one statement: a pass over several queues of
   * one chain (its lanes, its faucet) reads this once and gives each its own (tick), instead of each asking.
   */
  static async openSends(pool: Pool, schema: string, chain: string): Promise<Map<string, OpenSends>> {
    const s = schemaName(schema);
    const { rows } = await pool.query<{ sender: string; queued: boolean; pending: boolean; next_nonce: string | null }>(
      `select coalesce(o.sender, n.address) as sender, coalesce(o.queued, false) as queued, coalesce(o.pending, false) as pending, n.next_nonce::text as next_nonce
         from (select sender, bool_or(status = 'queued') as queued, bool_or(status = 'pending') as pending
                 from ${s}.chain_sends where chain = $1 and status in ('queued', 'pending') group by sender) o
         full join (select address, next_nonce from ${s}.chain_senders where chain = $1) n on n.address = o.sender`,
      [chain],
    );
    return new Map(
      rows.map((row) => [row.sender, { queued: row.queued, pending: row.pending, ...(row.next_nonce !== null && { nextNonce: BigInt(row.next_nonce) }) }]),
    );
  }

  /** The leader's waitingReason, kept in chain_senders (when it changes) for every replica's callers to read. */
  private async recordWaiting(): Promise<void> {
    const reason = this.waitingReason ?? null;
    if (reason === this.recordedWaiting) return;
    await this.options.pool.query(`update ${this.s}.chain_senders set waiting = $3 where chain = $1 and address = $2`, [
      this.options.chain,
      this.sender,
      reason,
    ]);
    this.recordedWaiting = reason;
  }

  /**
   * Why this wallet's sends wait, or undefined: as this replica knows it while it runs the queue's passes (it made one
   * within the last WAITING_FRESH_MS), else as the replica running the chain last recorded it (any replica may ask).
   */
  async waiting(): Promise<string | undefined> {
    if (Date.now() - this.passedAt < WAITING_FRESH_MS) return this.waitingReason;
    const { rows } = await this.options.pool.query<{ waiting: string | null }>(
      `select waiting from ${this.s}.chain_senders where chain = $1 and address = $2`,
      [this.options.chain, this.sender],
    );
    return rows[0]?.waiting ?? undefined;
  }

  /**
   * The queue's next nonce against the number of the wallet's transactions the chain has mined. Ahead on chain: another
   * signer uses the key, or the database is older than the chain; behind with sends the queue does not know between: the
   * chain was reset under the database. Either way nothing more is signed (it would never be mined, or replace someone
   * else's), an alert is logged, and the pass says why (haltedReason), until they agree again. Behind with sends the
   * queue knows: those not mined now are pending (settlePending follows them), or were mined and a reorganisation took
   * them out (their signed bytes are broadcast again, and reported once), unless the node is only behind their block.
   */
  private async checkNonce(recorded?: bigint): Promise<boolean> {
    const { chain, client, signer } = this.options;
    if (recorded === undefined) await this.ensureSender();
    const [next, mined] = await Promise.all([
      recorded ??
        this.options.pool
          .query<{ next_nonce: string }>(`select next_nonce from ${this.s}.chain_senders where chain = $1 and address = $2`, [chain, signer.address])
          .then(({ rows }) => BigInt(rows[0]!.next_nonce)),
      client.getTransactionCount({ address: signer.address, blockTag: 'latest' }).then(BigInt),
    ]);
    if (mined > next) {
      return this.halt(
        `the chain has mined ${mined} transactions of ${signer.address} and the queue has signed ${next}: another signer uses this key, or the database is older than the chain (locally: npm run dev:reset); nothing is sent until they agree`,
      );
    }
    if (mined < next) {
      const { rows } = await this.options.pool.query<SendRow>(
        `select * from ${this.s}.chain_sends where chain = $1 and sender = $2 and nonce >= $3 and nonce < $4 and status in ('pending', 'confirmed', 'failed') order by nonce`,
        [chain, signer.address, mined.toString(), next.toString()],
      );
      if (BigInt(rows.length) !== next - mined) {
        return this.halt(
          `the chain has mined ${mined} transactions of ${signer.address}, the queue has signed ${next} but knows only ${rows.length} of the ${next - mined} between: the chain was reset under the database (locally: npm run dev:reset); nothing is sent until they agree`,
        );
      }
      const wasMined = rows.filter((row) => row.status !== 'pending');
      if (wasMined.length > 0) await this.rebroadcastReorged(wasMined);
    }
    if (this.halted) this.options.logger.warn({ chain, sender: signer.address }, 'the chain and the send queue agree on the nonce again: sending resumes');
    this.halted = undefined;
    return true;
  }

  private halt(reason: string): false {
    this.halted = reason;
    this.alert('halted', { chain: this.options.chain, sender: this.options.signer.address, reason }, "send queue halted: its nonce and the chain's disagree");
    return false;
  }

  /**
   * Sends recorded as mined (confirmed, or reverted) whose nonce the chain no longer counts: a reorganisation took their
   * blocks away. Their signed bytes are broadcast again (the network would re-include them too), each reported once,
   * unless the node is behind the block they were in (a lagging node is not a reorganisation).
   */
  private async rebroadcastReorged(rows: SendRow[]): Promise<void> {
    const head = await this.options.client.getBlockNumber({ cacheTime: 0 });
    for (const row of rows) {
      if (row.block_number !== null && head < BigInt(row.block_number)) continue;
      if (await this.receiptOf(row.attempts)) continue;
      if (!this.reorgedOut.has(row.id)) {
        this.reorgedOut.add(row.id);
        this.options.logger.error(
          { chain: row.chain, sendId: row.id, key: row.idempotency_key, txHash: row.tx_hash, blockNumber: row.block_number },
          'a send recorded as final was reorganised out of the chain: broadcast again; an operator must check what it moved',
        );
      }
      if (row.raw) await this.broadcast(recordOf(row), row.raw as Hex);
    }
  }

  /** Logs an alert at most once a minute per kind. */
  private alert(kind: string, fields: object, message: string): void {
    const now = Date.now();
    if ((this.alerted.get(kind) ?? 0) > now - 60_000) return;
    this.alerted.set(kind, now);
    this.options.logger.error(fields, message);
  }

  /**
   * Signs the oldest queued sends (up to SIGN_BATCH, in one database transaction under the sender's lock), records
   * them, then broadcasts them in nonce order. False when nothing was signed or refused (nothing queued, or only sends
   * the wallet cannot pay for yet, which wait without holding up the ones after them).
   *
   * A send is estimated on the node's pending state, which does not hold the sends signed earlier in the same batch:
   * one that would revert there may only depend on them (a transfer of what a sweep just brought in). So a revert
   * fails a send only when it is the first estimated of its batch; otherwise the batch ends before it, and it is
   * estimated again in the next, once the earlier ones are broadcast.
   */
  private async signBatch(): Promise<boolean> {
    const { chain, chainId, client, signer } = this.options;
    await this.ensureSender();
    const signed = await withTransaction(this.options.pool, async (tx) => {
      const sender = await tx.query<{ next_nonce: string }>(`select next_nonce from ${this.s}.chain_senders where chain = $1 and address = $2 for update`, [
        chain,
        signer.address,
      ]);
      // Sends of this wallet signed and not mined yet, and whether those it depends on have any open: a send that
      // reverts at estimation may only depend on them.
      const open = await tx.query<{ pending: number; others: boolean }>(
        `select count(*) filter (where sender = $2 and status = 'pending')::int as pending, coalesce(bool_or(sender <> $2), false) as others
           from ${this.s}.chain_sends where chain = $1 and sender = any($3) and status in ('queued', 'pending')`,
        [chain, signer.address, [signer.address, ...(this.options.dependsOn ?? [])]],
      );
      const { pending, others } = open.rows[0]!;
      const room = Math.min(SIGN_BATCH, (this.options.maxPending ?? Infinity) - Math.min(this.unmined ?? pending, pending));
      if (room <= 0) return null;
      const { rows } = await tx.query<SendRow>(
        `select * from ${this.s}.chain_sends where chain = $1 and sender = $2 and status = 'queued' order by id limit ${room} for update skip locked`,
        [chain, signer.address],
      );
      if (rows.length === 0) return null;
      const fees = this.capped(await client.estimateFeesPerGas());
      const mayDependOnOpen = pending > 0 || others;
      let nonce = BigInt(sender.rows[0].next_nonce);
      const out: { row: SendRecord; raw: Hex }[] = [];
      // Estimated together (all on the same pending state), then signed one by one in order.
      const requests = rows.map((row) => ({ account: signer.address, to: row.to_address as Address, data: row.data as Hex, value: BigInt(row.value) }));
      const estimates = await Promise.allSettled(requests.map((request) => client.estimateGas({ ...request, blockTag: 'pending' })));
      // What the wallet can pay for (value plus gas at the fee ceiling of this batch): not every node's estimate says
      // when a transaction's value is more than the sender has (anvil's does not), and a send the node then refuses at
      // broadcast would leave a gap in the nonces that holds up every send after it.
      let payable = await client.getBalance({ address: signer.address, blockTag: 'pending' });
      let refused = 0;
      for (const [i, row] of rows.entries()) {
        const request = requests[i];
        const estimate = estimates[i];
        if (estimate.status === 'rejected') {
          const error: unknown = estimate.reason;
          // After sends signed in this batch, whatever the failure: they may be what it depends on (the funds a sweep
          // brings, the approval a swap needs). It is estimated again once they are broadcast.
          if (out.length > 0) break;
          if (isInsufficientFunds(error)) {
            // The wallet cannot pay for it (value and gas) yet: it stays queued, and the sends after it go on.
            this.unpaid({ sendId: row.id, key: row.idempotency_key });
            continue;
          }
          if (isTransient(error)) throw error;
          // After a send of this wallet that is not mined yet, whatever the failure: the estimate may have run on a state
          // without it (the approval a swap needs, the funds a sweep brings). It stays queued and is estimated again at
          // the next pass, for a while (REVERT_RETRY_MS), without holding up the sends after it.
          if (mayDependOnOpen && Date.now() - row.created_at.getTime() < REVERT_RETRY_MS) continue;
          // It would revert: nothing is signed, the nonce stays free, the send fails with the reason.
          const reason = revertReasonOf(error);
          await this.finish(tx, row.id, { status: 'failed', error: reason });
          this.options.logger.warn({ chain, sendId: row.id, key: row.idempotency_key, reason }, 'send refused: it would revert');
          refused += 1;
          continue;
        }
        const gas = gasLimitOf(estimate.value);
        const cost = request.value + gas * fees.maxFeePerGas;
        if (cost > payable) {
          if (out.length > 0) break;
          this.unpaid({ sendId: row.id, key: row.idempotency_key, cost: cost.toString(), payable: payable.toString() });
          continue;
        }
        payable -= cost;
        const raw = await signer.signTransaction({ ...request, chainId, type: 'eip1559', nonce: Number(nonce), gas, ...fees });
        const updated = await tx.query<SendRow>(
          `update ${this.s}.chain_sends set status = 'pending', nonce = $2, gas = $3, max_fee_per_gas = $4, max_priority_fee_per_gas = $5,
             raw = $6, tx_hash = $7, attempts = jsonb_build_array($7::text), last_attempt_at = now()
           where id = $1 returning *`,
          [row.id, nonce.toString(), gas.toString(), fees.maxFeePerGas.toString(), fees.maxPriorityFeePerGas.toString(), raw, keccak256(raw)],
        );
        out.push({ row: recordOf(updated.rows[0]), raw });
        nonce += 1n;
      }
      await tx.query(`update ${this.s}.chain_senders set next_nonce = $3 where chain = $1 and address = $2`, [chain, signer.address, nonce.toString()]);
      // Only waiting sends left: nothing changed, the next pass tries them again.
      if (out.length + refused === 0) return null;
      await tx.query(`select pg_notify($1, '')`, [sendQueueChannel(this.options.schema)]);
      return out;
    });
    if (!signed) return false;
    this.unmined = (this.unmined ?? 0) + signed.length;
    // Broadcast in nonce order, RPC_BATCH_SIZE at a time (one HTTP request each when the transport batches): a batch
    // reaches the node after the one before it, so a node that refuses a nonce ahead of its next never sees one.
    for (let i = 0; i < signed.length; i += RPC_BATCH_SIZE)
      await Promise.all(signed.slice(i, i + RPC_BATCH_SIZE).map(({ row, raw }) => this.broadcast(row, raw)));
    return true;
  }

  /** Follows each pending send: final at its depth, rebroadcast when the node lost it, replaced when stuck. */
  private async settlePending(): Promise<void> {
    const { chain, client, signer } = this.options;
    const { rows } = await this.options.pool.query<SendRow>(
      `select * from ${this.s}.chain_sends where chain = $1 and sender = $2 and status = 'pending' order by nonce`,
      [chain, signer.address],
    );
    if (rows.length === 0) {
      this.unmined = 0;
      return;
    }
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const through = await finalThrough(client, head, this.options.confirmations, this.options.finality);
    // Receipts are read concurrently (one HTTP request when the transport batches); sends are settled in nonce order.
    const receipts: Awaited<ReturnType<SendQueue['receiptOf']>>[] = [];
    for (let i = 0; i < rows.length; i += RECEIPT_BATCH)
      receipts.push(...(await Promise.all(rows.slice(i, i + RECEIPT_BATCH).map((row) => this.receiptOf(row.attempts)))));
    this.unmined = receipts.filter((receipt) => !receipt).length;
    // The sends final at their depth are settled together, in nonce order, in one transaction.
    await this.settle(rows.flatMap((row, i) => (receipts[i] && receipts[i].blockNumber <= through ? [{ row, receipt: receipts[i] }] : [])));
    for (const [i, row] of rows.entries()) {
      if (receipts[i]) continue;
      const stuckFor = Date.now() - (row.last_attempt_at?.getTime() ?? 0);
      if (stuckFor >= this.options.stuckAfterMs && (await this.replace(row))) continue;
      // Not mined: make sure the node has it (it may never have got it, if the process died after recording it).
      const known = await client.getTransaction({ hash: row.tx_hash as Hex }).catch(() => null);
      if (!known && row.raw) await this.broadcast(recordOf(row), row.raw as Hex);
    }
  }

  /** The receipt of whichever attempt of a send was mined (the latest first), or undefined while none is. */
  async receiptOf(attempts: readonly Hex[]) {
    for (const hash of [...attempts].reverse()) {
      try {
        return await this.options.client.getTransactionReceipt({ hash });
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
      }
    }
    return undefined;
  }

  /**
   * Records the outcome of sends mined at their depth, in one database transaction (one commit for the pass, not one
   * per send): each send's status, and what its finish brings (onFinished: its event, its books). When that fails, each
   * is settled again on its own, in nonce order, so that the sends before one that cannot be settled are.
   */
  private async settle(mined: { row: SendRow; receipt: MinedReceipt }[]): Promise<void> {
    if (mined.length === 0) return;
    const outcomes: SettledSend[] = [];
    for (const { row, receipt } of mined) outcomes.push({ row, receipt, error: await this.failureOf(row, receipt) });
    if (outcomes.length === 1) return this.record(outcomes);
    try {
      await this.record(outcomes);
    } catch (error) {
      this.options.logger.warn(
        { chain: this.options.chain, sender: this.sender, sends: outcomes.length, error: String((error as Error)?.message ?? error) },
        'settling final sends together failed; settling them one by one',
      );
      for (const outcome of outcomes) await this.record([outcome]);
    }
  }

  /** Makes sends final in one transaction, and says which failed once it has committed. */
  private async record(outcomes: SettledSend[]): Promise<void> {
    const finished = await withTransaction(this.options.pool, async (tx) => {
      const made: { outcome: SettledSend; send: SendRecord | undefined }[] = [];
      for (const outcome of outcomes) {
        const { row, receipt, error } = outcome;
        const send = await this.finish(
          tx,
          row.id,
          {
            status: receipt.status === 'success' && error === undefined ? 'confirmed' : 'failed',
            txHash: receipt.transactionHash,
            blockNumber: receipt.blockNumber,
            gasCost: gasCost(receipt.gasUsed, receipt.effectiveGasPrice),
            ...(error !== undefined && { error }),
          },
          receipt.logs,
        );
        made.push({ outcome, send });
      }
      return made;
    });
    for (const { outcome, send } of finished) {
      const { row, receipt, error } = outcome;
      if (send?.status === 'failed' && receipt.status === 'success') {
        this.options.logger.error(
          { chain: row.chain, sendId: row.id, key: row.idempotency_key, txHash: send.txHash, reason: error },
          'send mined without the effect it was for: failed; an operator must look',
        );
      } else if (send?.status === 'failed') this.options.logger.warn({ chain: row.chain, sendId: row.id, txHash: send.txHash, reason: error }, 'send reverted');
    }
  }

  /** Why a mined send failed (reverted, or mined without the effect it was for: `verify`), or undefined. */
  private async failureOf(row: SendRow, receipt: MinedReceipt): Promise<string | undefined> {
    if (receipt.status === 'success') return this.options.verify?.(recordOf(row), receipt.logs);
    // The node keeps no reason with a receipt: the call is replayed on the state of its block to read it.
    return this.options.client
      .call({
        account: this.sender,
        to: row.to_address as Address,
        data: row.data as Hex,
        value: BigInt(row.value),
        gas: BigInt(row.gas ?? 0) || undefined,
        blockNumber: receipt.blockNumber,
      })
      .then(
        () => 'execution reverted (the replay on its block did not revert: the reason depended on the order within the block)',
        (failure: unknown) => (isRevert(failure) ? revertReasonOf(failure) : 'execution reverted (the reason could not be read from the node)'),
      );
  }

  /** Signs the same nonce again with higher fees; false when the ceiling forbids it (the send waits as it is). */
  private async replace(row: SendRow): Promise<boolean> {
    const { chainId, client, signer, logger } = this.options;
    const stuck: Eip1559Fees = { maxFeePerGas: BigInt(row.max_fee_per_gas ?? 0), maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas ?? 0) };
    const fees = replacementFees(stuck, await client.estimateFeesPerGas(), this.options.maxFeePerGas);
    if (!fees) {
      this.alert(
        'ceiling',
        { chain: row.chain, sendId: row.id, txHash: row.tx_hash, maxFeePerGas: this.options.maxFeePerGas.toString() },
        'send stuck at the fee ceiling (CHAIN_MAX_FEE_GWEI): not replaced; raise the ceiling or wait for fees to fall',
      );
      return false;
    }
    const raw = await signer.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: Number(row.nonce),
      to: row.to_address as Address,
      data: row.data as Hex,
      value: BigInt(row.value),
      gas: BigInt(row.gas ?? 0),
      ...fees,
    });
    const hash = keccak256(raw);
    const { rows } = await this.options.pool.query<SendRow>(
      `update ${this.s}.chain_sends set max_fee_per_gas = $2, max_priority_fee_per_gas = $3, raw = $4, tx_hash = $5,
         attempts = attempts || jsonb_build_array($5::text), last_attempt_at = now()
       where id = $1 and status = 'pending' and tx_hash = $6 returning *`,
      [row.id, fees.maxFeePerGas.toString(), fees.maxPriorityFeePerGas.toString(), raw, hash, row.tx_hash],
    );
    if (!rows[0]) return true;
    logger.info(
      { chain: row.chain, sendId: row.id, replaced: row.tx_hash, txHash: hash, maxFeePerGas: fees.maxFeePerGas.toString() },
      'stuck send replaced with higher fees',
    );
    await this.broadcast(recordOf(rows[0]), raw);
    return true;
  }

  private async broadcast(send: SendRecord, raw: Hex): Promise<void> {
    try {
      await this.options.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // Already known, or its nonce already mined (this attempt or another of the same send): the receipts tell.
      this.options.logger.warn(
        { chain: send.chain, sendId: send.id, txHash: send.txHash, err: revertReasonOf(error) },
        'broadcast refused; the send is followed by its receipts',
      );
    }
  }

  private async finish(
    tx: PoolClient,
    id: string,
    outcome: { status: 'confirmed' | 'failed'; txHash?: Hex; blockNumber?: bigint; gasCost?: bigint; error?: string },
    logs: readonly Log[] = [],
  ): Promise<SendRecord | undefined> {
    const { rows } = await tx.query<SendRow>(
      `update ${this.s}.chain_sends set status = $2, tx_hash = coalesce($3, tx_hash), block_number = $4, gas_cost = $5, error = $6, finished_at = now()
       where id = $1 and status in ('queued', 'pending') returning *`,
      [id, outcome.status, outcome.txHash ?? null, outcome.blockNumber?.toString() ?? null, outcome.gasCost?.toString() ?? null, outcome.error ?? null],
    );
    // Another replica finished it first: its transaction ran onFinished, this one does nothing.
    if (!rows[0]) return undefined;
    await tx.query(`select pg_notify($1, '')`, [sendQueueChannel(this.options.schema)]);
    const record = recordOf(rows[0]);
    await this.options.onFinished?.(tx, record, logs);
    return record;
  }

  private capped(fees: Eip1559Fees): Eip1559Fees {
    const cap = this.options.maxFeePerGas;
    if (fees.maxFeePerGas > cap) {
      // Capped below what the network asks: the sends may never be mined. Said loudly, not left to block the queue.
      this.alert(
        'ceiling',
        { chain: this.options.chain, asked: fees.maxFeePerGas.toString(), ceiling: cap.toString() },
        'the network asks a higher fee than the ceiling (CHAIN_MAX_FEE_GWEI): sends are signed at the ceiling and may wait',
      );
    }
    const maxFeePerGas = fees.maxFeePerGas > cap ? cap : fees.maxFeePerGas;
    return { maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : fees.maxPriorityFeePerGas };
  }

  /** The sender's row, created at the chain's pending nonce the first time the wallet sends through the queue. */
  private async ensureSender(): Promise<void> {
    if (this.senderReady) return;
    const { chain, client, signer } = this.options;
    const { rowCount } = await this.options.pool.query(`select 1 from ${this.s}.chain_senders where chain = $1 and address = $2`, [chain, signer.address]);
    if (rowCount) {
      this.senderReady = true;
      return;
    }
    const nonce = await client.getTransactionCount({ address: signer.address, blockTag: 'pending' });
    await this.options.pool.query(`insert into ${this.s}.chain_senders (chain, address, next_nonce) values ($1, $2, $3) on conflict do nothing`, [
      chain,
      signer.address,
      nonce,
    ]);
    this.senderReady = true;
  }
}
