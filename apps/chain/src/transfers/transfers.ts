import type { PoolClient } from 'pg';
import { getAddress, keccak256, toHex, type Address } from 'viem';
import { AppError, invalidField } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import { recordOf, type SendRecord, type SendRow } from '@ramp/evm';
import { dec, fromBaseUnits, toBaseUnits } from '@ramp/money';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';

/** What a transfer from the hot wallet asks (ChainTransfer). */
export interface TransferTerms {
  to: Address;
  token: ChainToken;
  /** Decimal string in the token's units. */
  amount: string;
  account: string;
  /** A refund: the deposit it gives back. */
  refundOf?: string;
  /** What it pays out: the transaction whose hold or ledger entry it settles (a refund's is its deposit). */
  paysOut: string;
  /** The organization whose transaction it pays out, for its outflow limit. */
  organizationId?: string;
  /** A settlement that may go out netted with others (ChainTransfer's `net`). */
  net?: boolean;
  /** Into this managed wallet's own account (`to` is its address): within the platform's holdings, no outflow. */
  toWallet?: string;
}

/** A transfer as recorded beside its send (chain.transfers), for the books. */
export interface TransferRow {
  send_key: string;
  token_symbol: string;
  amount: string;
  to_address: string;
  account: string;
  /** Into a wallet's account (ChainTransfer `toWallet`): the wallet; null otherwise. */
  to_wallet?: string | null;
  /** A netted send's: the settlements it paid, each its key (without `transfer:`), what it pays out, and its amount. */
  shares?: { idempotencyKey: string; paysOut: string; amount: string }[];
}

/**
 * Whether a netted settlement of the chain `$1` has waited `$2` seconds (the netting interval): asked in the pass's look
 * (ChainRuntime). A group is due once its oldest is, so one such settlement is enough (netDue finds the groups).
 */
export const NETTING_DUE = `exists (select 1 from ${CHAIN_SCHEMA}.transfers where chain = $1 and netted and net_send_key is null and created_at <= now() - make_interval(secs => $2))`;

/**
 * Transfers from a chain's hot wallet for the platform's own services (a refund of a deposit, a ramp's settlement or
 * delivery): each recorded beside its send with the ledger account it is charged to, once per key. A settlement asked
 * to be netted (`net`, with `netMs` above 0) is recorded without a send of its own; every `netMs`, the chain's leader
 * sends the settlements waiting for the same address, token and account as one transfer (netDue), whose status and
 * hash each of them answers from then on, and whose `send.finished` carries each one's share for the books.
 */
export class Transfers {
  constructor(
    private readonly context: ChainContext,
    /** CHAIN_SETTLEMENT_NET_MS: how long a netted settlement waits for others; 0, each is sent on its own. */
    readonly netMs = 0,
  ) {}

  /** What a netted settlement not yet sent waits for, as its answer says. */
  get nettingWaits(): string {
    return `netted: sent with the other settlements to the same address within ${this.netMs} ms (CHAIN_SETTLEMENT_NET_MS)`;
  }

  /**
   * Queues a transfer from the hot wallet (a token's `transfer`, or a lane's `transferFrom` of it; or the native coin), charged to the ledger account
   * `terms.account` when final; the same key is the same transfer, and asked again with any other term it is refused
   * (IDEMPOTENCY_KEY_REUSED). A refund (`terms.refundOf`) is checked against the deposit it names first (checkRefund).
   */
  async request(key: string, terms: TransferTerms): Promise<SendRecord | undefined> {
    const { to, token, amount, account, refundOf } = terms;
    const net = terms.net === true && this.netMs > 0;
    const sendKey = `transfer:${key}`;
    const known = await this.knownTransfer(this.context.pool, sendKey, terms);
    if (known) return known.send;
    const units = toBaseUnits(amount, token.decimals);
    if (refundOf !== undefined) await this.checkRefund(refundOf, terms);
    return withTransaction(this.context.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.transfers (chain, send_key, token_symbol, amount, to_address, account, refund_of, netted, to_wallet) values ($1, $2, $3, $4::numeric, $5, $6, $7, $8, $9) on conflict do nothing`,
        [this.context.id, sendKey, token.symbol, amount, to, account, refundOf ?? null, net, terms.toWallet ?? null],
      );
      if (inserted.rowCount === 0) {
        // Queued meanwhile under this key (a concurrent request: its answer is this one's), or the deposit was given
        // back by another transfer.
        const again = await this.knownTransfer(tx, sendKey, terms);
        if (again) return again.send;
        throw invalidField('refundOf', `deposit ${refundOf} is already given back by another transfer`);
      }
      // Recorded with what it pays out; a refund gives back exactly a deposit that arrived, and a transfer into a wallet's
      // account stays within the platform's holdings: neither counts against a limit.
      await this.context.outflows.record(tx, {
        sendKey,
        token,
        amount,
        paysOut: terms.paysOut,
        organizationId: terms.organizationId,
        counted: refundOf === undefined && terms.toWallet === undefined,
      });
      // Netted: sent with the others at the next netting (netDue), not now.
      if (net) return undefined;
      return this.context.enqueueTransfer(tx, sendKey, token, to, units);
    });
  }

  /**
   * The leader's netting, at a pass whose look found one due (NETTING_DUE): the netted settlements waiting for the same address, token and account, once
   * the oldest has waited `netMs`, queued as one transfer of their sum (through the chain's lanes, after whatever must
   * come in first, as any transfer), each marked with its key in the same transaction. Its key is the first
   * settlement's, hashed: a settlement belongs to one netted send only.
   */
  async netDue(): Promise<void> {
    if (this.netMs <= 0) return;
    const { context } = this;
    const { rows: due } = await context.pool.query<{ to_address: string; token_symbol: string; account: string }>(
      `select to_address, token_symbol, account from ${CHAIN_SCHEMA}.transfers where chain = $1 and netted and net_send_key is null
        group by to_address, token_symbol, account having min(created_at) <= now() - make_interval(secs => $2)`,
      [context.id, this.netMs / 1000],
    );
    for (const group of due) {
      const token = context.token(group.token_symbol);
      if (!token) continue;
      await withTransaction(context.pool, async (tx) => {
        const { rows } = await tx.query<{ send_key: string; amount: string }>(
          `select send_key, amount::text from ${CHAIN_SCHEMA}.transfers
            where chain = $1 and netted and net_send_key is null and to_address = $2 and token_symbol = $3 and account = $4
            order by created_at, send_key for update`,
          [context.id, group.to_address, group.token_symbol, group.account],
        );
        if (rows.length === 0) return;
        const units = rows.reduce((sum, row) => sum + toBaseUnits(row.amount, token.decimals), 0n);
        const netKey = `net:${keccak256(toHex(rows[0]!.send_key)).slice(2, 26)}`;
        await tx.query(`update ${CHAIN_SCHEMA}.transfers set net_send_key = $3 where chain = $1 and send_key = any($2)`, [
          context.id,
          rows.map((row) => row.send_key),
          netKey,
        ]);
        await context.enqueueTransfer(tx, netKey, token, getAddress(group.to_address), units);
      });
    }
  }

  /** The transfer a send of the hot wallet made, for the event that books it (a netted one with its shares); undefined for any other send. */
  async ofSend(db: Pick<PoolClient, 'query'>, sendKey: string): Promise<TransferRow | undefined> {
    return (await this.ofSends(db, [sendKey]))[0];
  }

  /** The transfers among some sends of the hot wallet (holdings, the books): a netted send's as their sum, with its shares. */
  async ofSends(db: Pick<PoolClient, 'query'>, sendKeys: string[]): Promise<TransferRow[]> {
    const { rows } = await db.query<TransferRow>(
      `select send_key, token_symbol, amount::text, to_address, account, to_wallet, null as shares from ${CHAIN_SCHEMA}.transfers
        where chain = $1 and send_key = any($2) and not netted
       union all
       select t.net_send_key, min(t.token_symbol), sum(t.amount)::text, min(t.to_address), min(t.account), null,
              jsonb_agg(jsonb_build_object('idempotencyKey', substr(t.send_key, 10), 'paysOut', o.pays_out, 'amount', t.amount::text) order by t.send_key)
         from ${CHAIN_SCHEMA}.transfers t join ${CHAIN_SCHEMA}.outflows o on o.chain = t.chain and o.send_key = t.send_key
        where t.chain = $1 and t.net_send_key = any($2)
        group by t.net_send_key`,
      [this.context.id, sendKeys],
    );
    return rows.map((row) => (row.shares ? row : { ...row, shares: undefined }));
  }

  /**
   * A transfer queued before under `sendKey` (its send; none yet for a netted settlement waiting for its netting);
   * IDEMPOTENCY_KEY_REUSED when any of its terms differs; undefined when there is none.
   */
  private async knownTransfer(db: Pick<PoolClient, 'query'>, sendKey: string, terms: TransferTerms): Promise<{ send: SendRecord | undefined } | undefined> {
    // One statement: the transfer's terms and the send that carries it (its own, or for a netted settlement the netted
    // transfer's, none while it waits for its netting).
    const { rows } = await db.query<
      Partial<SendRow> & {
        transfer: {
          token_symbol: string;
          amount: string;
          to_address: string;
          account: string;
          refund_of: string | null;
          netted: boolean;
          to_wallet: string | null;
        };
      }
    >(
      `select s.*, json_build_object('token_symbol', t.token_symbol, 'amount', t.amount::text, 'to_address', t.to_address, 'account', t.account,
                'refund_of', t.refund_of, 'netted', t.netted, 'to_wallet', t.to_wallet) as transfer
         from ${CHAIN_SCHEMA}.transfers t
         left join ${CHAIN_SCHEMA}.chain_sends s on s.chain = t.chain and s.idempotency_key = case when t.netted then t.net_send_key else t.send_key end
        where t.chain = $1 and t.send_key = $2`,
      [this.context.id, sendKey],
    );
    const found = rows[0];
    if (!found) return undefined;
    const row = found.transfer;
    const same =
      row.token_symbol === terms.token.symbol &&
      dec(row.amount).eq(terms.amount) &&
      row.to_address.toLowerCase() === terms.to.toLowerCase() &&
      row.account === terms.account &&
      // Whether it may be netted says how it is sent, not what: the first request decided it.
      (row.refund_of ?? undefined) === terms.refundOf &&
      (row.to_wallet ?? undefined) === terms.toWallet;
    if (!same) throw new AppError('IDEMPOTENCY_KEY_REUSED', `Transfer ${sendKey.slice('transfer:'.length)} was queued with other terms`);
    // A netted settlement answers with the transfer that carries it, once there is one.
    if (found.id === null || found.id === undefined) {
      if (!row.netted) throw new Error(`transfer ${sendKey} has no send`);
      return { send: undefined };
    }
    return { send: recordOf(found as SendRow) };
  }

  /**
   * A refund gives back exactly one credited deposit of a non-custodial off-ramp's address, as it arrived: the same
   * token, the same amount, to its sender (any address for a deposit that was minted, which has none: the off-ramp's
   * declared source then). Anything else is refused naming `refundOf`: never more, nor another token, than arrived.
   */
  private async checkRefund(depositId: string, terms: TransferTerms): Promise<void> {
    const { environment, chain } = this.context;
    const prefix = `${environment}:${chain}:`;
    const [txHash, logIndex] = depositId.startsWith(prefix) ? depositId.slice(prefix.length).split(':') : [];
    const { rows } = await this.context.pool.query<{ token: string; amount: string; from_address: string; status: string; credited: boolean; owner: string }>(
      `select d.token, d.amount::text, d.from_address, d.status, d.credited, a.owner
         from ${CHAIN_SCHEMA}.chain_deposits d join ${CHAIN_SCHEMA}.deposit_addresses a on a.chain = d.chain and a.address = d.to_address
        where d.chain = $1 and d.tx_hash = $2 and d.log_index = $3`,
      [this.context.id, txHash ?? '', /^-?\d+$/.test(logIndex ?? '') ? Number(logIndex) : 0],
    );
    const deposit = rows[0];
    const refuse = (why: string): never => {
      throw invalidField('refundOf', `${depositId} ${why}`);
    };
    if (!deposit || !txHash) return refuse(`is not a deposit of ${environment} ${chain}`);
    if (!deposit.owner.startsWith('offramp:')) return refuse("is not a deposit to an off-ramp's address: only those are given back");
    if (deposit.status !== 'confirmed' || !deposit.credited) return refuse(`is not a credited deposit (${deposit.status})`);
    if (deposit.token !== terms.token.address) return refuse(`was not ${terms.token.symbol}: a refund is in the deposit's own token`);
    if (BigInt(deposit.amount) !== toBaseUnits(terms.amount, terms.token.decimals))
      return refuse(`was ${fromBaseUnits(BigInt(deposit.amount), terms.token.decimals)} ${terms.token.symbol}: a refund is exactly what arrived`);
    if (!/^0x0{40}$/.test(deposit.from_address) && deposit.from_address !== terms.to.toLowerCase())
      return refuse('came from another address: a refund goes back to its sender');
  }
}
