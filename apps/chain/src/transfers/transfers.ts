import type { PoolClient } from 'pg';
import type { Address } from 'viem';
import { AppError, invalidField } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import type { SendRecord } from '@ramp/evm';
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
}

/** A transfer as recorded beside its send (chain.transfers), for the books. */
export interface TransferRow {
  send_key: string;
  token_symbol: string;
  amount: string;
  to_address: string;
  account: string;
}

/**
 * Transfers from a chain's hot wallet for the platform's own services (a refund of a deposit, a ramp's settlement or
 * delivery): each recorded beside its send with the ledger account it is charged to, once per key.
 */
export class Transfers {
  constructor(private readonly context: ChainContext) {}

  /**
   * Queues a transfer from the hot wallet (a token's `transfer`, or a lane's `transferFrom` of it; or the native coin), charged to the ledger account
   * `terms.account` when final; the same key is the same transfer, and asked again with any other term it is refused
   * (IDEMPOTENCY_KEY_REUSED). A refund (`terms.refundOf`) is checked against the deposit it names first (checkRefund).
   */
  async request(key: string, terms: TransferTerms): Promise<SendRecord> {
    const { to, token, amount, account, refundOf } = terms;
    const sendKey = `transfer:${key}`;
    const known = await this.knownTransfer(this.context.pool, sendKey, terms);
    if (known) return known;
    const units = toBaseUnits(amount, token.decimals);
    if (refundOf !== undefined) await this.checkRefund(refundOf, terms);
    return withTransaction(this.context.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.transfers (chain, send_key, token_symbol, amount, to_address, account, refund_of) values ($1, $2, $3, $4::numeric, $5, $6, $7) on conflict do nothing`,
        [this.context.id, sendKey, token.symbol, amount, to, account, refundOf ?? null],
      );
      if (inserted.rowCount === 0) {
        // Queued meanwhile under this key (a concurrent request: its answer is this one's), or the deposit was given
        // back by another transfer.
        const again = await this.knownTransfer(tx, sendKey, terms);
        if (again) return again;
        throw invalidField('refundOf', `deposit ${refundOf} is already given back by another transfer`);
      }
      // Recorded with what it pays out; a refund gives back exactly a deposit that arrived: it counts against no limit.
      await this.context.outflows.record(tx, {
        sendKey,
        token,
        amount,
        paysOut: terms.paysOut,
        organizationId: terms.organizationId,
        counted: refundOf === undefined,
      });
      return this.context.enqueueTransfer(tx, sendKey, token, to, units);
    });
  }

  /** The transfer a send of the hot wallet made, for the event that books it; undefined for any other send. */
  async ofSend(db: Pick<PoolClient, 'query'>, sendKey: string): Promise<TransferRow | undefined> {
    const { rows } = await db.query<TransferRow>(
      `select send_key, token_symbol, amount::text, to_address, account from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = $2`,
      [this.context.id, sendKey],
    );
    return rows[0];
  }

  /** The transfers among some sends of the hot wallet (holdings). */
  async ofSends(db: Pick<PoolClient, 'query'>, sendKeys: string[]): Promise<TransferRow[]> {
    const { rows } = await db.query<TransferRow>(
      `select send_key, token_symbol, amount::text, to_address, account from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = any($2)`,
      [this.context.id, sendKeys],
    );
    return rows;
  }

  /** A transfer queued before under `sendKey`; IDEMPOTENCY_KEY_REUSED when any of its terms differs; undefined when none. */
  private async knownTransfer(db: Pick<PoolClient, 'query'>, sendKey: string, terms: TransferTerms): Promise<SendRecord | undefined> {
    const { rows } = await db.query<{ token_symbol: string; amount: string; to_address: string; account: string; refund_of: string | null }>(
      `select token_symbol, amount::text, to_address, account, refund_of from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = $2`,
      [this.context.id, sendKey],
    );
    const row = rows[0];
    if (!row) return undefined;
    const same =
      row.token_symbol === terms.token.symbol &&
      dec(row.amount).eq(terms.amount) &&
      row.to_address.toLowerCase() === terms.to.toLowerCase() &&
      row.account === terms.account &&
      (row.refund_of ?? undefined) === terms.refundOf;
    if (!same) throw new AppError('IDEMPOTENCY_KEY_REUSED', `Transfer ${sendKey.slice('transfer:'.length)} was queued with other terms`);
    return (await this.context.hot.find(sendKey, db))!;
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
