import type { Pool } from 'pg';
import { encodeFunctionData, erc20Abi, maxUint256, type Address } from 'viem';
import { leastLoaded } from '@ramp/chains';
import { schemaName, type Sql } from '@ramp/database';
import { SendQueue, type SendRecord, type SendRequest } from '@ramp/evm';
import type { ChainToken } from './platform-contracts';

/** How often the chain's leader looks at its lanes' gas and approvals, at most. */
const MAINTAIN_MS = 2000;

/** How long a lane found not ready for a token is taken as not ready before it is looked up again. */
const NOT_READY_MS = 1000;

export interface LaneOptions {
  /** The schema of the send tables, with their `kind` column (the chain service's: CHAIN_SCHEMA). */
  schema: string;
  /** The chain's id in the send tables (`test-base`). */
  chain: string;
  pool: Pool;
  /** The hot wallet's queue first, then the other lanes'. */
  queues: readonly SendQueue[];
  /** What each lane other than the hot wallet is topped up to, in base units of the native coin. */
  gas: bigint;
}

/** What the hot wallet queues for its lanes, through the chain's context (recorded with its kind, after its checks). */
export interface LaneSends {
  /** A send of the hot wallet to a lane (its gas, kind `gas`). */
  enqueueGas(db: Sql, key: string, request: SendRequest): Promise<SendRecord>;
  /** The hot wallet's approval of a spender for a token, queued unless one is queued or done (ChainContext.approveSpender). */
  approveSpender(db: Sql, spender: Address, token: ChainToken): Promise<void>;
  balanceOf(holder: Address): Promise<bigint>;
}

/**
 * A chain's send lanes: the hot wallet's own queue (lane 0) and the queues of `lanes - 1` more keys, so that the chain's
 * token transfers are signed, broadcast and followed in parallel rather than one nonce after another. The hot wallet
 * keeps every token: a lane moves them with `transferFrom(hot wallet, to, amount)` under the hot wallet's allowance, and
 * holds only its gas, topped up by the hot wallet. Everything else the hot wallet does itself (sweeps, whose factory
 * answers only to it; swaps and bridge deposits, which spend the sender's own tokens; transfers of the native coin;
 * approvals; the lanes' gas). A lane takes a token's transfers once its allowance and its first gas are confirmed; each
 * transfer goes to the ready lane with the fewest open sends (a stuck lane gets none; the hot wallet only when it has
 * fewer than every other), under the same idempotency keys.
 */
export class SendLanes {
  private readonly ready = new Set<string>();
  private readonly notReadyAt = new Map<string, number>();
  private maintainedAt = 0;
  /** Each queue's pass under way (tick). */
  private readonly running = new Map<SendQueue, Promise<void>>();
  private readonly s: string;

  constructor(private readonly options: LaneOptions) {
    this.s = schemaName(options.schema);
  }

  /** The hot wallet's own queue. */
  get hot(): SendQueue {
    return this.options.queues[0]!;
  }

  get queues(): readonly SendQueue[] {
    return this.options.queues;
  }

  /** The lane whose key is `sender`, if it is one of this chain's. */
  of(sender: Address): SendQueue | undefined {
    return this.options.queues.find((queue) => queue.sender.toLowerCase() === sender.toLowerCase());
  }

  /**
   * The queue and the call of a transfer of `units` of `token` to `to`: the native coin from the hot wallet itself; a
   * token from the ready lane with the fewest open sends, as the hot wallet's own `transfer`, or a lane's `transferFrom`.
   */
  async route(db: Sql, token: ChainToken, native: boolean, to: Address, units: bigint): Promise<{ queue: SendQueue; request: SendRequest }> {
    if (native) return { queue: this.hot, request: { to, value: units } };
    const queue = await this.pick(db, token);
    const data =
      queue === this.hot
        ? encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, units] })
        : encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [this.hot.sender, to, units] });
    return { queue, request: { to: token.address, data } };
  }

  private async pick(db: Sql, token: ChainToken): Promise<SendQueue> {
    // The hot wallet last: on a tie a transfer takes another lane, since the hot wallet's queue carries everything
    // else (sweeps, swaps, approvals, the lanes' gas).
    const [hot, ...others] = await this.readyFor(db, token);
    const lanes = [...others, hot!];
    if (lanes.length === 1) return hot!;
    const { rows } = await db.query<{ sender: string; open: number }>(
      `select sender, count(*)::int as open from ${this.s}.chain_sends where chain = $1 and sender = any($2) and status in ('queued', 'pending') group by sender`,
      [this.options.chain, lanes.map((lane) => lane.sender)],
    );
    const open = new Map(rows.map((row) => [row.sender, row.open]));
    return lanes[leastLoaded(lanes.map((lane) => open.get(lane.sender) ?? 0))]!;
  }

  /** The lanes that may send `token` now: the hot wallet, and each lane whose allowance and first gas are confirmed. */
  private async readyFor(db: Sql, token: ChainToken): Promise<SendQueue[]> {
    const [hot, ...others] = this.options.queues;
    const unknown = others.filter(
      (lane) =>
        !this.ready.has(`${lane.sender}:${token.address}`) && Date.now() - (this.notReadyAt.get(`${lane.sender}:${token.address}`) ?? 0) >= NOT_READY_MS,
    );
    if (unknown.length > 0) {
      const { rows } = await db.query<{ lane: string }>(
        `select a.lane from unnest($2::text[], $3::text[]) as a (lane, approval)
          where exists (select 1 from ${this.s}.chain_sends s where s.chain = $1 and s.kind = 'approve' and s.to_address = $4 and s.data = a.approval and s.status = 'confirmed')
            and exists (select 1 from ${this.s}.chain_sends s where s.chain = $1 and s.kind = 'gas' and s.to_address = a.lane and s.status = 'confirmed')`,
        [this.options.chain, unknown.map((lane) => lane.sender), unknown.map((lane) => approvalOf(lane.sender)), token.address],
      );
      const found = new Set(rows.map((row) => row.lane));
      for (const lane of unknown) {
        const key = `${lane.sender}:${token.address}`;
        if (found.has(lane.sender)) this.ready.add(key);
        else this.notReadyAt.set(key, Date.now());
      }
    }
    return [hot!, ...others.filter((lane) => this.ready.has(`${lane.sender}:${token.address}`))];
  }

  /**
   * The leader's care of its lanes, every few seconds: each lane's allowance of every token queued (once for good), and
   * its gas topped up to `gas` from the hot wallet when it is below half of it (one top-up open at a time per lane).
   */
  async maintain(tokens: readonly ChainToken[], sends: LaneSends): Promise<void> {
    if (this.options.queues.length === 1 || Date.now() - this.maintainedAt < MAINTAIN_MS) return;
    this.maintainedAt = Date.now();
    const { pool, chain, gas } = this.options;
    for (const lane of this.options.queues.slice(1)) {
      for (const token of tokens) if (!this.ready.has(`${lane.sender}:${token.address}`)) await sends.approveSpender(pool, lane.sender, token);
      const { rows } = await pool.query<{ id: string; status: string }>(
        `select id, status from ${this.s}.chain_sends where chain = $1 and kind = 'gas' and to_address = $2 order by id desc limit 1`,
        [chain, lane.sender],
      );
      const last = rows[0];
      if (last && (last.status === 'queued' || last.status === 'pending')) continue;
      const balance = await sends.balanceOf(lane.sender);
      if (balance * 2n >= gas) continue;
      await sends.enqueueGas(pool, `gas:${lane.sender.toLowerCase()}:${last ? `after:${last.id}` : 'first'}`, { to: lane.sender, value: gas - balance });
    }
  }

  /**
   * One pass of every lane, all at once: which have sends open is read in one statement, and a lane with none costs no
   * round trip but its nonce check once a second. A lane that fails is reported and the others go on. A queue whose
   * pass is still under way (a long batch to sign and settle) is left to it and not started again; the pass returns
   * once any queue's pass has ended, so that one busy queue (the hot wallet's swaps) does not hold up the others (the
   * faucet's, a lane's) nor the chain's other parts.
   */
  async tick(extra: readonly SendQueue[], onError: (queue: SendQueue, error: unknown) => void): Promise<void> {
    // Which queues start is decided before the read: a queue whose pass ends during it must not start on what the read
    // saw of it while that pass still ran (it would count its just-signed sends as none, and sign past its cap).
    const idle = [...this.options.queues, ...extra].filter((queue) => !this.running.has(queue));
    const open = await SendQueue.openSends(this.options.pool, this.options.schema, this.options.chain);
    const none = { queued: false, pending: false };
    for (const queue of idle) {
      const pass = queue
        .tick(open.get(queue.sender) ?? none)
        .catch((error: unknown) => onError(queue, error))
        .finally(() => this.running.delete(queue));
      this.running.set(queue, pass);
    }
    if (this.running.size > 0) await Promise.race(this.running.values());
  }

  /** Until every queue's pass under way has ended (before the chain's leadership is given up). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  /** Pauses every lane with a reason, or resumes them (undefined). */
  pause(reason: string | undefined): void {
    for (const queue of this.options.queues) queue.pause(reason);
  }

  /** The sends of every lane signed and not final yet. */
  async pending(): Promise<SendRecord[]> {
    return (await Promise.all(this.options.queues.map((queue) => queue.pending()))).flat();
  }
}

/** The hot wallet's approval of a lane for a token, exactly as ChainContext.approveSpender queues it. */
function approvalOf(lane: Address): string {
  return encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [lane, maxUint256] });
}
