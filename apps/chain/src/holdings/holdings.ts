import { getAddress, type Address } from 'viem';
import { CHAIN_EVENT_TYPES } from '@ramp/contracts';
import { gasCost } from '@ramp/chains';
import { swapOutputOf } from '@ramp/evm';
import { toBaseUnits } from '@ramp/money';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';
import type { AccountOperations } from '../accounts/account-operations';
import type { IntentRelayer } from '../bridge/intent-relayer';
import type { Deposits } from '../deposits/deposits';
import { ownArrival, walletArrival } from '../deposits/own-arrival';
import type { Swaps } from '../swaps/swaps';
import type { Transfers } from '../transfers/transfers';
import { bookedHoldings, type MinedSend } from './reconcile';

/** A managed wallet's account and what it holds (Holdings.wallets), in base units. */
export interface AccountHoldings {
  walletId: string;
  address: Address;
  settled: boolean;
  balances: { token: ChainToken; units: bigint }[];
}

/** The jobs whose records say what the hot wallet's sends moved. */
export interface HoldingsSources {
  deposits: Pick<Deposits, 'checkpoint'>;
  transfers: Pick<Transfers, 'ofSends'>;
  swaps: Pick<Swaps, 'ofSends'>;
  accounts: Pick<AccountOperations, 'accounts' | 'minedNotFinal'>;
  relayer?: Pick<IntentRelayer, 'moved'>;
}

/**
 * What the platform holds on a chain, for the ledger's reconciliation (ChainHoldings): per token, what the books should
 * hold according to the chain, read at the watcher's checkpoint.
 */
export class Holdings {
  constructor(
    private readonly context: ChainContext,
    private readonly sources: HoldingsSources,
  ) {}

  /**
   * What the platform holds on this chain, read at the watcher's checkpoint (see ChainHoldings): undefined before the
   * chain's first pass.
   */
  async read(): Promise<{ blockNumber: bigint; holdings: Map<string, bigint> } | undefined> {
    const { context } = this;
    const blockNumber = await this.sources.deposits.checkpoint();
    if (blockNumber === undefined) return undefined;
    const { pool } = context;
    const hot = context.hot.sender;
    const { rows: open } = await pool.query<{ address: string }>(
      `select distinct d.to_address as address from ${CHAIN_SCHEMA}.chain_deposits d
        where d.chain = $1 and d.block_number <= $2 and d.status in ('seen', 'confirmed') and d.to_address <> $3
          and not exists (select 1 from ${CHAIN_SCHEMA}.sweeps w join ${CHAIN_SCHEMA}.chain_sends s on s.chain = w.chain and s.idempotency_key = w.send_key
                           where w.chain = $1 and w.address = d.to_address and s.status = 'confirmed' and s.block_number > d.block_number and s.block_number <= $2)`,
      [context.id, blockNumber.toString(), hot.toLowerCase()],
    );
    // The hot wallet, the unswept addresses and the managed wallets' accounts (whose funds stay there); the other lanes
    // for the native coin only: their gas, which the hot wallet's top-ups moved there. A lane never holds tokens (it
    // moves the hot wallet's by allowance): tokens someone sends a lane are nobody's deposit and are left out, so that
    // they cannot push the chain into a drift and pause it.
    const accounts = await this.sources.accounts.accounts();
    const holders = [...new Set([hot, ...open.map((row) => row.address as Address), ...accounts].map((holder) => holder.toLowerCase()))] as Address[];
    const lanes = context.lanes.queues.slice(1).map((lane) => lane.sender);
    const balances = new Map<string, bigint>();
    for (const token of context.tokens) {
      const of = token.address === context.native.address ? [...holders, ...lanes] : holders;
      const held = await context.balancesAt(token, of, blockNumber);
      balances.set(
        token.symbol,
        held.reduce((sum, balance) => sum + balance, 0n),
      );
    }
    // Seen on chain, not yet credited in the books. What the hot wallet's own sweeps and swaps brought it is never
    // credited as a deposit (ownArrival): the send's own booking covers it (and the mined sends below until then).
    const { rows: seen } = await pool.query<{ token: string; amount: string }>(
      `select d.token, sum(d.amount)::text as amount from ${CHAIN_SCHEMA}.chain_deposits d
        where d.chain = $1 and d.status = 'seen' and d.block_number <= $2
          and not (d.to_address = $3 and ${ownArrival('d', '$4', '$3')})
          and not ${walletArrival('d')}
          and not exists (select 1 from ${CHAIN_SCHEMA}.account_operations o where o.chain = d.chain and o.tx_hash = d.tx_hash and (d.to_address = $3 or d.to_address = o.sender))
        group by d.token`,
      [context.id, blockNumber.toString(), hot.toLowerCase(), hot],
    );
    const uncredited = seen.flatMap((row) => {
      const token = context.tokens.find((candidate) => candidate.address === row.token);
      return token ? [{ symbol: token.symbol, units: BigInt(row.amount) }] : [];
    });
    // Mined by the checkpoint but not final yet: the chain shows them spent, the books not yet. An account's operation
    // pays no gas of the holdings (the paymaster's deposit does), and its fee to the hot wallet stays within them.
    const operations = (await this.sources.accounts.minedNotFinal(blockNumber)).map((moved) => ({ gas: 0n, moved }));
    return { blockNumber, holdings: bookedHoldings(balances, uncredited, [...(await this.minedNotFinal(blockNumber)), ...operations], context.native.symbol) };
  }

  /**
   * What each managed wallet's account holds, read at the watcher's checkpoint, a page at a time in wallet id order
   * (ChainWalletBalances): per account, every token it holds less the dust it was sent (booked as the platform's, never
   * the wallet's), and whether anything is on its way to or from it (`settled: false`: a deposit seen and not credited,
   * an operation of its own, or a transfer or swap of the hot wallet into it, not final). Undefined before the chain's
   * first pass.
   */
  async wallets(after: string | undefined, limit: number): Promise<{ blockNumber: bigint; wallets: AccountHoldings[] } | undefined> {
    const { context } = this;
    const blockNumber = await this.sources.deposits.checkpoint();
    if (blockNumber === undefined) return undefined;
    const { rows } = await context.pool.query<{ owner: string; address: string; settled: boolean }>(
      `select a.owner, a.address,
              not exists (select 1 from ${CHAIN_SCHEMA}.chain_deposits d where d.chain = a.chain and d.to_address = a.address and d.status = 'seen' and d.block_number <= $2)
          and not exists (select 1 from ${CHAIN_SCHEMA}.account_operations o where o.chain = a.chain and o.sender = a.address and o.status in ('queued', 'submitted'))
          and not exists (select 1 from ${CHAIN_SCHEMA}.transfers t join ${CHAIN_SCHEMA}.chain_sends s on s.chain = t.chain and s.idempotency_key = t.send_key
                           where t.chain = a.chain and t.to_wallet = substr(a.owner, 8) and s.status in ('queued', 'pending'))
          and not exists (select 1 from ${CHAIN_SCHEMA}.swaps w join ${CHAIN_SCHEMA}.chain_sends s on s.chain = w.chain and s.idempotency_key = w.send_key
                           where w.chain = a.chain and w.to_wallet = substr(a.owner, 8) and s.status in ('queued', 'pending')) as settled
         from ${CHAIN_SCHEMA}.deposit_addresses a
        where a.chain = $1 and a.kind = 'account' and a.owner like 'wallet:%' and a.owner > $3
        order by a.owner limit $4`,
      [context.id, blockNumber.toString(), `wallet:${after ?? ''}`, limit],
    );
    if (rows.length === 0) return { blockNumber, wallets: [] };
    // Dust credited (and not taken back) at the checkpoint: the latest credit of each deposit says whether it was dust.
    const { rows: dust } = await context.pool.query<{ address: string; token: string; amount: string }>(
      `select d.to_address as address, d.token, sum(d.amount)::text as amount from ${CHAIN_SCHEMA}.chain_deposits d
        where d.chain = $1 and d.to_address = any($2) and d.status = 'confirmed' and d.block_number <= $3
          and (select e.data->>'dust' from ${CHAIN_SCHEMA}.events e
                where e.stream_id = 'deposit-' || $4 || ':' || d.tx_hash || ':' || d.log_index and e.type = $5
                order by e.stream_version desc limit 1) = 'true'
        group by 1, 2`,
      [context.id, rows.map((row) => row.address), blockNumber.toString(), `${context.environment}:${context.chain}`, CHAIN_EVENT_TYPES.depositCredited],
    );
    // The page's accounts read together, token by token (a few eth_calls for the page, not one per account and token).
    const addresses = rows.map((row) => getAddress(row.address));
    const read = await Promise.all(context.tokens.map((token) => context.balancesAt(token, addresses, blockNumber)));
    const wallets: AccountHoldings[] = [];
    for (const [i, row] of rows.entries()) {
      const address = addresses[i]!;
      const held = context.tokens.map((token, t) => ({ token, units: read[t]![i]! }));
      const balances = held
        .map(({ token, units }) => {
          const kept = dust.find((entry) => entry.address === row.address && entry.token.toLowerCase() === token.address.toLowerCase());
          return { token, units: units - (kept ? BigInt(kept.amount) : 0n) };
        })
        .filter(({ units }) => units !== 0n);
      wallets.push({ walletId: row.owner.slice('wallet:'.length), address, settled: row.settled, balances });
    }
    return { blockNumber, wallets };
  }

  /**
   * The sends of the hot wallet and its lanes mined by `blockNumber` but not final: their gas, and what each moved that the books do not
   * hold yet (`moved`: positive what left, to add back; negative what arrived, to take off).
   */
  private async minedNotFinal(blockNumber: bigint): Promise<MinedSend[]> {
    const { context, sources } = this;
    const pending = await context.lanes.pending();
    if (pending.length === 0) return [];
    const keys = pending.map((send) => send.idempotencyKey);
    const transfers = await sources.transfers.ofSends(context.pool, keys);
    const swaps = await sources.swaps.ofSends(context.pool, keys);
    const mined: MinedSend[] = [];
    for (const send of pending) {
      // Whichever attempt was mined (a replaced send's earlier one included); an RPC failure fails the whole read,
      // rather than leave a mined send out of it.
      const receipt = await context.hot.receiptOf(send.attempts);
      if (!receipt || receipt.blockNumber > blockNumber) continue;
      const moved: MinedSend['moved'] = [];
      const transfer = transfers.find((row) => row.send_key === send.idempotencyKey);
      const swap = swaps.find((row) => row.send_key === send.idempotencyKey);
      // Into a wallet's account (toWallet): within the holdings, nothing moved for the books.
      if (receipt.status === 'success' && transfer && !transfer.to_wallet) {
        const token = context.token(transfer.token_symbol)!;
        moved.push({ symbol: token.symbol, units: toBaseUnits(transfer.amount, token.decimals) });
      }
      if (receipt.status === 'success' && swap) {
        const [from, to] = [context.token(swap.from_token)!, context.token(swap.to_token)!];
        moved.push({ symbol: from.symbol, units: toBaseUnits(swap.amount_in, from.decimals) });
        const out = swapOutputOf(await context.poolsFor(from.symbol, to.symbol), from.symbol, to.symbol, receipt.logs);
        if (out !== undefined && (swap.to_address === context.hot.sender.toLowerCase() || swap.to_wallet !== null))
          moved.push({ symbol: to.symbol, units: -out });
      }
      const bridged = receipt.status === 'success' ? await sources.relayer?.moved(context, send.idempotencyKey) : undefined;
      if (bridged) moved.push({ symbol: bridged.symbol, units: bridged.direction === 'out' ? bridged.units : -bridged.units });
      mined.push({ gas: gasCost(receipt.gasUsed, receipt.effectiveGasPrice), moved });
    }
    return mined;
  }
}
