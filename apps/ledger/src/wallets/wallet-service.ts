import { Inject, Injectable } from '@nestjs/common';
import type { Pool } from 'pg';
import { DUST_MINIMUMS, getChain, isDust, parseChain, parseToken, PRIMARY_CHAINS, type PrimaryChainName } from '@ramp/chains';
import {
  AppError,
  depositAddressOrSimulated,
  DepositAddressWatch,
  FaucetSend,
  generationOf,
  isIdOf,
  newId,
  invalidField,
  sandboxOnly,
  type HoldPlace,
  type HoldSettle,
  type Tenant,
  type WalletCredit,
  type WalletFund,
  type WalletList,
  type WalletView,
} from '@ramp/contracts';
import { RpcClient } from '@ramp/messaging';
import { RecordedWaits, withTransaction, type Sql } from '@ramp/database';
import { assetOf, externalAccount, heldAccount, move, revenueAccount, smartAccountAddress, walletAccount, type Leg } from '@ramp/bookkeeping';
import { dec, parseAmount } from '@ramp/money';
import { PG_POOL } from '@ramp/service-kit';
import { Config } from '@ramp/config';
import { insufficient, InsufficientFunds, Journal } from '../journal/journal';
import { pageMeta, parsePage } from '@ramp/contracts';

interface WalletRow {
  id: string;
  chain: 'base' | 'bsc';
  address: string;
  label: string | null;
  created_at: Date;
  /** The address is a deposit address on the wallet's real chain (false: a simulated one, of a chain not configured). */
  onchain: boolean;
}

const WALLET_COLUMNS = 'id, chain, address, label, created_at, onchain';

/** How long sandbox funding waits for the faucet's transfer to be credited (it answers once it is). */
const FUND_CREDIT_WAIT_MS = 25_000;
/** How long the faucet request itself may take (the transfer signed and broadcast). */
const FAUCET_TIMEOUT_MS = 20_000;

interface HoldRow {
  id: string;
  organization_id: string;
  environment: string;
  wallet_id: string;
  asset: string;
  amount: string;
  status: HoldPlace.Response['status'];
  destination: string | null;
}

/** Wallets this replica has read, by id and tenant: a wallet row is never updated or deleted once created. */
const WALLETS_KEPT = 10_000;

/** External and revenue account names: `sandbox-funding`, `swap-fees`. */
const ACCOUNT_NAME = /^[a-z][a-z0-9-]{0,40}$/;

/** The account the sandbox funds wallets from (the outside world, so it may go negative). */
export const SANDBOX_FUNDING = externalAccount('sandbox-funding');

/** Managed wallets, their balances and holds, over the double-entry journal. */
@Injectable()
export class WalletService {
  private readonly journal = new Journal();
  /**
   * The wallets read lately (at most WALLETS_KEPT, the oldest read first out): a hold's, a credit's and a read's look
   * at the wallet is a database round trip (and a commit) otherwise, several per transaction. Safe to keep: nothing
   * updates or deletes a wallet's row, and the key holds the tenant's sandbox generation, so a reset's wallets are others.
   */
  private readonly wallets = new Map<string, WalletRow>();

  /** WALLET_ACCOUNTS: a new wallet on a chain with smart accounts gets an account as its address. */
  private readonly accounts: boolean;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RecordedWaits) private readonly waits: RecordedWaits,
    @Inject(Config) config: Config,
  ) {
    this.accounts = config.bool('walletAccounts');
  }

  /**
   * A wallet's address is its deposit address on its chain, which the chain service watches from then on: what arrives
   * there is credited by the chain's books (DepositBooks). A test key's wallet on a chain its environment has not
   * configured gets a simulated address, funded by the sandbox; a live key's is refused (LIVE_MODE_DISABLED): real funds
   * sent to an address nobody watches, or can sign for, would be lost.
   */
  async create(tenant: Tenant, request: { chain: unknown; label?: unknown }): Promise<WalletView> {
    const chain = parseChain(request.chain, 'chain', PRIMARY_CHAINS) as PrimaryChainName;
    if (request.label !== undefined && (typeof request.label !== 'string' || request.label.length > 100))
      throw invalidField('label', 'must be a string of at most 100 characters');
    const id = newId('wal');
    const onchain = await this.depositAddress(tenant, chain, id);
    const { rows } = await this.pool.query<WalletRow>(
      `insert into ledger.wallets (id, organization_id, environment, generation, chain, address, label, created_at, onchain) values ($1, $2, $3, $4, $5, $6, $7, now(), $8)
       returning ${WALLET_COLUMNS}`,
      [
        id,
        tenant.organizationId,
        tenant.environment,
        generationOf(tenant),
        chain,
        onchain ?? smartAccountAddress(chain, id),
        (request.label as string | undefined) ?? null,
        onchain !== undefined,
      ],
    );
    return this.view(this.pool, rows[0]!);
  }

  private async depositAddress(tenant: Tenant, chain: PrimaryChainName, walletId: string): Promise<string | undefined> {
    return depositAddressOrSimulated(tenant.environment, chain, async () => {
      const request = { environment: tenant.environment, chain, owner: `wallet:${walletId}` };
      if (this.accounts) {
        try {
          return (await this.rpc.call(DepositAddressWatch.contract, tenant, { ...request, kind: 'account' })).address;
        } catch (error) {
          // A chain without smart accounts (no bundler): its wallets' addresses are forwarders.
          if (!(error instanceof AppError && error.reason === 'UNSUPPORTED_CHAIN' && error.field === 'kind')) throw error;
        }
      }
      return (await this.rpc.call(DepositAddressWatch.contract, tenant, request)).address;
    });
  }

  async list(tenant: Tenant, request: WalletList.Request): Promise<WalletList.Response> {
    const page = parsePage(request);
    const [{ rows: counted }, { rows }] = await Promise.all([
      this.pool.query<{ total: number }>(
        `select count(*)::int as total from ledger.wallets where organization_id = $1 and environment = $2 and generation = $3`,
        [tenant.organizationId, tenant.environment, generationOf(tenant)],
      ),
      this.pool.query<WalletRow>(
        `select ${WALLET_COLUMNS} from ledger.wallets where organization_id = $1 and environment = $2 and generation = $3
          order by created_at desc, id desc limit ${page.limit} offset ${page.offset}`,
        [tenant.organizationId, tenant.environment, generationOf(tenant)],
      ),
    ]);
    const total = counted[0]?.total ?? 0;
    return { data: await this.views(this.pool, rows), meta: pageMeta(page, total) };
  }

  async get(tenant: Tenant, walletId: unknown): Promise<WalletView> {
    return this.view(this.pool, await this.walletOf(this.pool, tenant, walletId));
  }

  /**
   * Sandbox funding. A wallet on a real test chain gets a real transfer from the chain's faucet to its address, and the
   * answer waits until the chain service has credited it, like any deposit. A wallet with a simulated address is
   * credited from {@link SANDBOX_FUNDING}. Test keys only (the gateway checks too).
   */
  async fund(tenant: Tenant, request: { walletId: unknown; tokenSymbol: unknown; amount: unknown }): Promise<WalletFund.Response> {
    sandboxOnly(tenant.environment);
    const wallet = await this.walletOf(this.pool, tenant, request.walletId);
    const token = this.tokenOf(wallet.chain, request.tokenSymbol);
    const amount = parseAmount(request.amount, 'amount', token.decimals);
    if (wallet.onchain && isDust(token.symbol, amount.toFixed())) {
      throw new AppError(
        'AMOUNT_TOO_SMALL',
        `amount: below ${DUST_MINIMUMS[token.symbol]} ${token.symbol}, the smallest deposit the platform credits (a smaller one is dust, kept and never credited)`,
        'amount',
      );
    }
    if (!wallet.onchain) {
      await withTransaction(this.pool, (tx) =>
        this.journal.post(
          tx,
          `fund:${newId('evt')}`,
          'sandbox-fund',
          move(SANDBOX_FUNDING, walletAccount(wallet.id), assetOf(wallet.chain, token.symbol), amount),
        ),
      );
      return this.view(this.pool, wallet);
    }
    const sent = FaucetSend.signed(
      await this.rpc.call(
        FaucetSend.contract,
        tenant,
        { chain: wallet.chain, address: wallet.address, tokenSymbol: token.symbol, amount: amount.toFixed(), idempotencyKey: `fund:${newId('evt')}` },
        { timeoutMs: FAUCET_TIMEOUT_MS },
      ),
    );
    const credited = await this.waits.until(
      async () =>
        (await this.pool.query(`select 1 from ledger.chain_deposits where transaction_hash = $1 and wallet_id = $2`, [sent.transactionHash, wallet.id]))
          .rowCount
          ? true
          : undefined,
      FUND_CREDIT_WAIT_MS,
    );
    if (!credited) throw new AppError('SERVICE_UNAVAILABLE', `The faucet sent ${sent.transactionHash}, which is not credited yet: GET the wallet in a moment`);
    return { ...(await this.view(this.pool, wallet)), transactionHash: sent.transactionHash };
  }

  /** Credits a wallet from an external account, once per entry id (an on-ramp's delivery). */
  async credit(tenant: Tenant, request: WalletCredit.Request): Promise<{ entryId: string; applied: boolean }> {
    const wallet = await this.walletOf(this.pool, tenant, request.walletId);
    const token = this.tokenOf(wallet.chain, request.tokenSymbol);
    const amount = parseAmount(request.amount, 'amount', token.decimals);
    if (!ACCOUNT_NAME.test(request.source)) throw invalidField('source', 'must be an external account name');
    const applied = await withTransaction(this.pool, (tx) =>
      this.journal.post(
        tx,
        `credit:${request.entryId}`,
        'credit',
        move(externalAccount(request.source), walletAccount(wallet.id), assetOf(wallet.chain, token.symbol), amount),
      ),
    );
    return { entryId: request.entryId, applied };
  }

  /** Reserves funds of a wallet for a transaction; the same holdId again returns the hold as it is. */
  async placeHold(tenant: Tenant, request: HoldPlace.Request): Promise<HoldPlace.Response> {
    const wallet = await this.walletOf(this.pool, tenant, request.walletId);
    const token = this.tokenOf(wallet.chain, request.tokenSymbol);
    const amount = parseAmount(request.amount, 'amount', token.decimals);
    const asset = assetOf(wallet.chain, token.symbol);
    try {
      return await withTransaction(this.pool, async (tx) => {
        const inserted = await tx.query<HoldRow>(
          `insert into ledger.holds (id, organization_id, environment, wallet_id, asset, amount, status) values ($1, $2, $3, $4, $5, $6::numeric, 'held')
           on conflict (id) do nothing returning *`,
          [request.holdId, tenant.organizationId, tenant.environment, wallet.id, asset, amount.toString()],
        );
        if (inserted.rowCount === 0) {
          const existing = await this.holdOf(tx, tenant, request.holdId);
          if (existing.wallet_id !== wallet.id || existing.asset !== asset || !dec(existing.amount).eq(amount)) {
            throw new AppError('TRANSACTION_STATE_CONFLICT', `Hold ${request.holdId} exists with other terms`);
          }
          return this.holdView(existing);
        }
        await this.journal.post(tx, `hold:${request.holdId}`, 'hold', move(walletAccount(wallet.id), heldAccount(wallet.id), asset, amount));
        return this.holdView(inserted.rows[0]!);
      });
    } catch (error) {
      if (!(error instanceof InsufficientFunds)) throw error;
      const balances = await this.journal.balances(this.pool, [walletAccount(wallet.id)]);
      throw insufficient(dec(balances.get(walletAccount(wallet.id))?.get(asset) ?? '0').toFixed(), token.symbol);
    }
  }

  /**
   * Captures (the funds leave for `destination`, less a fee kept as revenue, and the wallet may be credited with what
   * they bought, all in one entry) or releases (back to the wallet) a hold, once.
   */
  async settleHold(tenant: Tenant, request: HoldSettle.Request): Promise<HoldPlace.Response> {
    if (request.outcome === 'release' && (request.fee || request.credit)) throw invalidField('outcome', 'a release takes no fee and no credit');
    if (request.outcome === 'capture' && request.ifMissing) throw invalidField('ifMissing', 'only a release can settle a hold that was never placed');
    const tombstone = request.ifMissing && (await this.holdTerms(tenant, request.ifMissing));
    return withTransaction(this.pool, async (tx) => {
      if (tombstone) {
        // Never placed: recorded as released, with nothing moved. A placement that arrives later conflicts with this
        // row (placeHold's insert does nothing) and answers it as it is, released, without touching the balance.
        const inserted = await tx.query<HoldRow>(
          `insert into ledger.holds (id, organization_id, environment, wallet_id, asset, amount, status, settled_at)
           values ($1, $2, $3, $4, $5, $6::numeric, 'released', now()) on conflict (id) do nothing returning *`,
          [request.holdId, tenant.organizationId, tenant.environment, tombstone.walletId, tombstone.asset, tombstone.amount],
        );
        if (inserted.rows[0]) return this.holdView(inserted.rows[0]);
      }
      const hold = await this.holdOf(tx, tenant, request.holdId, true);
      const wanted = request.outcome === 'capture' ? 'captured' : 'released';
      if (hold.status !== 'held') {
        if (hold.status !== wanted) throw new AppError('TRANSACTION_STATE_CONFLICT', `Hold ${hold.id} is already ${hold.status}`);
        return this.holdView(hold);
      }
      const legs =
        request.outcome === 'capture'
          ? this.captureLegs(hold, request)
          : move(heldAccount(hold.wallet_id), walletAccount(hold.wallet_id), hold.asset, hold.amount);
      await this.journal.post(tx, `${request.outcome}:${hold.id}`, request.outcome, legs);
      const { rows } = await tx.query<HoldRow>(`update ledger.holds set status = $2, destination = $3, settled_at = now() where id = $1 returning *`, [
        hold.id,
        wanted,
        request.outcome === 'capture' ? (request.destination ?? 'unspecified') : null,
      ]);
      return this.holdView(rows[0]!);
    });
  }

  /** A hold's terms checked as placeHold checks them: the tenant's wallet, a token of its chain, a valid amount. */
  private async holdTerms(tenant: Tenant, terms: { walletId: string; tokenSymbol: string; amount: string }) {
    const wallet = await this.walletOf(this.pool, tenant, terms.walletId);
    const token = this.tokenOf(wallet.chain, terms.tokenSymbol);
    const amount = parseAmount(terms.amount, 'ifMissing.amount', token.decimals);
    return { walletId: wallet.id, asset: assetOf(wallet.chain, token.symbol), amount: amount.toString() };
  }

  /** The legs of a capture: the hold leaves for its destination, less the fee for revenue, plus what it bought. */
  private captureLegs(hold: HoldRow, request: HoldSettle.Request): Leg[] {
    const [chain, symbol] = hold.asset.split(':') as ['base' | 'bsc', string];
    const held = heldAccount(hold.wallet_id);
    const fee = request.fee ? parseAmount(request.fee.amount, 'fee.amount', this.tokenOf(chain, symbol).decimals) : dec(0);
    if (request.fee && !ACCOUNT_NAME.test(request.fee.account)) throw invalidField('fee.account', 'must be an account name');
    if (fee.gte(hold.amount)) throw invalidField('fee.amount', `must be less than the hold of ${dec(hold.amount).toFixed()} ${symbol}`);
    const legs = move(held, externalAccount(request.destination ?? 'unspecified'), hold.asset, dec(hold.amount).sub(fee));
    if (fee.gt(0)) legs.push(...move(held, revenueAccount(request.fee!.account), hold.asset, fee));
    if (request.credit) {
      const token = this.tokenOf(chain, request.credit.tokenSymbol);
      if (!ACCOUNT_NAME.test(request.credit.source)) throw invalidField('credit.source', 'must be an external account name');
      const amount = parseAmount(request.credit.amount, 'credit.amount', token.decimals);
      legs.push(...move(externalAccount(request.credit.source), walletAccount(hold.wallet_id), assetOf(chain, token.symbol), amount));
    }
    return legs;
  }

  async checkBooks() {
    return this.journal.check(this.pool);
  }

  private async walletOf(db: Sql, tenant: Tenant, walletId: unknown): Promise<WalletRow> {
    if (!isIdOf('wal', walletId)) throw new AppError('WALLET_NOT_FOUND', `Wallet ${String(walletId)} was not found`);
    const key = `${walletId}:${tenant.organizationId}:${tenant.environment}:${generationOf(tenant)}`;
    const kept = this.wallets.get(key);
    if (kept) return kept;
    const { rows } = await db.query<WalletRow>(
      `select ${WALLET_COLUMNS} from ledger.wallets where id = $1 and organization_id = $2 and environment = $3 and generation = $4`,
      [walletId, tenant.organizationId, tenant.environment, generationOf(tenant)],
    );
    if (!rows[0]) throw new AppError('WALLET_NOT_FOUND', `Wallet ${walletId} was not found`);
    if (this.wallets.size >= WALLETS_KEPT) this.wallets.delete(this.wallets.keys().next().value!);
    this.wallets.set(key, rows[0]);
    return rows[0];
  }

  private async holdOf(db: Sql, tenant: Tenant, holdId: string, lock = false): Promise<HoldRow> {
    const { rows } = await db.query<HoldRow>(
      `select * from ledger.holds where id = $1 and organization_id = $2 and environment = $3${lock ? ' for update' : ''}`,
      [holdId, tenant.organizationId, tenant.environment],
    );
    if (!rows[0]) throw new AppError('RESOURCE_NOT_FOUND', `Hold ${holdId} was not found`);
    return rows[0];
  }

  private tokenOf(chain: 'base' | 'bsc', symbol: unknown) {
    return parseToken(chain, symbol, 'tokenSymbol');
  }

  private holdView(row: HoldRow): HoldPlace.Response {
    const [chain, tokenSymbol] = row.asset.split(':') as ['base' | 'bsc', string];
    return { holdId: row.id, walletId: row.wallet_id, chain, tokenSymbol, amount: dec(row.amount).toFixed(), status: row.status };
  }

  private async view(db: Sql, row: WalletRow): Promise<WalletView> {
    return (await this.views(db, [row]))[0]!;
  }

  /** Wallets with their balances, read for all of them in one query. */
  private async views(db: Sql, rows: WalletRow[]): Promise<WalletView[]> {
    const balances = await this.journal.balances(
      db,
      rows.flatMap((row) => [walletAccount(row.id), heldAccount(row.id)]),
    );
    return rows.map((row) => {
      const available = balances.get(walletAccount(row.id));
      const held = balances.get(heldAccount(row.id));
      return {
        walletId: row.id,
        chain: row.chain,
        address: row.address,
        label: row.label,
        balances: getChain(row.chain).tokens.map((token) => {
          const asset = assetOf(row.chain, token.symbol);
          return { tokenSymbol: token.symbol, available: dec(available?.get(asset) ?? '0').toFixed(), held: dec(held?.get(asset) ?? '0').toFixed() };
        }),
        createdAt: new Date(row.created_at).toISOString(),
      };
    });
  }
}
