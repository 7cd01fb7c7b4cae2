import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import {
  assetOf,
  chainAccount,
  chargedAccount,
  custodyDrift,
  depositsAccount,
  gasAccount,
  move,
  paymasterAccount,
  sponsoredGasAccount,
  sponsoredGasAccountOf,
  uncoveredLiabilities,
  inventoryOf,
  type Drift,
  type Inventory,
  type Leg,
  type Liability,
  walletDrift,
  type WalletDrift,
} from '@ramp/bookkeeping';
import {
  ChainHoldings,
  ChainWalletBalances,
  platformTenant,
  TreasuryInventory,
  TreasuryReserve,
  type DepositCredited,
  type DepositReversed,
  type Environment,
  type SendFinished,
  type TreasuryOpened,
} from '@ramp/contracts';
import { withTransaction, type Sql } from '@ramp/database';
import { RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import { PG_POOL } from '@ramp/service-kit';
import { Journal } from '../journal/journal';
import { DepositBooks } from './deposit-books';

export interface Reconciliation {
  environment: Environment;
  chains: { chain: string; blockNumber: string }[];
  drifts: Drift[];
  /** Tokens whose customers' wallet balances (held included) exceed what the platform holds of them on their chain. */
  uncovered: (Liability & { held: string })[];
  /** What the platform holds of each token on each chain beyond its customers' balances there (inventoryOf). */
  inventory: Inventory[];
  /** Each managed wallet whose address is a smart account, against what its account holds (reconcileWallets). */
  wallets: WalletReconciliation;
}

export interface WalletReconciliation {
  /** Wallets compared, token by token. */
  reconciled: number;
  /** Wallets left for a later round: something on its way to or from the account, or a hold open in the books. */
  inFlight: number;
  drifts: WalletDrift[];
}

/**
 * The books of the chains (see custodyDrift): every deposit the chain service credits, and the gas and the transfer of
 * every hot-wallet send that became final, are posted against the chain's account, once each (the entry id is the
 * deposit's or the send's id). Reconciliation compares the books with what the chain service reads on chain.
 */
@Injectable()
export class ChainBooks {
  private readonly journal = new Journal();

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(DepositBooks) private readonly deposits: DepositBooks,
    @Inject(RpcClient) private readonly rpc: RpcClient,
  ) {}

  /** A wallet's deposit credits the wallet; any other owner's (an off-ramp, the treasury) goes to its kind's account. */
  async bookDeposit(tx: Sql, deposit: DepositCredited): Promise<boolean> {
    return this.deposits.credit(tx, deposit);
  }

  /** A credited deposit a reorganisation removed: taken back from its owner, the shortfall booked as the platform's loss. */
  async bookReversal(tx: Sql, reversed: DepositReversed): Promise<boolean> {
    return this.deposits.reverse(tx, reversed);
  }

  /** A hot wallet's holdings when the chain service began watching it: the treasury's opening balance. */
  async bookOpening(tx: Sql, opened: TreasuryOpened): Promise<boolean> {
    const { environment, chain } = opened;
    const legs = opened.holdings.flatMap((holding) =>
      move(chainAccount(environment, chain), depositsAccount('treasury', environment, chain), assetOf(chain, holding.tokenSymbol), holding.amount),
    );
    if (legs.length === 0) return false;
    return this.journal.post(tx, `opening:${environment}-${chain}:${opened.blockNumber}`, 'treasury-opening', legs);
  }

  /**
   * The gas of a final send, what a confirmed transfer took (a netted one's shares each on its own), a confirmed swap's both sides, and what a send of the intent
   * bridge moved, against the chain's account (a swap's and a bridge's against the account they name,
   * `external:route-execution-<environment>-<chain>` for routes).
   */
  async bookSend(tx: Sql, send: SendFinished): Promise<boolean> {
    // A live send that was reserved (a live on-ramp's swap of the treasury's CNGN, or its delivery of the treasury's
    // CNGN: TreasuryReserve, by the key the ramp service gave the send, which the chain service's send key is `swap:` or
    // `transfer:` before; a netted transfer's shares by their own keys) is final: what it spent has left the holdings,
    // or it reverted and spent nothing; either way its reservation ends with its booking.
    if (send.environment === 'live') {
      const keys = [send.idempotencyKey.replace(/^(swap|transfer):/, ''), ...(send.transfer?.shares ?? []).map((share) => share.idempotencyKey)];
      await tx.query(`update ledger.treasury_reservations set released_at = now() where reservation_id = any($1::text[]) and released_at is null`, [keys]);
    }
    const sponsored = await this.bookSponsoredGas(tx, send);
    return (await this.bookChainSide(tx, send)) || sponsored;
  }

  /**
   * The gas the paymaster sponsored for a managed wallet's UserOperation: the platform's expense, booked against the
   * wallet's organization (`sponsored:<send id>`), out of the paymaster's deposit. Nothing for a hot wallet's send.
   */
  private async bookSponsoredGas(tx: Sql, send: SendFinished): Promise<boolean> {
    if (!send.account || !dec(send.account.sponsoredGasCost).gt(0)) return false;
    const { environment, chain } = send;
    const { rows } = await tx.query<{ organization_id: string }>(`select organization_id from ledger.wallets where id = $1`, [send.account.walletId]);
    // A wallet the ledger never made (the chain service's own tests): the platform's, unattributed.
    const organizationId = rows[0]?.organization_id ?? 'unattributed';
    const legs = move(
      sponsoredGasAccount(environment, chain, organizationId),
      paymasterAccount(environment, chain),
      assetOf(chain, send.nativeSymbol),
      send.account.sponsoredGasCost,
    );
    return this.journal.post(tx, `sponsored:${send.sendId}`, 'sponsored-gas', legs);
  }

  private async bookChainSide(tx: Sql, send: SendFinished): Promise<boolean> {
    const { environment, chain } = send;
    const legs: Leg[] = [];
    if (dec(send.gasCost).gt(0))
      legs.push(...move(gasAccount(environment, chain), chainAccount(environment, chain), assetOf(chain, send.nativeSymbol), send.gasCost));
    if (send.transfer?.shares) {
      // A netted transfer: each settlement it paid is an entry of its own (`send:<send id>:<its key>`), so that the
      // books show each off-ramp's share; the send's own entry is its gas.
      const { tokenSymbol, account, shares } = send.transfer;
      let posted = false;
      for (const share of shares) {
        const paid = move(chargedAccount(account, environment, chain), chainAccount(environment, chain), assetOf(chain, tokenSymbol), share.amount);
        posted = (await this.journal.post(tx, `send:${send.sendId}:${share.idempotencyKey}`, 'chain-send', paid)) || posted;
      }
      if (legs.length === 0) return posted;
      return (await this.journal.post(tx, `send:${send.sendId}`, 'chain-send', legs)) || posted;
    }
    // A transfer within the platform's holdings (the hot wallet into a wallet's account, or back) moved nothing the
    // chain's account holds: its gas only.
    if (send.transfer && !send.transfer.internal) {
      legs.push(
        ...move(
          chargedAccount(send.transfer.account, environment, chain),
          chainAccount(environment, chain),
          assetOf(chain, send.transfer.tokenSymbol),
          send.transfer.amount,
        ),
      );
    }
    if (send.swap) {
      // What went into the pools left the chain's holdings; what came out joined them when it was paid to the hot wallet.
      const { swap } = send;
      const charged = chargedAccount(swap.account, environment, chain);
      legs.push(...move(charged, chainAccount(environment, chain), assetOf(chain, swap.fromToken), swap.amountIn));
      if (swap.intoHotWallet) legs.push(...move(chainAccount(environment, chain), charged, assetOf(chain, swap.toToken), swap.amountOut));
    }
    if (send.bridge) {
      // The intent bridge: a deposit into the pool or a fill to an address outside left the holdings; a repayment or a
      // refund from the pool joined them.
      const { bridge } = send;
      const charged = chargedAccount(bridge.account, environment, chain);
      const asset = assetOf(chain, bridge.tokenSymbol);
      legs.push(
        ...(bridge.direction === 'out'
          ? move(charged, chainAccount(environment, chain), asset, bridge.amount)
          : move(chainAccount(environment, chain), charged, asset, bridge.amount)),
      );
    }
    if (legs.length === 0) return false;
    return this.journal.post(tx, `send:${send.sendId}`, 'chain-send', legs);
  }

  /** The gas sponsored so far per environment, chain and organization (sponsoredGasAccount), in the chain's native coin. */
  async sponsoredGas(): Promise<{ environment: string; chain: string; organizationId: string; amount: string }[]> {
    const { rows } = await this.pool.query<{ account: string; amount: string }>(
      `select account, amount::text from ledger.balances where account like 'external:sponsored-gas-%'`,
    );
    return rows.flatMap((row) => {
      const named = sponsoredGasAccountOf(row.account);
      return named ? [{ ...named, amount: dec(row.amount).neg().toFixed() }] : [];
    });
  }

  async reconcile(environment: Environment): Promise<Reconciliation> {
    return reconcileChains(this.pool, this.rpc, environment);
  }

  /**
   * The treasury's inventory on each chain of the environment, as a reconciliation computes it, without the rest of
   * one, less what live on-ramps' swaps on their way reserved (`reserved`).
   */
  async inventory(environment: Environment): Promise<TreasuryInventory.Entry[]> {
    const { chains } = await this.rpc.call(ChainHoldings.contract, platformTenant(environment, 'ledger'), { environment });
    return freeOf(this.pool, environment, (await holdingsAndLiabilities(this.pool, environment, chains)).inventory);
  }

  /**
   * Reserves an amount of the free inventory for a send (TreasuryReserve): under a lock per environment, chain and
   * token, the free inventory (the holdings read first, less what is owed and reserved) is read and the reservation
   * written in one transaction, so that two reservations never count the same tokens. The same id answers what it was.
   */
  async reserve(request: TreasuryReserve.Request & { environment: Environment }): Promise<TreasuryReserve.Response> {
    const { environment, chain, tokenSymbol, amount, reservationId } = request;
    const { chains } = await this.rpc.call(ChainHoldings.contract, platformTenant(environment, 'ledger'), { environment });
    return withTransaction(this.pool, async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(hashtext($1))`, [`treasury:${environment}:${chain}:${tokenSymbol}`]);
      const known = await tx.query(`select 1 from ledger.treasury_reservations where reservation_id = $1`, [reservationId]);
      const entries = await freeOf(tx, environment, (await holdingsAndLiabilities(tx, environment, chains)).inventory);
      const free = dec(entries.find((entry) => entry.chain === chain && entry.tokenSymbol === tokenSymbol)?.free ?? '0');
      if (known.rows.length > 0) return { reserved: true, free: free.toFixed() };
      if (free.lt(amount)) return { reserved: false, free: free.toFixed() };
      await tx.query(`insert into ledger.treasury_reservations (reservation_id, environment, chain, token_symbol, amount) values ($1, $2, $3, $4, $5)`, [
        reservationId,
        environment,
        chain,
        tokenSymbol,
        amount,
      ]);
      return { reserved: true, free: free.sub(amount).toFixed() };
    });
  }
}

/** How long a reservation counts at the most: a swap refused before it was sent is never booked, and must not hold it. */
const RESERVATION_HOURS = 1;

/** The inventory less the open reservations of each chain and token (`reserved`, taken from `free`). */
async function freeOf(db: Sql, environment: Environment, inventory: readonly Inventory[]): Promise<TreasuryInventory.Entry[]> {
  const { rows } = await db.query<{ chain: string; token_symbol: string; reserved: string }>(
    `select chain, token_symbol, sum(amount)::text as reserved from ledger.treasury_reservations
      where environment = $1 and released_at is null and created_at > now() - make_interval(hours => $2)
      group by 1, 2`,
    [environment, RESERVATION_HOURS],
  );
  return inventory.map((entry) => {
    const reserved = dec(rows.find((row) => row.chain === entry.chain && row.token_symbol === entry.tokenSymbol)?.reserved ?? '0');
    return { ...entry, reserved: reserved.toFixed(), free: dec(entry.free).sub(reserved).toFixed() };
  });
}

/**
 * What the platform owes on each chain of `chains` (the managed wallets' balances backed by the chain, available and
 * held, and the tokens of off-ramps in flight: arrived, not yet refunded or settled), and the treasury's inventory:
 * what it holds less that.
 */
async function holdingsAndLiabilities(db: Sql, environment: Environment, chains: readonly ChainHoldings.ChainHolding[]) {
  const { rows } = await db.query<{ chain: string; token_symbol: string; owed: string }>(
    `select split_part(b.asset, ':', 1) as chain, split_part(b.asset, ':', 2) as token_symbol, sum(b.amount)::text as owed
       from ledger.wallets w join ledger.balances b on b.account in ('wallet:' || w.id, 'held:' || w.id)
      where w.environment = $1 and w.onchain and b.amount > 0
      group by 1, 2`,
    [environment],
  );
  const configured = new Set(chains.map((held) => held.chain));
  const liabilities: Liability[] = rows
    .filter((row) => configured.has(row.chain))
    .map((row) => ({ chain: row.chain, tokenSymbol: row.token_symbol, owed: dec(row.owed).toFixed() }));
  const holdings = chains.flatMap((held) => held.holdings.map((holding) => ({ chain: held.chain, ...holding })));
  const { rows: inFlight } = await db.query<{ chain: string; token_symbol: string; owed: string }>(
    `select split_part(asset, ':', 1) as chain, split_part(asset, ':', 2) as token_symbol, amount::text as owed
       from ledger.balances where account like $1 and amount > 0`,
    [depositsAccount('offramp', environment, '%')],
  );
  const offramps: Liability[] = inFlight
    .filter((row) => configured.has(row.chain))
    .map((row) => ({ chain: row.chain, tokenSymbol: row.token_symbol, owed: dec(row.owed).toFixed() }));
  return { liabilities, holdings, inventory: inventoryOf([...liabilities, ...offramps], holdings) };
}

/** The books of each chain of the environment against the chain, to the base unit (the service's loop and ledger:check). */
export async function reconcileChains(db: Sql, rpc: Pick<RpcClient, 'call'>, environment: Environment, timeoutMs?: number): Promise<Reconciliation> {
  const { chains } = await rpc.call(ChainHoldings.contract, platformTenant(environment, 'ledger'), { environment }, { timeoutMs });
  const journal = new Journal();
  const drifts: Drift[] = [];
  for (const held of chains) {
    const account = chainAccount(environment, held.chain);
    const balances = (await journal.balances(db, [account])).get(account) ?? new Map<string, string>();
    drifts.push(...custodyDrift(held.chain, balances, held.holdings));
  }
  // Every customer's balance backed by the chain: what the wallets on chain hold (available and held), per token, is at
  // most what the platform holds there. The tokens of off-ramps in flight are customers' too: not the treasury's.
  const { liabilities, holdings, inventory } = await holdingsAndLiabilities(db, environment, chains);
  return {
    environment,
    chains: chains.map(({ chain, blockNumber }) => ({ chain, blockNumber })),
    drifts,
    uncovered: uncoveredLiabilities(liabilities, holdings),
    inventory,
    wallets: await reconcileWallets(
      db,
      rpc,
      environment,
      chains.map((held) => held.chain),
      timeoutMs,
    ),
  };
}

/**
 * Each managed wallet whose address is a smart account, against what its account holds on its chain, to the base unit
 * (walletDrift: its available and held amounts together), a page of wallets at a time (ChainWalletBalances). A wallet
 * is left for a later round while something is on its way to or from its account (the chain service says) or while a
 * hold of it is open in the books (a swap or an off-ramp between its operation and its capture). What remains transient
 * (a credit of a deposit or an on-ramp's delivery on its way from the chain service to the books) shows for one round:
 * alert on a drift that lasts.
 */
export async function reconcileWallets(
  db: Sql,
  rpc: Pick<RpcClient, 'call'>,
  environment: Environment,
  chains: readonly string[],
  timeoutMs?: number,
): Promise<WalletReconciliation> {
  const tenant = platformTenant(environment, 'ledger');
  const result: WalletReconciliation = { reconciled: 0, inFlight: 0, drifts: [] };
  for (const chain of chains) {
    let after: string | undefined;
    do {
      const page = await rpc.call(ChainWalletBalances.contract, tenant, { environment, chain, ...(after !== undefined && { after }) }, { timeoutMs });
      after = page.next;
      if (page.wallets.length === 0) break;
      const ids = page.wallets.map((wallet) => wallet.walletId);
      // Its available and held amounts together: a hold is a ledger entry over funds the account still holds.
      const { rows } = await db.query<{ wallet_id: string; asset: string; amount: string }>(
        `select w.id as wallet_id, b.asset, sum(b.amount)::text as amount
           from ledger.wallets w join ledger.balances b on b.account in ('wallet:' || w.id, 'held:' || w.id)
          where w.id = any($1) and w.environment = $2
          group by w.id, b.asset`,
        [ids, environment],
      );
      const { rows: holding } = await db.query<{ wallet_id: string }>(
        `select distinct wallet_id from ledger.holds where wallet_id = any($1) and status = 'held'`,
        [ids],
      );
      const open = new Set(holding.map((row) => row.wallet_id));
      for (const wallet of page.wallets) {
        if (!wallet.settled || open.has(wallet.walletId)) {
          result.inFlight += 1;
          continue;
        }
        const balances = new Map(rows.filter((row) => row.wallet_id === wallet.walletId).map((row) => [row.asset, row.amount]));
        result.reconciled += 1;
        result.drifts.push(...walletDrift(chain, wallet, balances, wallet.balances));
      }
    } while (after !== undefined);
  }
  return result;
}
