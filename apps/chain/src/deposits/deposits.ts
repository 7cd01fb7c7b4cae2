import type { PoolClient } from 'pg';
import { getAddress, type Address } from 'viem';
import { CHAIN_EVENT_TYPES, invalidField, type DepositCredited, type DepositReversed, type Tenant, type TreasuryOpened } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import type { EventMetadata } from '@ramp/event-store';
import { DepositWatcher, depositAddressOf, operationSenderOfLog, type Deposit } from '@ramp/evm';
import { isDust } from '@ramp/chains';
import { fromBaseUnits } from '@ramp/money';
import { CHAIN_SCHEMA, type ChainContext } from '../context/chain-context';
import type { AccountOperations } from '../accounts/account-operations';
import { ownArrival, walletArrival } from './own-arrival';
import { Sweeps } from './sweeps';
import { depositIdOf, isTreasury, ownerKey, treasuryOwner } from './owner';

/** Owners' addresses kept in memory (Deposits.given). */
const GIVEN_KEPT = 10_000;

/** What a deposit address is: a forwarder swept into the hot wallet, or a managed wallet's own account (funds stay). */
export type AddressKind = 'forwarder' | 'account';

/**
 * A chain's deposits: the watcher of its deposit addresses and of the hot wallet (the treasury). A deposit confirmed at
 * the depth becomes a `deposit.credited` event and, at a forwarder, a sweep of its address to the hot wallet scheduled,
 * in the one transaction that confirms it; a credited deposit a reorganisation took away becomes `deposit.reversed`.
 * A wallet's account keeps what arrives: no sweep. What the platform's own accounts' operations bring (a fee to the
 * hot wallet, a swap's output to the account itself) is not a deposit: the operation's `send.finished` books it.
 */
export class Deposits {
  readonly watcher: DepositWatcher;

  readonly sweeps: Sweeps;

  constructor(
    private readonly context: ChainContext,
    sweepDelayMs: number,
    private readonly accounts: AccountOperations,
  ) {
    this.sweeps = new Sweeps(context, sweepDelayMs);
    this.watcher = new DepositWatcher({
      schema: CHAIN_SCHEMA,
      pool: context.pool,
      chain: context.id,
      client: context.client,
      tokens: context.tokenContracts,
      native: true,
      confirmations: context.settings.confirmations,
      finality: context.settings.finality,
      logger: context.logger,
      onCredit: (tx, deposit) => this.credited(tx, deposit),
      onReversed: (tx, deposit) => this.reversed(tx, deposit),
      // A managed wallet's operation final before the fork is open again, to land once more (AccountOperations).
      onRewound: (tx, fork) => this.accounts.reopenFrom(tx, fork),
    });
  }

  /** The block the watcher has scanned to: undefined before the chain's first pass. */
  checkpoint(): Promise<bigint | undefined> {
    return this.watcher.checkpoint();
  }

  /**
   * The deposit address of a wallet or an off-ramp (`wallet:<id>`, `offramp:<id>`): its forwarder, deployed or not; or
   * a wallet's account (counterfactual until its first operation).
   */
  async depositAddress(owner: string, kind: AddressKind): Promise<Address> {
    const key = ownerKey(owner);
    if (!key) throw new Error(`not an owner of a deposit address: ${owner}`);
    if (kind === 'account') return this.accounts.addressOf(key);
    return depositAddressOf(this.context.network.contracts.forwarderFactory as Address, key);
  }

  /**
   * The address an owner was given on this chain and its kind, or undefined when it has none. Kept once read (at most
   * GIVEN_KEPT, the oldest out first): an owner's address and kind never change once given, and every step that names
   * a wallet asks.
   */
  async given(owner: string): Promise<{ address: Address; kind: AddressKind } | undefined> {
    const kept = this.givenKept.get(owner);
    if (kept) return kept;
    const { rows } = await this.context.pool.query<{ address: string; kind: AddressKind }>(
      `select address, kind from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and owner = $2 limit 1`,
      [this.context.id, owner],
    );
    const given = rows[0] && { address: getAddress(rows[0].address), kind: rows[0].kind };
    if (given) {
      if (this.givenKept.size >= GIVEN_KEPT) this.givenKept.delete(this.givenKept.keys().next().value!);
      this.givenKept.set(owner, given);
    }
    return given;
  }

  private readonly givenKept = new Map<string, { address: Address; kind: AddressKind }>();

  /** Watches `address` for `owner`, on behalf of `tenant`. */
  async watch(address: Address, owner: string, tenant: Tenant, kind: AddressKind = 'forwarder'): Promise<void> {
    await withTransaction(this.context.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.deposit_addresses (chain, address, owner, tenant, kind) values ($1, $2, $3, $4, $5) on conflict do nothing`,
        [this.context.id, address.toLowerCase(), owner, JSON.stringify(tenant), kind],
      );
      if (inserted.rowCount === 0) {
        // Given before (this address), or given another (a concurrent request of the other kind won): one per owner.
        const { rows } = await tx.query<{ address: string }>(`select address from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and owner = $2`, [
          this.context.id,
          owner,
        ]);
        if (rows[0] && rows[0].address !== address.toLowerCase()) throw invalidField('kind', `${owner} was given another address already`);
      }
      await this.watcher.watch(tx, address, owner);
    });
  }

  /** Before the chain's first pass: the hot wallet is watched before anything is sent to it (its checkpoint first), so that every top-up is booked. */
  async prepare(): Promise<void> {
    if ((await this.watcher.checkpoint()) === undefined) await this.watcher.tick();
    await this.openTreasury();
  }

  /**
   * Watches the hot wallet as the treasury, once: what it holds at the watcher's checkpoint is booked as the opening
   * balance (treasury.opened), and whatever arrives after it from outside as treasury deposits.
   */
  private async openTreasury(): Promise<void> {
    const { context } = this;
    const owner = treasuryOwner(context.id);
    const hot = context.hot.sender;
    const environment = context.environment;
    await withTransaction(context.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.deposit_addresses (chain, address, owner, tenant) values ($1, $2, $3, $4) on conflict do nothing`,
        [context.id, hot.toLowerCase(), owner, JSON.stringify(context.systemTenant)],
      );
      if (inserted.rowCount === 0) return;
      await this.watcher.watch(tx, hot, owner);
      const blockNumber = (await this.watcher.checkpoint())!;
      const holdings = [];
      for (const token of context.tokens) {
        const units = await context.balanceAt(token, hot, blockNumber);
        if (units > 0n) holdings.push({ tokenSymbol: token.symbol, amount: fromBaseUnits(units, token.decimals) });
      }
      const event: TreasuryOpened = { environment, chain: context.chain, blockNumber: blockNumber.toString(), holdings };
      const metadata: EventMetadata = { correlationId: owner, causationId: owner, actor: 'system:chain', tenant: context.systemTenant };
      await context.log.append(tx, `treasury-${context.id}`, 0, [{ type: CHAIN_EVENT_TYPES.treasuryOpened, data: event }], metadata);
      context.logger.info({ chain: context.id, hotWallet: hot, blockNumber: event.blockNumber, holdings }, 'treasury opened');
    });
  }

  /**
   * A deposit confirmed at the depth: its credit (the first, or the next after a reversal: the chain took the same
   * transfer back in), appended at the deposit stream's next version, so that a second credit of the same one conflicts
   * and rolls the whole transaction back; then its address's sweep is scheduled (Sweeps: one per address shortly).
   */
  private async credited(tx: PoolClient, deposit: Deposit): Promise<void> {
    const found = await this.depositEvent(tx, deposit);
    if (!found) return;
    if (await this.carriedByOwnOperation(deposit, found.kind)) return;
    if (found.kind === 'account' && (await this.isWalletArrival(tx, deposit))) return;
    const { metadata } = found;
    const history = await this.context.log.readStream(tx, `deposit-${found.event.depositId}`);
    const credit = history.filter((past) => past.type === CHAIN_EVENT_TYPES.depositCredited).length;
    const dust = !isTreasury(found.event.owner) && isDust(found.event.tokenSymbol, found.event.amount, this.context.dustMinimums);
    const event: DepositCredited = { ...found.event, credit, ...(dust && { dust: true as const }) };
    await this.context.log.append(tx, `deposit-${event.depositId}`, history.length, [{ type: CHAIN_EVENT_TYPES.depositCredited, data: event }], metadata);
    if (isTreasury(event.owner)) return;
    if (dust) {
      // Recorded and booked as the platform's, not acted on: no sweep (nor a credit or a refund downstream).
      this.context.logger.info(
        { chain: this.context.id, depositId: event.depositId, owner: event.owner, amount: event.amount, token: event.tokenSymbol },
        'dust deposit recorded, not acted on',
      );
      return;
    }
    // A forwarder's funds go to the hot wallet: one sweep of the address shortly, for this deposit and any that
    // arrive there meanwhile. An account's stay.
    if (found.kind === 'forwarder') await this.sweeps.schedule(tx, deposit.to, event.owner);
    this.context.logger.info(
      { chain: this.context.id, depositId: event.depositId, owner: event.owner, amount: event.amount, token: event.tokenSymbol },
      'deposit credited',
    );
  }

  /**
   * A credited deposit a reorganisation removed: `deposit.reversed` for its last credit, with whether a refund of it
   * left or is on its way (a refund the chain service sent for a deposit that never was: the platform's loss).
   */
  private async reversed(tx: PoolClient, deposit: Deposit): Promise<void> {
    const found = await this.depositEvent(tx, deposit);
    if (!found) return;
    const { depositId } = found.event;
    const history = await this.context.log.readStream(tx, `deposit-${depositId}`);
    // Never credited (an arrival by the platform's own operation, say): nothing to take back.
    if (!history.some((past) => past.type === CHAIN_EVENT_TYPES.depositCredited)) return;
    const credit = history.filter((past) => past.type === CHAIN_EVENT_TYPES.depositCredited).length - 1;
    const { rows } = await tx.query<{ refunded: boolean }>(
      `select exists (select 1 from ${CHAIN_SCHEMA}.transfers t join ${CHAIN_SCHEMA}.chain_sends s on s.chain = t.chain and s.idempotency_key = t.send_key
                       where t.chain = $1 and t.refund_of = $2 and s.status <> 'failed') as refunded`,
      [this.context.id, depositId],
    );
    // As its credit was (the minimums may have changed since).
    const dust = (history.filter((past) => past.type === CHAIN_EVENT_TYPES.depositCredited).at(-1)?.data as DepositCredited | undefined)?.dust === true;
    const event: DepositReversed = { ...found.event, credit: Math.max(credit, 0), refunded: rows[0]!.refunded, ...(dust && { dust: true as const }) };
    await this.context.log.append(tx, `deposit-${depositId}`, history.length, [{ type: CHAIN_EVENT_TYPES.depositReversed, data: event }], found.metadata);
    this.context.logger.error(
      { chain: this.context.id, depositId, owner: event.owner, amount: event.amount, token: event.tokenSymbol, refunded: event.refunded },
      'deposit reversed: its credit is taken back',
    );
  }

  /**
   * A transfer into the hot wallet made by one of its own sweeps or swaps (ownArrival): booked by the send's own entry,
   * not as the treasury's deposit. Only what arrives otherwise (from outside) is the treasury's.
   */
  private async isOwnArrival(tx: PoolClient, deposit: Deposit): Promise<boolean> {
    const hot = this.context.hot.sender;
    const { rows } = await tx.query<{ own: boolean }>(`select ${ownArrival('d', '$2', '$3')} as own from (select $4::text as tx_hash) d`, [
      this.context.id,
      hot,
      hot.toLowerCase(),
      deposit.txHash.toLowerCase(),
    ]);
    return rows[0]!.own;
  }

  /**
   * Whether a token transfer into an account or the hot wallet was made by an operation of the platform's own accounts:
   * into an account, by that account's own operation (a swap's output paid to itself); into the hot wallet, by any of
   * them (a fee, a swap's output for the next leg). Its `send.finished` books it; a deposit it is not. A transfer to an
   * account by another account's operation is that account's deposit, as from anyone.
   */
  private async carriedByOwnOperation(deposit: Deposit, kind: AddressKind | 'treasury'): Promise<boolean> {
    const parts = this.context.smartAccounts;
    if (!parts || kind === 'forwarder' || deposit.logIndex < 0) return false;
    const receipt = await this.context.client.getTransactionReceipt({ hash: deposit.txHash as `0x${string}` });
    const sender = operationSenderOfLog(receipt.logs, parts.contracts.entryPoint, deposit.logIndex);
    if (!sender) return false;
    if (kind === 'account') return sender.toLowerCase() === deposit.to.toLowerCase();
    return this.accounts.isAccount(sender);
  }

  /** A transfer of the hot wallet into a wallet's account (ChainTransfer `toWallet`): already the wallet's in the books. */
  private async isWalletArrival(tx: PoolClient, deposit: Deposit): Promise<boolean> {
    const { rows } = await tx.query<{ own: boolean }>(`select ${walletArrival('d')} as own from (select $2::text as tx_hash, $3::text as to_address) d`, [
      this.context.id,
      deposit.txHash.toLowerCase(),
      deposit.to.toLowerCase(),
    ]);
    return rows[0]!.own;
  }

  private async depositEvent(
    tx: PoolClient,
    deposit: Deposit,
  ): Promise<{ event: DepositCredited; metadata: EventMetadata; kind: AddressKind | 'treasury' } | undefined> {
    const { context } = this;
    const { rows } = await tx.query<{ owner: string; tenant: Tenant; kind: AddressKind }>(
      `select owner, tenant, kind from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and address = $2`,
      [context.id, deposit.to.toLowerCase()],
    );
    const token = context.tokens.find((candidate) => candidate.address === deposit.token.toLowerCase());
    if (rows[0] && isTreasury(rows[0].owner) && (await this.isOwnArrival(tx, deposit))) return undefined;
    if (!rows[0] || !token) {
      context.logger.error(
        { chain: context.id, txHash: deposit.txHash, to: deposit.to, token: deposit.token },
        'a deposit to an address or of a token the chain does not know',
      );
      return undefined;
    }
    const depositId = depositIdOf(context.environment, context.chain, deposit.txHash, deposit.logIndex);
    const event: DepositCredited = {
      depositId,
      environment: context.environment,
      chain: context.chain,
      owner: rows[0].owner,
      address: getAddress(deposit.to),
      tokenSymbol: token.symbol,
      tokenAddress: getAddress(token.address),
      logIndex: deposit.logIndex,
      amount: fromBaseUnits(deposit.amount, token.decimals),
      transactionHash: deposit.txHash,
      from: getAddress(deposit.from),
      blockNumber: deposit.blockNumber.toString(),
    };
    const kind = isTreasury(rows[0].owner) ? 'treasury' : rows[0].kind;
    return { event, metadata: { correlationId: rows[0].owner, causationId: depositId, actor: `system:chain`, tenant: rows[0].tenant }, kind };
  }
}
