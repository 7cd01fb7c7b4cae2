import type { Pool, PoolClient } from 'pg';
import {
  BaseError,
  ContractFunctionZeroDataError,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  isAddress,
  isAddressEqual,
  parseEventLogs,
  type Address,
  type Hex,
} from 'viem';
import { AppError, CHAIN_EVENT_TYPES, invalidField, type SendFinished } from '@ramp/contracts';
import { withTransaction, type Sql } from '@ramp/database';
import type { EventMetadata } from '@ramp/event-store';
import {
  accountAddress,
  accountOwnerPath,
  accountSalt,
  finalThrough,
  NATIVE_TOKEN,
  isNoCalls,
  isRevert,
  operationFromJson,
  operationLogs,
  operationNonce,
  operationToJson,
  revertDataReason,
  routerSwapCall,
  simpleAccount,
  swapOutputOf,
  TestToken,
  watcherWindow,
  type AccountCall,
  type DexContracts,
  type HdCustody,
  type LandedOperation,
} from '@ramp/evm';
import { dec, fromBaseUnits, toBaseUnits } from '@ramp/money';
import { sponsorshipBudgetOf, sponsorshipRefusal } from '@ramp/chains';
import { CHAIN_SCHEMA, type ChainContext, type ChainSmartAccountParts } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';
import { swapDex } from '../swaps/pools';

/** Most open operations one pass looks at (the rest at the next). */
const OPERATIONS_PER_PASS = 50;
/** Whether the chain `$1` has an operation of an account on its way: asked in the pass's look (ChainRuntime). */
export const OPERATIONS_OPEN = `exists (select 1 from ${CHAIN_SCHEMA}.account_operations where chain = $1 and status in ('queued', 'submitted'))`;

/** How long a submitted operation that has not landed waits before it is handed to the bundler again (safe: it lands once). */
const RESUBMIT_AFTER_MS = 10_000;

/**
 * How long after its preparation an operation that never landed is prepared again: before the paymaster's sponsorship
 * (valid 600 s, ChainContext) lapses. The same step's nonce: whichever preparation lands, one does at most.
 */
const PREPARE_AGAIN_AFTER_MS = 480_000;

/** After this long, a kept preparation's sponsorship (valid 600 s) has lapsed: it can no longer land. */
const SPONSORSHIP_LAPSED_MS = 660_000;

/** Blocks searched before an operation's preparation for its landing (a node's head may differ from the bundler's). */
const LANDING_MARGIN_BLOCKS = 5n;

/** How long a swap from an account may wait to be mined (as the hot wallet's: the router refuses it after). */
const SWAP_DEADLINE_SECONDS = 300;
/**
 * How many of the chain's latest landed operations the sponsorship reserve looks at: an operation on its way is
 * reserved at the most one of them cost.
 */
const RESERVE_SAMPLE = 100;

/**
 * An open operation's row as a pass read it (`$hash`, `$booked`: its user_operation_hash and booked_status then): every
 * update a pass makes to one is made only over it, so that a pass that read it before a reorganisation reopened it (a
 * leader that has just lost the chain) changes nothing, above all never keeps or submits calls that are to be cancelled.
 */
function asRead(hash: number, booked: number): string {
  return `user_operation_hash is not distinct from $${hash} and booked_status is not distinct from $${booked}`;
}

/** What a transfer from a managed wallet's account asks (ChainTransfer with `fromWallet`). */
export interface AccountTransferTerms {
  walletId: string;
  to: Address;
  token: ChainToken;
  /** Decimal strings in the token's units. */
  amount: string;
  /** The platform's fee, in the same token, to the hot wallet in the same operation. */
  fee?: string;
  account: string;
  paysOut: string;
  /** Whose operation it is: its sponsored gas is judged against that organization's budget. */
  organizationId: string;
}

/** What a swap from a managed wallet's account asks (ChainSwap with `fromWallet`): `fee` is in `fromToken`. */
export interface AccountSwapTerms {
  walletId: string;
  fromToken: ChainToken;
  toToken: ChainToken;
  amountIn: string;
  minimumOut: string;
  /** Who receives the output: the hot wallet, the account itself, or an address outside. */
  to: Address;
  fee?: string;
  account: string;
  paysOut: string;
  /** Whose operation it is: its sponsored gas is judged against that organization's budget. */
  organizationId: string;
}

/**
 * The terms as recorded (chain.account_operations.terms), amounts as canonical decimals: what a repeated request is
 * compared with, term by term. A transfer's token is `tokenSymbol`; a swap's fee is in its `fromToken`.
 */
type RecordedTerms =
  | { to: string; tokenSymbol: string; amount: string; fee: string | null; account: string }
  | { to: string; fromToken: string; toToken: string; amountIn: string; minimumOut: string; fee: string | null; account: string }
  | ReturnTerms;

/**
 * A return (`npm run chain:ops -- return-token`): all the account holds of a token the chain does not list, sent back
 * to `to` on an operator's word. `token` is its contract's address (lower case); `reference` the operator's own (a
 * support ticket), which makes the request once; `operator` who asked.
 */
interface ReturnTerms {
  to: string;
  token: string;
  reference: string;
  operator: string;
}

function isReturn(terms: RecordedTerms): terms is ReturnTerms {
  return 'token' in terms;
}

interface OperationRow {
  id: string;
  idempotency_key: string;
  kind: 'transfer' | 'swap' | 'return';
  wallet_id: string;
  sender: string;
  terms: RecordedTerms;
  calls: { to: Address; value: string; data: Hex }[];
  nonce: string;
  status: 'queued' | 'submitted' | 'confirmed' | 'failed';
  user_operation_hash: Hex | null;
  operation: unknown;
  from_block: string | null;
  submitted_at: Date | null;
  tx_hash: Hex | null;
  block_number: string | null;
  gas_cost: string | null;
  amount_out: string | null;
  error: string | null;
  updated_at: Date;
  /** When a reorganisation took away its final landing (reopenFrom): it is open again to land once more. */
  reorged_at: Date | null;
  /** Once reopened: what its `send.finished` said, and so what the books hold of it. */
  booked_status: 'confirmed' | 'failed' | null;
}

/** An operation as its requester sees it. */
export interface OperationRecord {
  status: 'queued' | 'pending' | 'confirmed' | 'failed';
  userOperationHash?: Hex;
  /** The bundle that carried it, once landed. */
  transactionHash?: Hex;
  /** A confirmed swap's output, in base units of its `toToken`. */
  amountOut?: bigint;
  /** Where it was refused or reverted, for a swap's `wouldGive` at that block. */
  blockNumber?: bigint;
  error?: string;
}

/**
 * The operations of managed wallets' accounts on one chain (docs/chains.md, "Smart accounts"): each request recorded
 * once per key with its terms and the calls it batches (chain.account_operations), then, on the chain's leading replica
 * (tick), prepared (the bundler estimates, the paymaster sponsors, the wallet's own key signs), kept, submitted, found
 * landed from the EntryPoint's `UserOperationEvent` on chain, and at the chain's depth finished with `send.finished` in
 * the transaction that records it, as a hot-wallet send is. Its nonce is the step's own (operationNonce): it lands
 * once whatever crashes, whichever bundler, however often it is prepared.
 */
export class AccountOperations {
  /** Operations refused since start at an organization's sponsorship budget (the metric ramp_chain_sponsorship_refusals). */
  sponsorshipRefusals = 0;

  constructor(
    private readonly context: ChainContext,
    private readonly custody: HdCustody,
  ) {}

  private get parts(): ChainSmartAccountParts {
    const parts = this.context.smartAccounts;
    if (!parts) throw new AppError('UNSUPPORTED_CHAIN', `${this.context.chain} has no smart accounts: its managed wallets are forwarders`);
    return parts;
  }

  /** The account of a managed wallet (its counterfactual address: deployed by its first operation). */
  async addressOf(walletId: string): Promise<Address> {
    const parts = this.parts;
    return accountAddress(parts.client, parts.contracts, this.custody.derived(accountOwnerPath(walletId)).address, accountSalt(walletId));
  }

  /**
   * A transfer from a wallet's account, once per key: `amount` to `to` and the fee (if any) to the hot wallet, in one
   * operation. The same key is the same operation (other terms: IDEMPOTENCY_KEY_REUSED). What leaves for the outside
   * counts against the chain's outflow limits as the hot wallet's sends do.
   */
  async transfer(key: string, terms: AccountTransferTerms): Promise<OperationRecord> {
    const { context } = this;
    const fee = feeOf(terms.fee);
    const recorded: RecordedTerms = {
      to: terms.to.toLowerCase(),
      tokenSymbol: terms.token.symbol,
      amount: dec(terms.amount).toFixed(),
      fee,
      account: terms.account,
    };
    // Into the hot wallet (a bridge leg's funds, say), it stays within the platform's holdings: no outflow. Never to the
    // account itself, which would move nothing.
    const counted = (sender: Address) => {
      if (terms.to.toLowerCase() === sender.toLowerCase()) throw invalidField('to', "is the wallet's own account: a transfer to itself moves nothing");
      return terms.to.toLowerCase() !== context.hot.sender.toLowerCase();
    };
    return this.request(key, 'transfer', terms, recorded, terms.token, recorded.amount, counted, () => [
      tokenCall(terms.token, terms.to, toBaseUnits(terms.amount, terms.token.decimals)),
      ...(fee ? [tokenCall(terms.token, context.hot.sender, toBaseUnits(fee, terms.token.decimals))] : []),
    ]);
  }

  /**
   * A swap from a wallet's account through the platform's pools, once per key: the router approved for `amountIn`,
   * the swap (exactly `amountIn` for at least `minimumOut`, paid to `to`), and the fee (if any) to the hot wallet, in
   * one operation: all of it happens, or (reverted) none. Paid to an address outside, it counts against the outflow
   * limits; into the hot wallet or the account itself, it stays within the platform's holdings.
   */
  async swap(key: string, terms: AccountSwapTerms): Promise<OperationRecord> {
    const { context } = this;
    // Refused here (UNSUPPORTED_TOKEN, UNSUPPORTED_CHAIN) before anything is recorded.
    const dex = swapDex(await context.poolsFor(terms.fromToken.symbol, terms.toToken.symbol), context, terms);
    const fee = feeOf(terms.fee);
    const recorded: RecordedTerms = {
      to: terms.to.toLowerCase(),
      fromToken: terms.fromToken.symbol,
      toToken: terms.toToken.symbol,
      amountIn: dec(terms.amountIn).toFixed(),
      minimumOut: dec(terms.minimumOut).toFixed(),
      fee,
      account: terms.account,
    };
    return this.request(
      key,
      'swap',
      terms,
      recorded,
      terms.fromToken,
      recorded.amountIn,
      (sender) => !this.withinHoldings(terms.to, sender),
      () => this.swapCalls(recorded, dex),
    );
  }

  /**
   * A swap's calls, built when it is prepared (again): the router approved for `amountIn`, the swap with a deadline
   * minutes from now (a preparation after a crash or a lapsed sponsorship gets a fresh one), and the fee.
   */
  private swapCalls(terms: Extract<RecordedTerms, { fromToken: string }>, pools: DexContracts): AccountCall[] {
    const { context } = this;
    const [fromToken, toToken] = [context.token(terms.fromToken)!, context.token(terms.toToken)!];
    const dex = swapDex(pools, context, { fromToken, toToken });
    const amountIn = toBaseUnits(terms.amountIn, fromToken.decimals);
    const swap = routerSwapCall(dex, {
      fromToken: fromToken.symbol,
      toToken: toToken.symbol,
      amountIn,
      minimumOut: toBaseUnits(terms.minimumOut, toToken.decimals),
      to: getAddress(terms.to),
      deadline: BigInt(Math.floor(Date.now() / 1000) + SWAP_DEADLINE_SECONDS),
    });
    const approve = encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [dex.router, amountIn] });
    return [
      ...(fromToken.address === NATIVE_TOKEN ? [] : [{ to: fromToken.address, value: 0n, data: approve }]),
      { to: swap.to, value: swap.value ?? 0n, data: swap.data },
      ...(terms.fee ? [tokenCall(fromToken, context.hot.sender, toBaseUnits(terms.fee, fromToken.decimals))] : []),
    ];
  }

  /** Whether `to` keeps a swap's output within the platform's holdings: the hot wallet, or the account that swapped. */
  private withinHoldings(to: Address, sender: Address): boolean {
    return to.toLowerCase() === this.context.hot.sender.toLowerCase() || to.toLowerCase() === sender.toLowerCase();
  }

  /**
   * An operation recorded once per key with its terms, its calls and its nonce, and what it spends recorded against the
   * outflow limits (`counted`: it leaves the platform from the account `sender`, or refused there), in one transaction;
   * asked again, it answers where it is.
   */
  private async request(
    key: string,
    kind: OperationRow['kind'],
    terms: { walletId: string; paysOut: string; organizationId: string },
    recorded: RecordedTerms,
    spent: ChainToken,
    amount: string,
    counted: (sender: Address) => boolean,
    calls: () => AccountCall[],
  ): Promise<OperationRecord> {
    const { context } = this;
    const known = await this.known(context.pool, key, kind, terms.walletId, recorded);
    if (known) return known;
    const sender = await this.accountOfWallet(terms.walletId);
    const counts = counted(sender);
    return withTransaction(context.pool, async (tx) => {
      await this.judgeSponsorship(tx, terms.organizationId);
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.account_operations (chain, idempotency_key, kind, wallet_id, sender, terms, calls, nonce, organization_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8::numeric, $9) on conflict do nothing`,
        [
          context.id,
          key,
          kind,
          terms.walletId,
          sender.toLowerCase(),
          JSON.stringify(recorded),
          JSON.stringify(calls().map((call) => ({ to: call.to, value: (call.value ?? 0n).toString(), data: call.data ?? '0x' }))),
          operationNonce(`${context.id}:${key}`).toString(),
          terms.organizationId,
        ],
      );
      if (inserted.rowCount === 0) return (await this.known(tx, key, kind, terms.walletId, recorded))!;
      await context.outflows.record(tx, {
        sendKey: `operation:${key}`,
        token: spent,
        amount,
        paysOut: terms.paysOut,
        organizationId: terms.organizationId,
        counted: counts,
      });
      return { status: 'queued' };
    });
  }

  /**
   * The leader's pass, when its look found one open (OPERATIONS_OPEN): each open operation moved on (prepared and submitted; found landed; finished at the depth). An
   * operation whose step fails (a bundler down) is tried again at the next pass; the first failure is thrown at the
   * end, for the chain loop's log, after every other operation had its turn.
   */
  async tick(): Promise<void> {
    if (!this.context.smartAccounts) return;
    // With the block the deposit watcher has scanned to (`watched`): see `through` below.
    const { rows } = await this.context.pool.query<OperationRow & { watched: string | null }>(
      `select *, (select block_number::text from ${CHAIN_SCHEMA}.chain_checkpoints where chain = $1) as watched
         from ${CHAIN_SCHEMA}.account_operations
        where chain = $1 and status in ('queued', 'submitted') order by id limit ${OPERATIONS_PER_PASS}`,
      [this.context.id],
    );
    if (rows.length === 0) return;
    const head = await this.context.client.getBlockNumber({ cacheTime: 0 });
    // Final at the chain's depth, and never beyond the block the watcher has scanned to: a reorganisation is seen by the
    // watcher comparing the blocks it recorded, so one that takes out a landing in a block it has not recorded yet (it
    // lags, its node behind) would leave the operation final and never reopened (reopenFrom).
    const watched = rows[0]!.watched === null ? -1n : BigInt(rows[0]!.watched);
    const final = await finalThrough(this.context.client, head, this.context.settings.confirmations, this.context.settings.finality);
    const through = final < watched ? final : watched;
    // An account not deployed yet: only its first operation carries the factory's call, so the others wait for it.
    const deploying = new Set(rows.filter((row) => row.status === 'submitted' && row.tx_hash === null).map((row) => row.sender));
    // The chain's outbound sends paused (the books drift: ChainSendsPause) or halted: nothing new is prepared or handed
    // to the bundler; what landed already is still followed to its end.
    const held = this.context.hot.pausedReason ?? this.context.hot.haltedReason;
    let failure: unknown;
    for (const row of rows) {
      try {
        if (row.status === 'queued') {
          if (held === undefined) await this.prepare(row, head, deploying);
        } else await this.follow(row, through, held === undefined);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure !== undefined) throw failure;
  }

  /**
   * A reorganisation replaced the chain from block `fork` (the watcher's rewind, in its transaction): each operation
   * recorded as landed (confirmed, or reverted) in a block from there on is open again, its landing forgotten and what
   * the books hold of it kept (`booked_status`), and it is finished again when it lands, without a second
   * `send.finished`. Even while the chain's sends are paused, since the chain must catch up with the books:
   * - one booked as confirmed has its kept signed copy handed to the bundler again at the next pass (what it moved is in
   *   the books);
   * - one booked as failed is cancelled at the next pass: an operation with its nonce and no calls (NO_CALLS), so that
   *   its signed copy, public since it was on chain and still sponsored for a while, can never land and move what the
   *   books say never moved.
   * Reported as an error, as a hot wallet's send reorganised out is.
   */
  async reopenFrom(tx: Sql, fork: bigint): Promise<void> {
    const { rows } = await tx.query<{ id: string; idempotency_key: string; booked_status: 'confirmed' | 'failed' }>(
      `update ${CHAIN_SCHEMA}.account_operations
          set status = 'submitted', reorged_at = now(), booked_status = coalesce(booked_status, status), tx_hash = null, block_number = null,
              block_hash = null, updated_at = now() - make_interval(secs => $3::double precision / 1000)
        where chain = $1 and status in ('confirmed', 'failed') and block_number >= $2::numeric
        returning id, idempotency_key, booked_status`,
      [this.context.id, fork.toString(), RESUBMIT_AFTER_MS],
    );
    for (const row of rows) {
      this.context.logger.error(
        { chain: this.context.id, operation: row.id, key: row.idempotency_key, fork: fork.toString(), booked: row.booked_status },
        row.booked_status === 'failed'
          ? 'an account operation recorded as reverted was reorganised out of the chain: cancelled, so that it cannot land again; an operator must check'
          : 'an account operation recorded as final was reorganised out of the chain: submitted again; an operator must check what it moved',
      );
    }
  }

  /**
   * Refuses a new operation for an organization whose sponsored gas in the last 24 hours has reached its budget
   * (CHAIN_SPONSORED_GAS_BUDGETS): INVALID_REQUEST naming `organizationId`, so that the step fails with the reason and
   * releases its hold. One judgement at a time per organization and chain. What is on its way has no cost yet: the
   * last operations sponsored may take an organization past its budget by their own gas.
   */
  private async judgeSponsorship(tx: PoolClient, organizationId: string): Promise<void> {
    const { context } = this;
    const budget = sponsorshipBudgetOf(context.sponsorshipBudget, organizationId);
    if (budget === undefined) return;
    await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`sponsorship:${context.id}:${organizationId}`]);
    // What its operations of the last 24 hours cost, those on their way reserved each at the most one of the chain's
    // last RESERVE_SAMPLE landed operations cost, however old (gas_cost > 0: one refused before it was sent cost
    // nothing): after a quiet day the first burst is reserved as well. Both read by index (the organization's day, the
    // chain's newest landings), not every operation the chain had that day.
    const { rows } = await tx.query<{ spent: string; open: number; reserve: string }>(
      `select coalesce(sum(gas_cost) filter (where status in ('confirmed', 'failed')), 0)::text as spent,
              (count(*) filter (where status in ('queued', 'submitted')))::int as open,
              coalesce((select max(gas_cost) from (select gas_cost from ${CHAIN_SCHEMA}.account_operations
                                                     where chain = $1 and gas_cost > 0 order by id desc limit ${RESERVE_SAMPLE}) recent), 0)::text as reserve
         from ${CHAIN_SCHEMA}.account_operations where chain = $1 and organization_id = $2 and created_at > now() - interval '24 hours'`,
      [context.id, organizationId],
    );
    const coin = (units: string) => fromBaseUnits(BigInt(units), context.native.decimals);
    const { spent, open, reserve } = rows[0]!;
    const refusal = sponsorshipRefusal(budget, { spent: coin(spent), open, reserve: coin(reserve) });
    if (!refusal) return;
    this.sponsorshipRefusals += 1;
    const symbol = context.native.symbol;
    const reserved = open > 0 ? `, ${refusal.reserved} ${symbol} reserved for the ${open} on their way` : '';
    throw invalidField(
      'organizationId',
      `the gas sponsored for ${organizationId}'s wallets on ${context.chain} in the last 24 hours (${refusal.spent} ${symbol}${reserved}) has reached its budget (${refusal.budget} ${symbol}): no more of its operations are sponsored until it is below it`,
    );
  }

  /**
   * The open operations' landings not final yet (for the holdings: what they moved is on chain, not in the books yet),
   * and the bundles that carried them (what arrives by them is not a deposit).
   */
  async minedNotFinal(blockNumber: bigint): Promise<{ symbol: string; units: bigint }[][]> {
    const { rows } = await this.context.pool.query<OperationRow>(
      // One landing again after a reorganisation is in the books already.
      `select * from ${CHAIN_SCHEMA}.account_operations where chain = $1 and status = 'submitted' and tx_hash is not null and block_number <= $2 and reorged_at is null`,
      [this.context.id, blockNumber.toString()],
    );
    const mined: { symbol: string; units: bigint }[][] = [];
    for (const row of rows) {
      const landed = await this.parts.operations.landed(row.user_operation_hash!, BigInt(row.block_number!));
      // Not there any more (a reorganisation): nothing moved.
      if (!landed?.success) continue;
      const moved = await this.moved(row, landed);
      mined.push(moved.map(({ token, units }) => ({ symbol: token.symbol, units })));
    }
    return mined;
  }

  /**
   * What a landed operation moved out of the platform's holdings (positive) or into them (negative): a transfer's
   * amount; a swap's input, less its output when that stays within them (read from the operation's own logs). The fee
   * moves within them. Throws for a swap whose output cannot be read: it is not booked wrong.
   */
  private async moved(row: OperationRow, landed: LandedOperation): Promise<{ token: ChainToken; units: bigint; out?: bigint }[]> {
    const { context } = this;
    const terms = row.terms;
    // A token the chain does not list is none of its holdings.
    if (isReturn(terms)) return [];
    if (!('fromToken' in terms)) {
      const token = context.token(terms.tokenSymbol)!;
      if (terms.to === context.hot.sender.toLowerCase()) return [];
      return [{ token, units: toBaseUnits(terms.amount, token.decimals) }];
    }
    const [from, to] = [context.token(terms.fromToken)!, context.token(terms.toToken)!];
    const receipt = await context.client.getTransactionReceipt({ hash: landed.transactionHash });
    const out = swapOutputOf(
      await context.poolsFor(from.symbol, to.symbol),
      from.symbol,
      to.symbol,
      operationLogs(receipt.logs, this.parts.contracts.entryPoint, landed.userOperationHash),
    );
    if (out === undefined) throw new Error(`account swap ${row.idempotency_key} (${landed.transactionHash}) landed without a Swap event of its last pair`);
    const moved = [{ token: from, units: toBaseUnits(terms.amountIn, from.decimals), out }];
    if (this.withinHoldings(getAddress(terms.to), getAddress(row.sender))) moved.push({ token: to, units: -out, out });
    return moved;
  }

  /** The addresses of the chain's managed wallets that are accounts (what they hold is the platform's to account for). */
  async accounts(db: Pick<PoolClient, 'query'> = this.context.pool): Promise<Address[]> {
    const { rows } = await db.query<{ address: string }>(`select address from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and kind = 'account'`, [
      this.context.id,
    ]);
    return rows.map((row) => getAddress(row.address));
  }

  /** Whether `address` is a managed wallet's account on this chain. */
  async isAccount(address: Address): Promise<boolean> {
    const { rowCount } = await this.context.pool.query(
      `select 1 from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and address = $2 and kind = 'account'`,
      [this.context.id, address.toLowerCase()],
    );
    return (rowCount ?? 0) > 0;
  }

  /** A queued operation prepared, kept and submitted; or left for a later pass while its account is being deployed. */
  private async prepare(row: OperationRow, head: bigint, deploying: Set<string>): Promise<void> {
    const parts = this.parts;
    const sender = getAddress(row.sender);
    if (!(await parts.client.getCode({ address: sender }))) {
      if (deploying.has(row.sender)) return;
      deploying.add(row.sender);
    }
    const account = await simpleAccount({
      client: parts.client,
      contracts: parts.contracts,
      chainId: this.context.settings.chainId,
      owner: this.custody.derived(accountOwnerPath(row.wallet_id)),
      salt: accountSalt(row.wallet_id),
      address: sender,
    });
    const terms = row.terms;
    // Booked as failed and reorganised out: cancelled (no calls, its nonce), never landed again (reopenFrom).
    const cancel = bookedOf(row) === 'failed';
    let calls: AccountCall[];
    if (cancel) calls = [];
    else if (isReturn(terms)) {
      const returned = await this.returnCalls(sender, terms);
      if (typeof returned === 'string') {
        // Nothing to send (not yet final while a kept preparation may still land: it is followed meanwhile).
        await this.refuse(row, sender, returned);
        return;
      }
      calls = returned;
    } else if ('fromToken' in terms) calls = this.swapCalls(terms, await this.context.poolsFor(terms.fromToken, terms.toToken));
    else calls = row.calls.map((call) => ({ to: call.to, value: BigInt(call.value), data: call.data }));
    let prepared: Awaited<ReturnType<typeof parts.operations.prepare>>;
    try {
      prepared = await parts.operations.prepare(account, calls, `${this.context.id}:${row.idempotency_key}`);
    } catch (error) {
      // Its calls would revert (the account short of the token, say): refused before anything was signed or sent, and
      // final (nothing can land: no preparation of it was ever submitted, or it is found landed first).
      // A preparation kept before may still land until its sponsorship lapses: only then, its nonce unused, is the
      // operation refused for good.
      const reason = callsRevert(error);
      if (reason === undefined || !(await this.refuse(row, sender, reason))) throw error;
      return;
    }
    const fromBlock = head > LANDING_MARGIN_BLOCKS ? head - LANDING_MARGIN_BLOCKS : 0n;
    // Kept before it is submitted: a crash between the two submits the same operation at the next pass (asRead).
    const kept = await this.context.pool.query(
      `update ${CHAIN_SCHEMA}.account_operations set status = 'submitted', user_operation_hash = $3, operation = $4, from_block = coalesce(from_block, $5::numeric),
              submitted_at = now(), updated_at = now()
        where chain = $1 and id = $2 and status in ('queued', 'submitted') and ${asRead(6, 7)}`,
      [this.context.id, row.id, prepared.hash, operationToJson(prepared.operation), fromBlock.toString(), row.user_operation_hash, row.booked_status],
    );
    if (kept.rowCount === 0) return;
    await parts.operations.submit(prepared.operation);
    this.context.logger.info(
      { chain: this.context.id, key: row.idempotency_key, userOperationHash: prepared.hash, sender, ...(cancel && { cancel }) },
      'account operation submitted',
    );
  }

  /**
   * An operation refused before it was sent, finished as failed with the reason; false (nothing done) while a
   * preparation kept before may still land, until its sponsorship lapses with its nonce unused: only then can nothing
   * with the step's nonce land.
   */
  private async refuse(row: OperationRow, sender: Address, reason: string): Promise<boolean> {
    if (row.user_operation_hash !== null) {
      const lapsed = row.submitted_at !== null && Date.now() - row.submitted_at.getTime() > SPONSORSHIP_LAPSED_MS;
      if (!lapsed || (await this.parts.operations.nonceUsed(sender, BigInt(row.nonce)))) return false;
    }
    await this.finish(row, 'failed', { error: `refused before it was sent: ${reason}` });
    return true;
  }

  /** A submitted operation: found landed (and finished at the depth), or handed to the bundler again, or prepared again. */
  private async follow(row: OperationRow, through: bigint, sending: boolean): Promise<void> {
    const { operations } = this.parts;
    const sender = getAddress(row.sender);
    const fromBlock = BigInt(row.from_block ?? '0');
    const landed =
      (row.user_operation_hash ? await operations.landed(row.user_operation_hash, fromBlock) : undefined) ??
      ((await operations.nonceUsed(sender, BigInt(row.nonce))) ? await operations.landedByNonce(sender, BigInt(row.nonce), fromBlock) : undefined);
    if (landed) {
      if (landed.blockNumber > through) {
        if (row.tx_hash !== landed.transactionHash)
          await this.context.pool.query(
            `update ${CHAIN_SCHEMA}.account_operations set tx_hash = $3, block_number = $4::numeric, block_hash = $5, user_operation_hash = $6, updated_at = now()
              where chain = $1 and id = $2 and status = 'submitted' and ${asRead(7, 8)}`,
            [
              this.context.id,
              row.id,
              landed.transactionHash,
              landed.blockNumber.toString(),
              landed.blockHash,
              landed.userOperationHash,
              row.user_operation_hash,
              row.booked_status,
            ],
          );
        return;
      }
      if (bookedOf(row) === 'failed') return this.finishCancelled(row, landed);
      await this.finish(row, landed.success ? 'confirmed' : 'failed', {
        landed,
        ...(!landed.success && { error: `reverted on chain: ${revertDataReason(landed.revertReason)}` }),
      });
      return;
    }
    // A landing a reorganisation took away: the operation is open again (its signed copy is submitted again below).
    if (row.tx_hash !== null)
      await this.context.pool.query(
        `update ${CHAIN_SCHEMA}.account_operations set tx_hash = null, block_number = null, block_hash = null, updated_at = now()
          where chain = $1 and id = $2 and status = 'submitted' and ${asRead(3, 4)}`,
        [this.context.id, row.id, row.user_operation_hash, row.booked_status],
      );
    // One final before a reorganisation is handed back even while the chain's sends are paused: what it moved is in the
    // books already (and the pause, which its absence from the chain may have caused, lifts only once it lands).
    const reopened = row.reorged_at !== null;
    if (!sending && !reopened) return;
    const age = row.submitted_at ? Date.now() - row.submitted_at.getTime() : 0;
    // Booked as failed: its cancellation prepared at once (the operation kept is not one: it has calls), then followed
    // as any. Told by the kept operation's calls, not by when it was prepared.
    const uncancelled = bookedOf(row) === 'failed' && !keepsCancellation(row);
    // Prepared again (the same nonce, fresh calls and sponsorship) before its kept copy's sponsorship lapses; a reopened
    // swap as soon as its kept copy's router deadline has passed, since that copy could only land reverted.
    const swapExpired = bookedOf(row) === 'confirmed' && 'fromToken' in row.terms && age >= SWAP_DEADLINE_SECONDS * 1000;
    if (uncancelled || (row.submitted_at && (age >= PREPARE_AGAIN_AFTER_MS || swapExpired))) {
      await this.prepare(row, await this.context.client.getBlockNumber({ cacheTime: 0 }), new Set());
      return;
    }
    if (Date.now() - row.updated_at.getTime() < RESUBMIT_AFTER_MS || row.operation === null) return;
    const still = await this.context.pool.query(
      `update ${CHAIN_SCHEMA}.account_operations set updated_at = now() where chain = $1 and id = $2 and status = 'submitted' and ${asRead(3, 4)}`,
      [this.context.id, row.id, row.user_operation_hash, row.booked_status],
    );
    if (still.rowCount === 0) return;
    await operations.submit(operationFromJson(JSON.stringify(row.operation)));
  }

  /**
   * An operation booked as failed whose reverted landing was reorganised out, found landed again at the depth: its
   * cancellation (NO_CALLS) or the same calls reverting again leave the books right, and it is failed again. Its calls
   * run with success (a copy landed before the cancellation) moved what the books say never moved: recorded as
   * confirmed, as the chain has it, and reported for an operator (the chain's books drift by it until they act).
   */
  private async finishCancelled(row: OperationRow, landed: LandedOperation): Promise<void> {
    if (!landed.success || !(await this.ranCalls(row, landed))) {
      await this.finish(row, 'failed', { landed, error: row.error ?? undefined });
      return;
    }
    const error = `booked as failed: ${row.error ?? 'reverted on chain'}; landed again with its calls run`;
    if (!(await this.finish(row, 'confirmed', { landed, error }))) return;
    this.context.logger.error(
      { chain: this.context.id, key: row.idempotency_key, userOperationHash: landed.userOperationHash, transactionHash: landed.transactionHash },
      'an account operation booked as failed landed again with its calls run after a reorganisation: it moved what the books say never moved; an operator must act',
    );
  }

  /**
   * Whether a landing of a reopened operation booked as failed ran its calls, or was its cancellation (NO_CALLS): its
   * calls read from the bundle that carried it (never from the operation kept: the row's hash is the landing's once a
   * pass has recorded it, whichever preparation that was, while the operation kept may be the cancellation). A bundle
   * that is not a direct `handleOps` to the EntryPoint (a bundler's contract in between) is told by the operation's own
   * logs: a token transfer or swap logs what it moved, a cancellation nothing. A coin transfer logs nothing either way:
   * then it is not finished (thrown, for the chain loop's report) rather than guessed.
   */
  private async ranCalls(row: OperationRow, landed: LandedOperation): Promise<boolean> {
    const calls = await this.parts.operations.callDataOf(landed);
    if (calls !== undefined) return !isNoCalls(calls);
    const receipt = await this.context.client.getTransactionReceipt({ hash: landed.transactionHash });
    if (operationLogs(receipt.logs, this.parts.contracts.entryPoint, landed.userOperationHash).length > 0) return true;
    const terms = row.terms;
    if (isReturn(terms) || 'fromToken' in terms || this.context.token(terms.tokenSymbol)?.address !== NATIVE_TOKEN) return false;
    throw new Error(
      `account operation ${row.idempotency_key} (booked as failed) landed in ${landed.transactionHash}, a bundle that is not a direct handleOps: whether it was its cancellation cannot be told`,
    );
  }

  /**
   * The operation final: its status and landing recorded and its `send.finished` appended, in one transaction, once.
   * False when nothing was made final: its landing not yet where the watcher has scanned, or another pass was first.
   */
  private async finish(row: OperationRow, finalStatus: 'confirmed' | 'failed', finalOutcome: { landed?: LandedOperation; error?: string }): Promise<boolean> {
    const { context } = this;
    let [status, outcome] = [finalStatus, finalOutcome];
    const { landed } = outcome;
    const terms = row.terms;
    // A confirmed swap's output, from the operation's own logs (read before the transaction: an RPC call).
    const out =
      status !== 'confirmed' || !landed
        ? undefined
        : isReturn(terms)
          ? await this.returned(row, terms, landed)
          : 'fromToken' in terms
            ? (await this.moved(row, landed))[0]!.out!
            : undefined;
    // A return that ran and moved nothing (a token whose `transfer` answers false instead of reverting) did not return.
    if (isReturn(terms) && out === 0n) {
      status = 'failed';
      outcome = { landed, error: `landed without moving ${getAddress(terms.token)}: its transfer moved nothing` };
    }
    // Landing again after a reorganisation: the row keeps what was booked (the output, the sponsored gas), and a swap
    // whose new landing gave another output is reported, since the books hold the first one. A return is none of the
    // books': what it sent this time is recorded.
    const reopened = row.reorged_at !== null;
    const keepsBooked = reopened && !isReturn(terms);
    if (keepsBooked && out !== undefined && row.amount_out !== null && BigInt(row.amount_out) !== out) {
      context.logger.error(
        { chain: context.id, key: row.idempotency_key, booked: row.amount_out, landed: out.toString() },
        'an account swap landed again after a reorganisation with another output than the books hold: an operator must act',
      );
    }
    const made = await withTransaction(context.pool, async (tx) => {
      // A landing is final only in a block the watcher has scanned, on the chain it recorded there (a node behind a
      // load balancer may answer from a fork the watcher never saw): otherwise a reorganisation of it would be seen by
      // no one. Its checkpoint is held while this commits, so a rewind that would reopen the operation waits for it, or
      // has committed and moved the checkpoint below the landing.
      if (landed) {
        // The checkpoint held first, then the hash read in a statement of its own: after waiting for the lock, a
        // statement reads what committed before it started, so the hash is the one recorded with the checkpoint held.
        const { rows: held } = await tx.query<{ checkpoint: string }>(
          `select block_number::text as checkpoint from ${CHAIN_SCHEMA}.chain_checkpoints where chain = $1 for share`,
          [context.id],
        );
        const checkpoint = held[0] === undefined ? undefined : BigInt(held[0].checkpoint);
        if (checkpoint === undefined || checkpoint < landed.blockNumber) return false;
        const { rows: recorded } = await tx.query<{ hash: string }>(`select hash from ${CHAIN_SCHEMA}.chain_blocks where chain = $1 and number = $2`, [
          context.id,
          landed.blockNumber.toString(),
        ]);
        const hash = recorded[0]?.hash;
        // No hash is kept below the watcher's window (a landing finished late), where no fork is looked for; within it,
        // every block scanned has one, and it must be the landing's.
        const kept = checkpoint - BigInt(watcherWindow(context.settings.confirmations)) < landed.blockNumber;
        if (hash === undefined ? kept : hash.toLowerCase() !== landed.blockHash.toLowerCase()) return false;
      }
      const updated = await tx.query(
        `update ${CHAIN_SCHEMA}.account_operations set status = $3, tx_hash = $4, block_number = $5::numeric, block_hash = $6, gas_cost = $7::numeric, error = $8,
                user_operation_hash = coalesce($9, user_operation_hash), amount_out = $10::numeric, updated_at = now()
          where chain = $1 and id = $2 and status = $11 and ${asRead(12, 13)}`,
        [
          context.id,
          row.id,
          status,
          landed?.transactionHash ?? null,
          landed?.blockNumber.toString() ?? null,
          landed?.blockHash ?? null,
          reopened && row.gas_cost !== null ? row.gas_cost : (landed?.actualGasCost ?? 0n).toString(),
          outcome.error ?? null,
          landed?.userOperationHash ?? null,
          keepsBooked && row.amount_out !== null ? row.amount_out : (out?.toString() ?? null),
          // Only from the state this pass read: another replica's preparation (a new hash) or finish wins over it.
          row.status,
          row.user_operation_hash,
          row.booked_status,
        ],
      );
      if (updated.rowCount === 0) return false;
      // Final once before a reorganisation took it away: its send.finished was appended and booked then.
      if (row.reorged_at !== null) return true;
      const userOperationHash = landed?.userOperationHash ?? row.user_operation_hash ?? undefined;
      const event: SendFinished = {
        sendId: `${context.id}:operation:${row.id}`,
        environment: context.environment,
        chain: context.chain,
        idempotencyKey: `operation:${row.idempotency_key}`,
        status,
        ...(landed && { transactionHash: landed.transactionHash }),
        gasCost: '0',
        nativeSymbol: context.native.symbol,
        ...(status === 'confirmed' &&
          !('fromToken' in terms) &&
          !isReturn(terms) && {
            transfer: {
              tokenSymbol: terms.tokenSymbol,
              amount: terms.amount,
              to: getAddress(terms.to),
              account: terms.account,
              ...(terms.to === context.hot.sender.toLowerCase() && { internal: true as const }),
            },
          }),
        ...(status === 'confirmed' &&
          'fromToken' in terms &&
          !isReturn(terms) &&
          out !== undefined && {
            swap: {
              fromToken: terms.fromToken,
              amountIn: terms.amountIn,
              toToken: terms.toToken,
              amountOut: fromBaseUnits(out, context.token(terms.toToken)!.decimals),
              to: getAddress(terms.to),
              intoHotWallet: this.withinHoldings(getAddress(terms.to), getAddress(row.sender)),
              account: terms.account,
            },
          }),
        account: {
          walletId: row.wallet_id,
          userOperationHash: userOperationHash ?? '',
          sponsoredGasCost: fromBaseUnits(landed?.actualGasCost ?? 0n, context.native.decimals),
          ...(!isReturn(terms) && terms.fee !== null && status === 'confirmed' && { fee: terms.fee }),
        },
        ...(outcome.error && { error: outcome.error }),
      };
      const metadata: EventMetadata = { correlationId: event.idempotencyKey, causationId: event.sendId, actor: 'system:chain', tenant: context.systemTenant };
      await context.log.append(tx, `operation-${context.id}-${row.id}`, 0, [{ type: CHAIN_EVENT_TYPES.sendFinished, data: event }], metadata);
      return true;
    });
    if (!made) return false;
    if (bookedOf(row) === 'confirmed' && status === 'failed') {
      context.logger.error(
        { chain: context.id, key: row.idempotency_key, error: outcome.error },
        'an account operation reorganised out of the chain after it was final did not land again: the books hold what it moved; an operator must act',
      );
      return true;
    }
    context.logger.info(
      {
        chain: context.id,
        key: row.idempotency_key,
        status,
        transactionHash: landed?.transactionHash,
        error: outcome.error,
        landedAgain: row.reorged_at !== null,
      },
      'account operation final',
    );
    return true;
  }

  /**
   * A return's calls, built when it is prepared: all the account holds of the token, to `to`. Or why there is nothing
   * to send: a token the chain lists (the books hold it: it leaves only by a transfer or a swap a route asks), no
   * contract there, or none of it in the account.
   */
  private async returnCalls(sender: Address, terms: ReturnTerms): Promise<AccountCall[] | string> {
    const { context } = this;
    const token = getAddress(terms.token);
    const listed = context.tokens.find((known) => known.address !== NATIVE_TOKEN && isAddressEqual(known.address, token));
    if (listed) return `${token} is ${listed.symbol}, which ${context.chain} lists: the books hold it, and it leaves an account only by a route`;
    if (!(await context.client.getCode({ address: token }))) return `${token} is not a contract on ${context.chain}`;
    let units: bigint;
    try {
      units = await context.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [sender] });
    } catch (error) {
      // The contract's answer (it reverts, or returns nothing a balance can be read from); the node's failures are retried.
      if (isRevert(error) || (error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionZeroDataError)))
        return `${token} does not answer an ERC-20 balanceOf on ${context.chain}`;
      throw error;
    }
    if (units === 0n) return `the account ${sender} holds none of ${token}`;
    return [{ to: token, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [getAddress(terms.to), units] }) }];
  }

  /** What a landed return sent, from the operation's own logs: the token's transfers out of the account. */
  private async returned(row: OperationRow, terms: ReturnTerms, landed: LandedOperation): Promise<bigint> {
    const receipt = await this.context.client.getTransactionReceipt({ hash: landed.transactionHash });
    const logs = operationLogs(receipt.logs, this.parts.contracts.entryPoint, landed.userOperationHash).filter((log) =>
      isAddressEqual(log.address, getAddress(terms.token)),
    );
    return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs, strict: false })
      .filter((event) => event.args.from !== undefined && isAddressEqual(event.args.from, getAddress(row.sender)))
      .reduce((sum, event) => sum + (event.args.value ?? 0n), 0n);
  }

  /** The account of a managed wallet watched on this chain, or INVALID_REQUEST naming `fromWallet`. */
  private async accountOfWallet(walletId: string): Promise<Address> {
    const { rows } = await this.context.pool.query<{ address: string }>(
      `select address from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and owner = $2 and kind = 'account'`,
      [this.context.id, `wallet:${walletId}`],
    );
    if (!rows[0]) throw invalidField('fromWallet', `${walletId} is not a managed wallet whose address is an account on ${this.context.chain}`);
    return getAddress(rows[0].address);
  }

  /** An operation asked before under `key`, as it stands; IDEMPOTENCY_KEY_REUSED with other terms; undefined when none. */
  private async known(db: Sql, key: string, kind: OperationRow['kind'], walletId: string, terms: RecordedTerms): Promise<OperationRecord | undefined> {
    const { rows } = await db.query<OperationRow>(`select * from ${CHAIN_SCHEMA}.account_operations where chain = $1 and idempotency_key = $2`, [
      this.context.id,
      key,
    ]);
    const row = rows[0];
    if (!row) return undefined;
    const recorded = row.terms as Record<string, string | null>;
    const asked = terms as Record<string, string | null>;
    const keys = new Set([...Object.keys(recorded), ...Object.keys(asked)]);
    const same = row.kind === kind && row.wallet_id === walletId && [...keys].every((term) => (recorded[term] ?? null) === (asked[term] ?? null));
    if (!same)
      throw new AppError('IDEMPOTENCY_KEY_REUSED', `${kind === 'swap' ? 'Swap' : kind === 'return' ? 'Return' : 'Transfer'} ${key} was asked with other terms`);
    return recordOf(row);
  }
}

/** What `npm run chain:ops -- return-token` asks (ReturnTerms). */
export interface ReturnRequest {
  /** The chain's id in the chain service (`test-base`, `base`). */
  chain: string;
  walletId: string;
  token: string;
  to: string;
  reference: string;
  operator: string;
}

/** A return as `npm run chain:ops` shows it. */
export interface ReturnRecord {
  status: OperationRecord['status'];
  userOperationHash?: Hex;
  transactionHash?: Hex;
  blockNumber?: string;
  error?: string;
  chain: string;
  walletId: string;
  account: Address;
  token: Address;
  to: Address;
  reference: string;
  operator: string;
  /** Base units of the token sent back, once confirmed. */
  returned?: string;
}

/**
 * Records a return (ReturnTerms) once per wallet, token, recipient and reference, for the chain's leader to prepare
 * and send; asked again, it answers where it stands. Checked here: the addresses, and that the wallet's address on the
 * chain is an account. Checked when it is prepared (it fails with the reason): a token the chain lists, and none of it
 * in the account. Its sponsored gas is booked to the wallet's organization as any of its operations'; no budget
 * refuses an operator's request.
 */
export async function requestReturn(pool: Pool, request: ReturnRequest): Promise<ReturnRecord> {
  for (const field of ['token', 'to'] as const)
    if (!isAddress(request[field], { strict: false })) throw invalidField(field, `must be an address (0x and 40 hexadecimal digits), got ${request[field]}`);
  const [reference, operator] = [request.reference.trim(), request.operator.trim()];
  if (!reference || reference.length > 100)
    throw invalidField('reference', "must be 1 to 100 characters: the operator's own reference (a support ticket) makes the request once");
  if (!operator || operator.length > 100) throw invalidField('operator', 'must name who asks, in 1 to 100 characters');
  const { rows: accounts } = await pool.query<{ address: string }>(
    `select address from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and owner = $2 and kind = 'account'`,
    [request.chain, `wallet:${request.walletId}`],
  );
  const account = accounts[0]?.address;
  if (!account) throw invalidField('walletId', `${request.walletId} is not a managed wallet whose address is an account on ${request.chain}`);
  const terms: ReturnTerms = { to: request.to.toLowerCase(), token: request.token.toLowerCase(), reference, operator };
  if (terms.to === account.toLowerCase()) throw invalidField('to', "is the wallet's own account: a return to itself moves nothing");
  const key = `return:${request.walletId}:${terms.token}:${terms.to}:${reference}`;
  return withTransaction(pool, async (tx) => {
    // One open return per account and token: each sends all the account holds of it, so a second would only revert.
    await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`return:${request.chain}:${account.toLowerCase()}:${terms.token}`]);
    const known = async () =>
      (await tx.query<OperationRow>(`select * from ${CHAIN_SCHEMA}.account_operations where chain = $1 and idempotency_key = $2`, [request.chain, key]))
        .rows[0];
    let row = await known();
    if (!row) {
      const { rows: open } = await tx.query<{ idempotency_key: string }>(
        `select idempotency_key from ${CHAIN_SCHEMA}.account_operations
          where chain = $1 and sender = $2 and kind = 'return' and terms->>'token' = $3 and status in ('queued', 'submitted')`,
        [request.chain, account.toLowerCase(), terms.token],
      );
      if (open[0]) throw invalidField('token', `a return of it from this account is on its way (${open[0].idempotency_key}): wait until it is final`);
      await tx.query(
        `insert into ${CHAIN_SCHEMA}.account_operations (chain, idempotency_key, kind, wallet_id, sender, terms, calls, nonce)
         values ($1, $2, 'return', $3, $4, $5, '[]', $6::numeric) on conflict do nothing`,
        [request.chain, key, request.walletId, account.toLowerCase(), JSON.stringify(terms), operationNonce(`${request.chain}:${key}`).toString()],
      );
      row = (await known())!;
    }
    // The key holds the wallet, the token, the recipient and the reference: asked again (by anyone), it is the same one,
    // unless an operation of another kind took that key.
    if (row.kind !== 'return' || row.wallet_id !== request.walletId) throw invalidField('reference', `gives the key ${key}, which another operation has`);
    return returnRecordOf(request.chain, row);
  });
}

/** Every return asked on a chain (all chains when `chain` is undefined), newest first. */
export async function listReturns(pool: Pick<PoolClient, 'query'>, chain?: string): Promise<ReturnRecord[]> {
  const { rows } = await pool.query<OperationRow & { chain: string }>(
    `select * from ${CHAIN_SCHEMA}.account_operations where kind = 'return' and ($1::text is null or chain = $1) order by id desc`,
    [chain ?? null],
  );
  return rows.map((row) => returnRecordOf(row.chain, row));
}

function returnRecordOf(chain: string, row: OperationRow): ReturnRecord {
  const terms = row.terms as ReturnTerms;
  const { amountOut, blockNumber, ...record } = recordOf(row);
  return {
    chain,
    walletId: row.wallet_id,
    account: getAddress(row.sender),
    token: getAddress(terms.token),
    to: getAddress(terms.to),
    reference: terms.reference,
    operator: terms.operator,
    ...record,
    ...(blockNumber !== undefined && { blockNumber: blockNumber.toString() }),
    ...(amountOut !== undefined && { returned: amountOut.toString() }),
  };
}

/**
 * What the books hold of an operation reopened by a reorganisation (`booked_status`; one reopened by a replica from
 * before the column was only ever booked as confirmed), or null for one never reopened.
 */
function bookedOf(row: OperationRow): 'confirmed' | 'failed' | null {
  return row.booked_status ?? (row.reorged_at !== null ? 'confirmed' : null);
}

/** Whether the operation kept (and submitted) is a cancellation: no calls, the step's nonce (reopenFrom). */
function keepsCancellation(row: OperationRow): boolean {
  return row.operation !== null && isNoCalls(operationFromJson(JSON.stringify(row.operation)).callData);
}

/**
 * The operation as its requester sees it. One booked as failed stays failed whatever a reorganisation did to it since
 * (cancelled, or its copy landed): a step asked again must not find another outcome than the books hold. One booked as
 * confirmed and reopened is pending until it lands again, then confirmed.
 */
function recordOf(row: OperationRow): OperationRecord {
  const status = bookedOf(row) === 'failed' ? 'failed' : row.status === 'submitted' ? 'pending' : row.status;
  return {
    status,
    ...(row.user_operation_hash && { userOperationHash: row.user_operation_hash }),
    ...(row.tx_hash && { transactionHash: row.tx_hash }),
    ...(row.amount_out !== null && status === 'confirmed' && { amountOut: BigInt(row.amount_out) }),
    ...(row.block_number !== null && { blockNumber: BigInt(row.block_number) }),
    ...(row.error && { error: row.error }),
  };
}

/** A fee as recorded: its canonical decimal, or null for none (absent or 0). */
function feeOf(fee: string | undefined): string | null {
  return fee !== undefined && dec(fee).gt(0) ? dec(fee).toFixed() : null;
}

/** One call moving `units` of `token` from the account to `to`: the token's `transfer`, or the native coin as value. */
function tokenCall(token: ChainToken, to: Address, units: bigint): AccountCall {
  if (token.address === NATIVE_TOKEN) return { to, value: units, data: '0x' };
  return { to: token.address, value: 0n, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [to, units] }) };
}

/**
 * The reason the bundler's estimation gave when the operation's own calls revert (final: the account cannot do what is
 * asked), or undefined for any other failure (the bundler or the node unreachable, the paymaster's deposit short):
 * those are tried again.
 */
export function callsRevert(error: unknown): string | undefined {
  // The first line only: viem's message goes on with the operation's fields (its paymaster among them).
  const text = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  if (/AA3\d/.test(text)) return undefined;
  const data = /reverted during simulation with reason: (0x[0-9a-fA-F]*)/.exec(text)?.[1];
  if (data) return revertDataReason(data as Hex);
  return /execution reverted/i.test(text) ? text : undefined;
}
