import { Injectable } from '@nestjs/common';
import { parseToken } from '@ramp/chains';
import {
  assetOf,
  chainAccount,
  chargedAccount,
  depositsAccount,
  dustAccount,
  move,
  OFFRAMP_PROVIDER,
  reorgLossAccount,
  walletAccount,
  type Leg,
} from '@ramp/bookkeeping';
import type { DepositCredited, DepositReversed } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import type { StoredEvent } from '@ramp/event-store';
import type { TransactionView } from '@ramp/transactions';
import { dec, Decimal } from '@ramp/money';
import { Journal } from '../journal/journal';

/**
 * The books of deposits on chain: each credit the chain service confirms (the first, and any later one of the same
 * deposit that the chain took back in after a reorganisation), and each reversal, posted once by entry id.
 *
 * A credit moves the amount from the chain's account to its owner's: the wallet it names, or its kind's deposits
 * account (`offramp`, `treasury`). A reversal takes it back from the owner as far as the owner still holds it (a wallet's
 * available balance; a deposit that was refunded is no longer held at all), and the rest, the shortfall, from the
 * reorganisation loss account (reorgLossAccount): never a negative customer balance, never a loss without a record.
 * A later credit of the same deposit pays the loss back first, then the owner. Dust (below its token's minimum) is
 * booked to the platform's dust account instead of its owner's, and taken back from there.
 */
/** NOTIFYed when a deposit to a managed wallet is recorded in ledger.chain_deposits. */
export const WALLET_DEPOSITS_CHANNEL = 'ledger_wallet_deposits';

@Injectable()
export class DepositBooks {
  private readonly journal = new Journal();

  /** A deposit credited: false when it was booked before (a redelivery). */
  async credit(tx: Sql, deposit: DepositCredited): Promise<boolean> {
    const owner = await this.ownerOf(tx, deposit);
    if (!owner) return false;
    const credit = deposit.credit ?? 0;
    const amount = dec(deposit.amount);
    const chain = chainAccount(deposit.environment, deposit.chain);
    if (credit === 0) {
      if (owner.walletId) {
        const inserted = await tx.query(
          `insert into ledger.chain_deposits (deposit_id, wallet_id, transaction_hash, token_symbol, amount) values ($1, $2, $3, $4, $5::numeric) on conflict do nothing`,
          [deposit.depositId, owner.walletId, deposit.transactionHash, deposit.tokenSymbol, amount.toString()],
        );
        if (inserted.rowCount === 0) return false;
        // At the commit: a sandbox funding waiting for this deposit (WalletService.fund) looks again.
        await tx.query(`select pg_notify($1, '')`, [WALLET_DEPOSITS_CHANNEL]);
      }
      return this.journal.post(tx, `deposit:${deposit.depositId}`, 'deposit', move(chain, owner.account, owner.asset, amount));
    }
    const { rows } = await tx.query<{ shortfall: string }>(`select shortfall::text from ledger.deposit_reversals where deposit_id = $1 and credit = $2`, [
      deposit.depositId,
      credit - 1,
    ]);
    const shortfall = dec(rows[0]?.shortfall ?? '0');
    const legs: Leg[] = [];
    if (shortfall.gt(0)) legs.push(...move(chain, reorgLossAccount(deposit.environment, deposit.chain), owner.asset, shortfall));
    if (amount.gt(shortfall)) legs.push(...move(chain, owner.account, owner.asset, amount.sub(shortfall)));
    return this.journal.post(tx, `deposit:${deposit.depositId}:credit:${credit}`, 'deposit', legs);
  }

  /** A credited deposit a reorganisation removed: its credit taken back, once. */
  async reverse(tx: Sql, reversed: DepositReversed): Promise<boolean> {
    const owner = await this.ownerOf(tx, reversed);
    if (!owner) return false;
    const amount = dec(reversed.amount);
    const held = reversed.refunded ? dec(0) : owner.walletId ? await this.available(tx, owner.account, owner.asset) : amount;
    const taken = Decimal.min(held, amount);
    const shortfall = amount.sub(taken);
    const chain = chainAccount(reversed.environment, reversed.chain);
    const legs: Leg[] = [];
    if (taken.gt(0)) legs.push(...move(owner.account, chain, owner.asset, taken));
    if (shortfall.gt(0)) legs.push(...move(reorgLossAccount(reversed.environment, reversed.chain), chain, owner.asset, shortfall));
    const posted = await this.journal.post(tx, `deposit:${reversed.depositId}:reversal:${reversed.credit}`, 'deposit-reversal', legs);
    if (!posted) return false;
    await tx.query(
      `insert into ledger.deposit_reversals (deposit_id, credit, owner, asset, amount, shortfall) values ($1, $2, $3, $4, $5::numeric, $6::numeric) on conflict do nothing`,
      [reversed.depositId, reversed.credit, reversed.owner, owner.asset, amount.toString(), shortfall.toString()],
    );
    return true;
  }

  /**
   * What an off-ramp's process says of its deposit: that it was spent (`offramp.completed`, `offramp.payout_held`: see
   * bookDepositSpent), and of its reversal (`offramp.deposit_reversed` and `offramp.deposit_restored`): a deposit
   * reversed after the off-ramp paid the Naira out was spent for nothing, a loss booked from the reorganisation loss
   * account to the off-ramp deposits account (which the reversal had taken it from, after its spending had); the same
   * deposit back on chain recovers it. Once each (entry ids).
   */
  async bookOfframpEvent(tx: Sql, event: Pick<StoredEvent, 'type' | 'data' | 'metadata'>): Promise<boolean> {
    if (event.type === 'offramp.completed' || event.type === 'offramp.payout_held') return this.bookDepositSpent(tx, event);
    if (event.type !== 'offramp.deposit_reversed' && event.type !== 'offramp.deposit_restored') return false;
    const data = event.data as {
      depositId: string;
      credit: number;
      environment: string;
      chain: string;
      tokenSymbol: string;
      amount: string;
      afterPayout?: boolean;
      refunded?: boolean;
    };
    const loss = reorgLossAccount(data.environment, data.chain);
    const deposits = depositsAccount('offramp', data.environment, data.chain);
    const asset = assetOf(data.chain, data.tokenSymbol);
    if (event.type === 'offramp.deposit_reversed') {
      if (!data.afterPayout || data.refunded) return false;
      return this.journal.post(tx, `deposit:${data.depositId}:paid-out-loss:${data.credit}`, 'reorg-loss', move(loss, deposits, asset, data.amount));
    }
    return this.journal.post(tx, `deposit:${data.depositId}:paid-out-recovery:${data.credit}`, 'reorg-recovery', move(deposits, loss, asset, data.amount));
  }

  /**
   * An off-ramp's deposit on chain is spent once the off-ramp paid out (`offramp.completed`), or swapped it and holds
   * its payout for an operator (`offramp.payout_held`): it is no longer the customer's to be given back, so it leaves
   * the off-ramp deposits account for the provider's (OFFRAMP_PROVIDER, which its swap or settlement was charged to).
   * Without it, every completed off-ramp's deposit would count as owed forever, and the treasury's free inventory would
   * shrink by each. Once per off-ramp (`offramp:<id>:deposit-spent`, whichever of the two comes first); a deposit the
   * sandbox's rails simulated (never credited on chain) and a custodial off-ramp's (a wallet's hold, captured) have none.
   * It may be booked before the deposit's credit (another consumer): the account's balance comes right with both.
   */
  private async bookDepositSpent(tx: Sql, event: Pick<StoredEvent, 'type' | 'metadata'>): Promise<boolean> {
    const view = event.metadata.view as TransactionView | undefined;
    const deposit = view?.hashes?.find((hash) => hash.step === 'deposit');
    if (!view || deposit?.settlement !== 'onchain') return false;
    const { environment } = event.metadata.tenant;
    return this.journal.post(
      tx,
      `offramp:${view.id}:deposit-spent`,
      'offramp-deposit-spent',
      move(
        depositsAccount('offramp', environment, view.chain),
        chargedAccount(OFFRAMP_PROVIDER, environment, view.chain),
        assetOf(view.chain, view.tokenSymbol),
        view.amount,
      ),
    );
  }

  /**
   * The account a deposit belongs to: a managed wallet's (which must be on the deposit's chain and environment), or its
   * owner kind's deposits account; undefined for an owner the ledger does not book.
   */
  private async ownerOf(tx: Sql, deposit: DepositCredited): Promise<{ account: string; asset: string; walletId?: string } | undefined> {
    const asset = assetOf(deposit.chain, deposit.tokenSymbol);
    // Dust is the platform's, where it arrived: never its owner's.
    if (deposit.dust) return { account: dustAccount(deposit.environment, deposit.chain), asset };
    const walletId = /^wallet:(.+)$/.exec(deposit.owner)?.[1];
    if (!walletId) {
      const kind = /^([a-z]+):/.exec(deposit.owner)?.[1];
      return kind ? { account: depositsAccount(kind, deposit.environment, deposit.chain), asset } : undefined;
    }
    const { rows } = await tx.query<{ chain: 'base' | 'bsc' }>(`select chain from ledger.wallets where id = $1 and environment = $2`, [
      walletId,
      deposit.environment,
    ]);
    if (!rows[0] || rows[0].chain !== deposit.chain)
      throw new Error(`deposit ${deposit.depositId} names wallet ${walletId}, which is not on ${deposit.environment} ${deposit.chain}`);
    parseToken(rows[0].chain, deposit.tokenSymbol, 'tokenSymbol');
    return { account: walletAccount(walletId), asset, walletId };
  }

  /** What an account holds of an asset, its balance row locked until the transaction ends (a reversal takes from it). */
  private async available(tx: Sql, account: string, asset: string): Promise<Decimal> {
    const { rows } = await tx.query<{ amount: string }>(`select amount::text from ledger.balances where account = $1 and asset = $2 for update`, [
      account,
      asset,
    ]);
    return dec(rows[0]?.amount ?? '0');
  }
}
