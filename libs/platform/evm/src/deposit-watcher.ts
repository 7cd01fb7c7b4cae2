import type { Pool, PoolClient } from 'pg';
import { BlockNotFoundError, parseAbiItem, type Address, type Hex, type PublicClient } from 'viem';
import { afterConfirmed, afterReorg, afterSeen, confirmedThrough, forkPoint, type DepositState, type DepositStatus } from '@ramp/chains';
import { schemaName, withTransaction, type Sql } from '@ramp/database';
import type { Finality } from './chain-settings';
import type { ChainLogger } from './chain-logger';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** The stand-in "token" of the native coin in deposit rows. */
/** Lower case, as every address of a deposit row and of a Deposit. */
export const NATIVE_TOKEN: Address = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

export interface Deposit {
  chain: string;
  txHash: Hex;
  /** The log's index in its block; -1 for a native coin transfer (the transaction's value). */
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
  /** The token's contract, or NATIVE_TOKEN. */
  token: Address;
  from: Address;
  to: Address;
  /** Base units. */
  amount: bigint;
  status: DepositStatus;
  credited: boolean;
}

export interface DepositWatcherOptions {
  schema: string;
  pool: Pool;
  chain: string;
  client: PublicClient;
  /** The ERC-20 contracts whose Transfer logs count as deposits. */
  tokens: Address[];
  /** Also watch native coin transfers (transaction values) to watched addresses. */
  native: boolean;
  confirmations: number;
  /** `safe`/`finalized`: a deposit is also confirmed only at or below the node's block of that tag (default `depth`). */
  finality?: Finality;
  /** Where a chain seen for the first time starts (default: its head when first watched). */
  startBlock?: bigint;
  /** Most blocks read per getLogs call. */
  maxRange?: number;
  logger: ChainLogger;
  /** Called once per deposit, in the transaction that confirms it: the ledger credit. */
  onCredit: (tx: PoolClient, deposit: Deposit) => Promise<void>;
  /** Called in the transaction that records it, when a reorganisation removed an already credited deposit. */
  onReversed?: (tx: PoolClient, deposit: Deposit) => Promise<void>;
  /**
   * Called in the transaction of a rewind, with the first block the reorganisation replaced: what else the chain
   * service recorded as landed from there on (a managed wallet's operations) is looked at again.
   */
  onRewound?: (tx: PoolClient, fork: bigint) => Promise<void>;
}

/**
 * The highest block whose transactions count as final at `head`: `depth` confirmations, and for `safe` or `finalized`
 * also at or below the node's block of that tag (which a node gives only for a chain that has one).
 */
export async function finalThrough(client: PublicClient, head: bigint, depth: number, finality: Finality = 'depth'): Promise<bigint> {
  const byDepth = confirmedThrough(head, depth);
  if (finality === 'depth') return byDepth;
  const tagged = (await client.getBlock({ blockTag: finality })).number;
  return tagged < byDepth ? tagged : byDepth;
}

/**
 * How many of the newest blocks up to its checkpoint the watcher keeps the hashes of (chain_blocks), for a chain
 * counting `confirmations`: the depth and 64 more, to find a fork point below a deep reorganisation. Below them no
 * fork is looked for.
 */
export function watcherWindow(confirmations: number): number {
  return confirmations + 64;
}

/** The tables of the deposit watcher, for the chain service's migration. */
export function depositWatcherMigration(schema: string): string[] {
  const s = schemaName(schema);
  return [
    `create schema if not exists ${s}`,
    `create table ${s}.chain_watched (
       chain text not null,
       address text not null,
       owner text not null,
       created_at timestamptz not null default now(),
       primary key (chain, address)
     )`,
    `create table ${s}.chain_checkpoints (chain text primary key, block_number bigint not null)`,
    `create table ${s}.chain_blocks (chain text not null, number bigint not null, hash text not null, primary key (chain, number))`,
    `create table ${s}.chain_deposits (
       chain text not null,
       tx_hash text not null,
       log_index integer not null,
       block_number bigint not null,
       block_hash text not null,
       token text not null,
       from_address text not null,
       to_address text not null,
       amount numeric(78, 0) not null check (amount > 0),
       status text not null check (status in ('seen', 'confirmed', 'dropped', 'reversed')),
       credited boolean not null default false,
       seen_at timestamptz not null default now(),
       confirmed_at timestamptz,
       primary key (chain, tx_hash, log_index)
     )`,
    `create index chain_deposits_open on ${s}.chain_deposits (chain, block_number) where status = 'seen'`,
  ];
}

interface DepositRow {
  chain: string;
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  amount: string;
  status: DepositStatus;
  credited: boolean;
}

function depositOf(row: DepositRow): Deposit {
  return {
    chain: row.chain,
    txHash: row.tx_hash as Hex,
    logIndex: row.log_index,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash as Hex,
    token: row.token as Address,
    from: row.from_address as Address,
    to: row.to_address as Address,
    amount: BigInt(row.amount),
    status: row.status,
    credited: row.credited,
  };
}

type Seen = Omit<Deposit, 'status' | 'credited'>;

/**
 * Follows one chain for deposits to watched addresses: ERC-20 Transfer logs of the listed tokens and native coin
 * transfers. Each block scanned is remembered with its hash; a block whose hash changed is a reorganisation, and the
 * deposits above the fork are dropped (unconfirmed) or reversed (already credited: onReversed takes the credit back).
 * A deposit is credited once, in the transaction that confirms it at the depth, and again only after a reversal, if
 * the chain takes the same transfer back in: never two credits standing at once. The checkpoint moves in the transaction that
 * records what was found, so a restart (or an RPC outage) resumes where it stopped, without a gap or a double count.
 */
export class DepositWatcher {
  private readonly s: string;
  /** Blocks kept beyond the depth, to find a fork point below a deep reorganisation. */
  private readonly window: number;

  constructor(private readonly options: DepositWatcherOptions) {
    this.s = schemaName(options.schema);
    this.window = watcherWindow(options.confirmations);
  }

  async watch(db: Sql, address: Address, owner: string): Promise<void> {
    await db.query(`insert into ${this.s}.chain_watched (chain, address, owner) values ($1, $2, $3) on conflict do nothing`, [
      this.options.chain,
      address.toLowerCase(),
      owner,
    ]);
  }

  async deposits(address?: Address): Promise<Deposit[]> {
    const { rows } = await this.options.pool.query<DepositRow>(
      `select * from ${this.s}.chain_deposits where chain = $1 and ($2::text is null or to_address = $2) order by block_number, log_index`,
      [this.options.chain, address?.toLowerCase() ?? null],
    );
    return rows.map(depositOf);
  }

  /** The last block scanned (undefined before the first tick). */
  async checkpoint(): Promise<bigint | undefined> {
    const { rows } = await this.options.pool.query<{ block_number: string }>(`select block_number from ${this.s}.chain_checkpoints where chain = $1`, [
      this.options.chain,
    ]);
    return rows[0] ? BigInt(rows[0].block_number) : undefined;
  }

  /**
   * The checkpoint and the newest blocks remembered (newest first, at most the window), in one statement: what a pass
   * starts from. Only the chain's leader writes them, so they hold for its whole pass unless it rewinds them.
   */
  private async recorded(): Promise<{ checkpoint: bigint | undefined; blocks: { number: bigint; hash: string }[] }> {
    const { rows } = await this.options.pool.query<{ checkpoint: string | null; blocks: { number: string; hash: string }[] }>(
      `select (select block_number::text from ${this.s}.chain_checkpoints where chain = $1) as checkpoint,
              coalesce((select json_agg(json_build_object('number', number::text, 'hash', hash) order by number desc)
                          from (select number, hash from ${this.s}.chain_blocks where chain = $1 order by number desc limit $2) newest), '[]'::json) as blocks`,
      [this.options.chain, this.window],
    );
    const row = rows[0]!;
    return {
      checkpoint: row.checkpoint === null ? undefined : BigInt(row.checkpoint),
      blocks: row.blocks.map((block) => ({ number: BigInt(block.number), hash: block.hash })),
    };
  }

  /** One pass: undo what a reorganisation removed, scan new blocks up to the head, credit what reached the depth. */
  async tick(): Promise<void> {
    const head = await this.options.client.getBlockNumber({ cacheTime: 0 });
    let known = await this.recorded();
    const rewound = await this.rewindReorg(head, known.blocks);
    if (rewound === false) return;
    if (rewound === 'rewound') known = await this.recorded();
    const recorded = known.checkpoint;
    let from: bigint = recorded ?? (this.options.startBlock ?? head + 1n) - 1n;
    if (recorded === undefined) {
      await this.options.pool.query(`insert into ${this.s}.chain_checkpoints (chain, block_number) values ($1, $2) on conflict do nothing`, [
        this.options.chain,
        from.toString(),
      ]);
    }
    const step = BigInt(this.options.maxRange ?? 500);
    // The parent of the first block scanned is the newest remembered (a scan must extend it).
    let parent = known.blocks.find((block) => block.number === from)?.hash;
    while (from < head) {
      const to: bigint = from + step < head ? from + step : head;
      if (!(await this.scan(from + 1n, to, parent))) return;
      from = to;
      parent = undefined;
    }
    // `from` is the checkpoint now: what was recorded, or the last block a scan recorded it at.
    await this.confirm(head, from);
  }

  /**
   * Compares the remembered hashes (`rows`, newest first) with the chain's; above a fork, deposits are undone and blocks
   * scanned again ('rewound': the checkpoint moved back). False when the node answering is behind the last block scanned
   * (a lagging node behind a load balancer, a node catching up after a restart): a block it does not have yet is not a
   * reorganisation, so nothing is compared, undone or scanned until it has caught up.
   */
  private async rewindReorg(head: bigint, rows: readonly { number: bigint; hash: string }[]): Promise<boolean | 'rewound'> {
    const { chain } = this.options;
    if (rows.length === 0) return true;
    const recorded = new Map(rows.map((row) => [row.number, row.hash]));
    // The newest block first: when it is unchanged, every block below it is too (each hash covers its parent).
    const newest = rows[0]!.number;
    if (head < newest) return this.behind(head, newest);
    const top = await this.blockOrMissing(newest);
    if (!top) return this.behind(head, newest);
    if (top.hash?.toLowerCase() === rows[0]!.hash.toLowerCase()) return true;
    const canonical = new Map<bigint, string | undefined>();
    for (const number of recorded.keys()) {
      const block = await this.blockOrMissing(number);
      // Every number up to the head it answered must be there: one missing is a node changing under the pass.
      if (!block) return this.behind(head, number);
      canonical.set(number, block.hash ?? undefined);
    }
    const fork = forkPoint(recorded, canonical);
    if (fork === undefined) return true;
    await withTransaction(this.options.pool, async (tx) => {
      // The checkpoint's row first: what makes a landing final elsewhere (an account's operation) holds it while it
      // commits, so that the rewind below either sees that commit or makes it see the checkpoint moved below the fork.
      await tx.query(`select 1 from ${this.s}.chain_checkpoints where chain = $1 for update`, [chain]);
      const affected = await tx.query<DepositRow>(`select * from ${this.s}.chain_deposits where chain = $1 and block_number >= $2 for update`, [
        chain,
        fork.toString(),
      ]);
      for (const row of affected.rows) {
        const { next, report } = afterReorg({ status: row.status, credited: row.credited });
        await this.setState(tx, row, next);
        if (report) {
          this.options.logger.error(
            { chain, txHash: row.tx_hash, logIndex: row.log_index, amount: row.amount, to: row.to_address },
            'a reorganisation removed a credited deposit',
          );
          await this.options.onReversed?.(tx, { ...depositOf(row), ...next });
        }
      }
      await this.options.onRewound?.(tx, fork);
      await tx.query(`delete from ${this.s}.chain_blocks where chain = $1 and number >= $2`, [chain, fork.toString()]);
      await tx.query(`update ${this.s}.chain_checkpoints set block_number = least(block_number, $2) where chain = $1`, [chain, (fork - 1n).toString()]);
    });
    this.options.logger.warn({ chain, fork: fork.toString(), deposits: 'rescanned' }, 'chain reorganisation: blocks from the fork are scanned again');
    return 'rewound';
  }

  private behind(head: bigint, missing: bigint): false {
    this.options.logger.warn(
      { chain: this.options.chain, head: head.toString(), lastScanned: missing.toString() },
      'the node is behind the last block scanned: waiting for it to catch up',
    );
    return false;
  }

  /**
   * A block, or undefined when the chain has no block of that number (it got shorter). Any other failure (a timeout, a
   * rate limit) is thrown: it must never pass for a reorganisation.
   */
  private async blockOrMissing(number: bigint) {
    try {
      return await this.options.client.getBlock({ blockNumber: number });
    } catch (error) {
      if (error instanceof BlockNotFoundError) return undefined;
      throw error;
    }
  }

  /** `parentHash`: the remembered hash of `fromBlock - 1` when the caller has it (read again otherwise). */
  private async scan(fromBlock: bigint, toBlock: bigint, parentHash?: string): Promise<boolean> {
    const { chain, client, tokens } = this.options;
    const watched = await this.watchedSet();
    const found: Seen[] = [];
    if (watched.size > 0 && tokens.length > 0) {
      const addresses = [...watched] as Address[];
      for (let i = 0; i < addresses.length; i += 200) {
        const logs = await client.getLogs({ address: tokens, event: TRANSFER, args: { to: addresses.slice(i, i + 200) }, fromBlock, toBlock });
        for (const log of logs) {
          if (log.removed || !log.args.to || !log.args.from || !log.args.value) continue;
          found.push({
            chain,
            txHash: log.transactionHash,
            logIndex: log.logIndex,
            blockNumber: log.blockNumber,
            blockHash: log.blockHash,
            token: log.address,
            from: log.args.from,
            to: log.args.to,
            amount: log.args.value,
          });
        }
      }
    }
    // Every block of the range is read and must extend the one before it (and the last block recorded): a scan that
    // straddles a reorganisation records nothing, and the next tick finds the fork.
    const blocks: { number: bigint; hash: Hex }[] = [];
    const keepFrom = toBlock - BigInt(this.window) + 1n;
    const readBody = this.options.native && watched.size > 0;
    const before =
      parentHash === undefined
        ? (
            await this.options.pool.query<{ hash: string }>(`select hash from ${this.s}.chain_blocks where chain = $1 and number = $2`, [
              chain,
              (fromBlock - 1n).toString(),
            ])
          ).rows[0]?.hash
        : parentHash;
    let parent: string | undefined = before?.toLowerCase();
    for (let number = fromBlock; number <= toBlock; number++) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: readBody });
      if (parent !== undefined && block.parentHash.toLowerCase() !== parent) return this.moved(fromBlock, toBlock);
      parent = block.hash.toLowerCase();
      blocks.push({ number, hash: block.hash });
      if (!readBody) continue;
      for (const transaction of block.transactions) {
        if (typeof transaction === 'string' || !transaction.to || transaction.value === 0n || !watched.has(transaction.to.toLowerCase())) continue;
        const receipt = await client.getTransactionReceipt({ hash: transaction.hash });
        if (receipt.status !== 'success') continue;
        found.push({
          chain,
          txHash: transaction.hash,
          logIndex: -1,
          blockNumber: number,
          blockHash: block.hash,
          token: NATIVE_TOKEN,
          from: transaction.from,
          to: transaction.to,
          amount: transaction.value,
        });
      }
    }
    // A log from a block other than the one read means the chain moved under the scan.
    const hashes = new Map(blocks.map((block) => [block.number, block.hash.toLowerCase()]));
    if (found.some((deposit) => hashes.get(deposit.blockNumber) !== deposit.blockHash.toLowerCase())) return this.moved(fromBlock, toBlock);
    await withTransaction(this.options.pool, async (tx) => {
      for (const deposit of found) await this.recordSeen(tx, deposit);
      for (const block of blocks.filter((kept) => kept.number >= keepFrom)) {
        await tx.query(
          `insert into ${this.s}.chain_blocks (chain, number, hash) values ($1, $2, $3) on conflict (chain, number) do update set hash = excluded.hash`,
          [chain, block.number.toString(), block.hash],
        );
      }
      await tx.query(`delete from ${this.s}.chain_blocks where chain = $1 and number < $2`, [chain, keepFrom.toString()]);
      await tx.query(`update ${this.s}.chain_checkpoints set block_number = $2 where chain = $1`, [chain, toBlock.toString()]);
    });
    return true;
  }

  private moved(fromBlock: bigint, toBlock: bigint): false {
    this.options.logger.warn(
      { chain: this.options.chain, fromBlock: fromBlock.toString(), toBlock: toBlock.toString() },
      'the chain moved during a scan; scanning again',
    );
    return false;
  }

  private async recordSeen(tx: PoolClient, deposit: Seen): Promise<void> {
    const key = [deposit.chain, deposit.txHash, deposit.logIndex];
    const { rows } = await tx.query<DepositRow>(`select * from ${this.s}.chain_deposits where chain = $1 and tx_hash = $2 and log_index = $3 for update`, key);
    let existing = rows[0];
    if (!existing) {
      // A log's index counts within its block: the same transfer, back in another block after a reorganisation, can
      // come with another index. It is the same deposit (never a second credit) when a dropped or reversed row of the
      // same transaction moved the same amount of the same token between the same addresses.
      const same = await tx.query<DepositRow>(
        `select * from ${this.s}.chain_deposits where chain = $1 and tx_hash = $2 and token = $3 and from_address = $4 and to_address = $5 and amount = $6
           and status in ('dropped', 'reversed') order by log_index limit 1 for update`,
        [deposit.chain, deposit.txHash, deposit.token.toLowerCase(), deposit.from.toLowerCase(), deposit.to.toLowerCase(), deposit.amount.toString()],
      );
      existing = same.rows[0];
      if (existing && existing.log_index !== deposit.logIndex) {
        await tx.query(`update ${this.s}.chain_deposits set log_index = $4 where chain = $1 and tx_hash = $2 and log_index = $3`, [
          deposit.chain,
          deposit.txHash,
          existing.log_index,
          deposit.logIndex,
        ]);
      }
    }
    const next = afterSeen(existing && { status: existing.status, credited: existing.credited });
    if (existing?.status === 'reversed') {
      this.options.logger.warn(
        { chain: deposit.chain, txHash: deposit.txHash, logIndex: deposit.logIndex, blockNumber: deposit.blockNumber.toString() },
        'a reversed deposit is back in the chain: it is credited again once confirmed',
      );
    }
    if (!existing) {
      await tx.query(
        `insert into ${this.s}.chain_deposits (chain, tx_hash, log_index, block_number, block_hash, token, from_address, to_address, amount, status, credited)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          ...key,
          deposit.blockNumber.toString(),
          deposit.blockHash,
          deposit.token.toLowerCase(),
          deposit.from.toLowerCase(),
          deposit.to.toLowerCase(),
          deposit.amount.toString(),
          next.status,
          next.credited,
        ],
      );
      return;
    }
    await tx.query(`update ${this.s}.chain_deposits set status = $4, block_number = $5, block_hash = $6 where chain = $1 and tx_hash = $2 and log_index = $3`, [
      ...key,
      next.status,
      deposit.blockNumber.toString(),
      deposit.blockHash,
    ]);
  }

  /** Credits the deposits scanned (up to `checkpoint`) that reached the depth by `head`. */
  private async confirm(head: bigint, checkpoint: bigint): Promise<void> {
    const through = await finalThrough(this.options.client, head, this.options.confirmations, this.options.finality);
    const limit = through < checkpoint ? through : checkpoint;
    await withTransaction(this.options.pool, async (tx) => {
      const { rows } = await tx.query<DepositRow>(
        `select * from ${this.s}.chain_deposits where chain = $1 and status = 'seen' and block_number <= $2 order by block_number, log_index for update skip locked`,
        [this.options.chain, limit.toString()],
      );
      for (const row of rows) {
        const { next, credit } = afterConfirmed({ status: row.status, credited: row.credited });
        await this.setState(tx, row, next);
        if (credit) await this.options.onCredit(tx, { ...depositOf(row), ...next });
      }
    });
  }

  private async setState(tx: PoolClient, row: DepositRow, next: DepositState): Promise<void> {
    await tx.query(
      `update ${this.s}.chain_deposits set status = $4, credited = $5, confirmed_at = case when $4 = 'confirmed' then now() else confirmed_at end
       where chain = $1 and tx_hash = $2 and log_index = $3`,
      [row.chain, row.tx_hash, row.log_index, next.status, next.credited],
    );
  }

  private async watchedSet(): Promise<Set<string>> {
    const { rows } = await this.options.pool.query<{ address: string }>(`select address from ${this.s}.chain_watched where chain = $1`, [this.options.chain]);
    return new Set(rows.map((row) => row.address));
  }
}
