import type { Pool, PoolClient } from 'pg';
import { createPublicClient, createWalletClient, encodeFunctionData, getAddress, http, maxUint256, parseEther, type Address, type Log, type PublicClient } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { EVM_NATIVE_ADDRESS, gasCost, getChain, type ChainName } from '@ramp/chains';
import { AppError, CHAIN_EVENT_TYPES, invalidField, type ChainNetwork, type DepositCredited, type Environment, type SendFinished, type Tenant, type TreasuryOpened, platformTenant } from '@ramp/contracts';
import { withTransaction } from '@ramp/database';
import type { EventLog, EventMetadata } from '@ramp/event-store';
import {
  DepositWatcher,
  depositAddressOf,
  depositSalt,
  deployPlatformContracts,
  developmentSigner,
  ForwarderFactory,
  forwarderFactoryAddress,
  LOCAL_CHAIN_ACCOUNTS,
  NATIVE_TOKEN,
  platformContractAddresses,
  unitsWorth,
  readHubPools,
  routerAmountOut,
  routerSwapCall,
  seedPools,
  swapOutputOf,
  SendQueue,
  TestToken,
  testContractsOf,
  type ChainLogger,
  type DexContracts,
  type PlatformContractsSpec,
  type ChainSettings,
  type Deposit,
  type HdCustody,
  type SendRecord,
} from '@ramp/evm';
import { dec, fromBaseUnits, toBaseUnits } from '@ramp/money';
import type { HubPools } from '@ramp/pricing';
import { Expiring } from '@ramp/service-kit';
import type { IntentRelayer } from './intent-relayer';

/** The chain service's schema: its event log, send queues and watchers. */
export const CHAIN_SCHEMA = 'chain';

/** The DEX the platform deploys on its test chains. */
const DEX_NAME = 'Uniswap V2';

/** The platform's intent bridge on its local test chains (IntentPool.sol, relayed by the chain service). */
export const INTENT_BRIDGE_NAME = 'Ramp Intents';

/**
 * What the hot wallet of a local chain holds at least of each token, in US dollars at the sandbox prices, as the
 * relayer's inventory: what it fills bridge deposits with on the destination (minted by the faucet at each start when
 * below half of it, and booked as the treasury's deposits).
 */
const LOCAL_RELAYER_INVENTORY_USD = '1000000';

/** How long a queued swap may wait to be mined: after it, the router refuses it (`UniswapV2Router: EXPIRED`). */
const SWAP_DEADLINE_SECONDS = 3600;

/**
 * Whether the deposit row `d` (to the hot wallet) was brought by one of the hot wallet's own sends whose booking covers
 * it: a sweep (which moves nothing in the books), a swap paid to the hot wallet (send.finished books its output), or a
 * send of the intent bridge (a repayment or a refund from the pool, booked as arriving; a fill to the hot wallet itself,
 * booked as nothing).
 * Nothing else the hot wallet sends to itself is excluded: it is booked as leaving, so its arrival must be booked too.
 * Parameters: $1 the chain id, and the named ones below.
 */
function ownArrival(d: string, hot: string, hotLower: string): string {
  return `exists (select 1 from ${CHAIN_SCHEMA}.chain_sends s left join ${CHAIN_SCHEMA}.swaps w on w.chain = s.chain and w.send_key = s.idempotency_key
                   where s.chain = $1 and s.sender = ${hot} and s.attempts ? ${d}.tx_hash
                     and (s.idempotency_key like 'sweep:%' or s.idempotency_key like 'bridge:%' or w.to_address = ${hotLower}))`;
}

/** What a swap asks (ChainSwap), as recorded beside its send. */
export interface SwapTerms {
  fromToken: RuntimeToken;
  toToken: RuntimeToken;
  amountIn: string;
  minimumOut: string;
  /** Who receives the output: the hot wallet, or an address outside. */
  to: Address;
  account: string;
}

/** What a transfer from the hot wallet asks (ChainTransfer). */
export interface TransferTerms {
  to: Address;
  token: RuntimeToken;
  /** Decimal string in the token's units. */
  amount: string;
  account: string;
  /** A refund: the deposit it gives back. */
  refundOf?: string;
}

/** A swap's send and, once confirmed, what it gave (base units of toToken). */
export interface SwapRecord {
  send: SendRecord;
  amountOut?: bigint;
}

interface SwapRow {
  from_token: string;
  to_token: string;
  amount_in: string;
  minimum_out: string;
  to_address: string;
  account: string;
  amount_out: string | null;
}

/** What the hot wallet of a local chain is topped up to, for gas, at each start. */
const LOCAL_HOT_WALLET_GAS = parseEther('100');

export interface RuntimeToken {
  symbol: string;
  decimals: number;
  /** The token's contract, lower case; NATIVE_TOKEN for the native coin. */
  address: Address;
}

export interface RuntimeOptions {
  environment: Environment;
  settings: ChainSettings;
  custody: HdCustody;
  pool: Pool;
  log: EventLog;
  logger: ChainLogger;
  /** A send with no receipt this long is replaced with higher fees. */
  stuckAfterMs: number;
  /** The ceiling of any fee, in wei. */
  maxFeePerGas: bigint;
  /** How long a read of the pools' reserves answers quotes. */
  poolsMaxAgeMs: number;
  /** The intent bridge's relayer, shared by every chain. */
  relayer?: IntentRelayer;
}

/** Who may own a deposit address: a managed wallet or a non-custodial off-ramp, by its id. */
const OWNER = /^(wallet|offramp):([a-z]+_[0-9A-Za-z]{10,40})$/;

export function ownerKey(owner: string): string | undefined {
  return OWNER.exec(owner)?.[2];
}

/** The hot wallet's own watch: what arrives from outside (gas top-ups, a treasury transfer) is the platform's. */
const TREASURY_PREFIX = 'treasury:';

/** The platform acting for itself: the tenant of its own events. */
const systemTenant = (environment: Environment): Tenant => platformTenant(environment, 'chain');

/**
 * One chain of one environment in the chain service: its RPC client, the hot wallet's send queue, the faucet's (local
 * chains), the deposit watcher, and where the platform's contracts are. What it decides on its own is small: a deposit
 * confirmed at the depth becomes a `deposit.credited` event and a sweep of its address to the hot wallet, in the one
 * transaction that confirms it.
 */
export class ChainRuntime {
  /** The chain's name in the send queue's and the watcher's tables: `test-base`, `live-base`. */
  readonly id: string;
  readonly client: PublicClient;
  readonly hot: SendQueue;
  /** Local test chains only: mints test tokens and sends test coins. */
  readonly faucet: SendQueue | undefined;
  readonly watcher: DepositWatcher;
  readonly network: ChainNetwork;
  private readonly tokens: RuntimeToken[];
  private readonly native: RuntimeToken;
  private readonly deployer: ReturnType<typeof mnemonicToAccount>;
  private readonly spec: PlatformContractsSpec | undefined;
  private readonly dex: DexContracts | undefined;
  private readonly poolReads: Expiring<HubPools>;

  constructor(private readonly options: RuntimeOptions) {
    const { environment, settings, custody, pool, logger } = options;
    this.id = `${environment}-${settings.chain}`;
    const descriptor = getChain(settings.chain as ChainName);
    const hotSigner = custody.signer(settings.hotWalletPath);
    const local = settings.localPort !== undefined;
    const faucetSigner = developmentSigner(LOCAL_CHAIN_ACCOUNTS.mnemonic, LOCAL_CHAIN_ACCOUNTS.faucetIndex);
    this.poolReads = new Expiring(options.poolsMaxAgeMs);
    this.deployer = mnemonicToAccount(LOCAL_CHAIN_ACCOUNTS.mnemonic, { addressIndex: LOCAL_CHAIN_ACCOUNTS.deployerIndex });
    // Test chains carry the platform's test tokens and pools (deployed by the platform on local nodes, by the operator
    // on a public test network); live chains the registry's real tokens, and no pools of the platform's.
    this.spec = environment === 'test' ? testContractsOf(descriptor, faucetSigner.address, hotSigner.address, this.deployer.address) : undefined;
    const deployed = this.spec && platformContractAddresses(this.spec);
    // The pools are the platform's on its local chains only: it seeds them there. A public test network has none of its.
    this.dex = local ? deployed?.dex : undefined;
    const contracts = deployed
      ? {
          tokens: deployed.tokens,
          wrappedNative: deployed.wrappedNative,
          forwarderFactory: deployed.forwarderFactory,
          ...(this.dex && { dex: { name: DEX_NAME, factory: this.dex.factory, router: this.dex.router, hub: this.dex.hub, pairs: this.dex.pairs } }),
          // Like the pools, the intent pool is the platform's on its local chains only, where it relays.
          ...(local && { bridge: { name: INTENT_BRIDGE_NAME, pool: deployed.intentPool } }),
        }
      : {
            tokens: Object.fromEntries(descriptor.tokens.filter((token) => token.contractAddress !== EVM_NATIVE_ADDRESS).map((token) => [token.symbol, getAddress(token.contractAddress)])),
            wrappedNative: getAddress(EVM_NATIVE_ADDRESS),
            forwarderFactory: forwarderFactoryAddress(hotSigner.address),
          };
    this.tokens = descriptor.tokens.map((token) => ({
      symbol: token.symbol,
      decimals: token.decimals,
      address: (token.contractAddress === EVM_NATIVE_ADDRESS ? NATIVE_TOKEN : contracts.tokens[token.symbol]!.toLowerCase()) as Address,
    }));
    this.native = this.tokens.find((token) => token.address === NATIVE_TOKEN)!;
    this.network = {
      chain: settings.chain,
      chainId: settings.chainId,
      confirmations: settings.confirmations,
      hotWallet: hotSigner.address,
      contracts,
      faucet: environment === 'test' && local,
    };
    this.client = createPublicClient({ transport: http(settings.rpcUrl, { timeout: 10_000, retryCount: 0 }) }) as PublicClient;
    const queue = { schema: CHAIN_SCHEMA, pool, chain: this.id, chainId: settings.chainId, client: this.client, confirmations: settings.confirmations, logger };
    const limits = { stuckAfterMs: options.stuckAfterMs, maxFeePerGas: options.maxFeePerGas };
    this.hot = new SendQueue({ ...queue, ...limits, signer: hotSigner, onFinished: (tx, send, logs) => this.finished(tx, send, logs) });
    this.faucet = this.network.faucet ? new SendQueue({ ...queue, ...limits, signer: faucetSigner }) : undefined;
    this.watcher = new DepositWatcher({
      schema: CHAIN_SCHEMA,
      pool,
      chain: this.id,
      client: this.client,
      tokens: this.tokens.filter((token) => token.address !== NATIVE_TOKEN).map((token) => token.address),
      native: true,
      confirmations: settings.confirmations,
      logger,
      onCredit: (tx, deposit) => this.credited(tx, deposit),
      onReversed: (tx, deposit) => this.reversed(tx, deposit),
    });
  }

  get chain(): string {
    return this.options.settings.chain;
  }

  get environment(): Environment {
    return this.options.environment;
  }

  token(symbol: string): RuntimeToken | undefined {
    return this.tokens.find((token) => token.symbol === symbol);
  }

  depositAddress(owner: string): Address {
    const key = ownerKey(owner);
    if (!key) throw new Error(`not an owner of a deposit address: ${owner}`);
    return depositAddressOf(this.network.contracts.forwarderFactory as Address, key);
  }

  /**
   * Before the first tick: the node must be the chain the settings name; on a local node the platform's contracts are
   * deployed (by the deployer account, idempotently) and the hot wallet's gas topped up.
   */
  async prepare(): Promise<void> {
    const { settings } = this.options;
    const chainId = await this.client.getChainId();
    if (chainId !== settings.chainId) throw new Error(`${settings.rpcUrl} is chain ${chainId}, not ${settings.chain}'s ${settings.chainId}: check the chain settings`);
    // The hot wallet is watched before anything is sent to it (its checkpoint first), so that every top-up is booked.
    if ((await this.watcher.checkpoint()) === undefined) await this.watcher.tick();
    await this.openTreasury();
    if (this.network.faucet) {
      const deployer = createWalletClient({ account: this.deployer, transport: http(settings.rpcUrl) });
      await deployPlatformContracts(this.client, deployer, this.spec!, LOCAL_HOT_WALLET_GAS);
      await seedPools(this.client, deployer, this.spec!.pools, this.dex!);
      await this.stockRelayer();
    }
  }

  /**
   * A local chain's relayer inventory (LOCAL_RELAYER_INVENTORY_USD of each token in the hot wallet): minted by the faucet
   * for each token below half of it, back up to it. The key holds the balance it was read at, so a start repeated
   * before the mint is mined queues nothing twice.
   */
  private async stockRelayer(): Promise<void> {
    for (const token of this.tokens) {
      if (token.address === NATIVE_TOKEN) continue;
      const target = unitsWorth(LOCAL_RELAYER_INVENTORY_USD, token.symbol, token.decimals);
      const held = await this.balanceAt(token, this.hot.sender, await this.client.getBlockNumber({ cacheTime: 0 }));
      if (held * 2n >= target) continue;
      await this.requestFaucet(`inventory:${token.symbol}:${held}`, this.hot.sender, token, target - held);
    }
  }

  /**
   * The pools' reserves at the latest block, read at most once per CHAIN_POOLS_MAX_AGE_MS whatever the number of callers
   * (they share the read in flight): quotes under load cost the node one round of reads per period, not one per quote.
   */
  pools(): Promise<HubPools> {
    const dex = this.dex;
    if (!dex) throw new AppError('UNSUPPORTED_CHAIN', `${this.chain} has no pools of the platform for ${this.environment} keys`, 'chain');
    return this.poolReads.get(this.id, async () => readHubPools(this.client, dex, await this.client.getBlockNumber({ cacheTime: 0 })));
  }

  /** On a local chain, whether every pool has liquidity (the deployment's last step); elsewhere always. */
  async seeded(): Promise<boolean> {
    if (!this.dex) return true;
    const read = await readHubPools(this.client, this.dex, await this.client.getBlockNumber({ cacheTime: 0 })).catch(() => undefined);
    return read !== undefined && read.pools.every((pool) => pool.hubReserve > 0n && pool.tokenReserve > 0n);
  }

  /**
   * Watches the hot wallet as the treasury, once: what it holds at the watcher's checkpoint is booked as the opening
   * balance (treasury.opened), and whatever arrives after it from outside as treasury deposits.
   */
  private async openTreasury(): Promise<void> {
    const owner = `${TREASURY_PREFIX}${this.id}`;
    const hot = this.hot.sender;
    const environment = this.environment;
    await withTransaction(this.options.pool, async (tx) => {
      const inserted = await tx.query(`insert into ${CHAIN_SCHEMA}.deposit_addresses (chain, address, owner, tenant) values ($1, $2, $3, $4) on conflict do nothing`, [
        this.id,
        hot.toLowerCase(),
        owner,
        JSON.stringify(systemTenant(environment)),
      ]);
      if (inserted.rowCount === 0) return;
      await this.watcher.watch(tx, hot, owner);
      const blockNumber = (await this.watcher.checkpoint())!;
      const holdings = [];
      for (const token of this.tokens) {
        const units = await this.balanceAt(token, hot, blockNumber);
        if (units > 0n) holdings.push({ tokenSymbol: token.symbol, amount: fromBaseUnits(units, token.decimals) });
      }
      const event: TreasuryOpened = { environment, chain: this.chain, blockNumber: blockNumber.toString(), holdings };
      const metadata: EventMetadata = { correlationId: owner, causationId: owner, actor: 'system:chain', tenant: systemTenant(environment) };
      await this.options.log.append(tx, `treasury-${this.id}`, 0, [{ type: CHAIN_EVENT_TYPES.treasuryOpened, data: event }], metadata);
      this.options.logger.info({ chain: this.id, hotWallet: hot, blockNumber: event.blockNumber, holdings }, 'treasury opened');
    });
  }

  /** One pass of each part; a part that fails (an RPC outage) is retried at the next pass without stopping the others. */
  async tick(onError: (part: string, error: unknown) => void): Promise<void> {
    const relayer = this.options.relayer;
    const parts: [string, { tick(): Promise<void> } | undefined][] = [
      ['watcher', this.watcher],
      ['relayer', relayer && { tick: () => relayer.tick(this) }],
      ['hot wallet sends', this.hot],
      ['faucet sends', this.faucet],
    ];
    for (const [name, part] of parts) {
      if (!part) continue;
      try {
        await part.tick();
      } catch (error) {
        onError(name, error);
      }
    }
  }

  /** Queues a faucet transfer: a mint of a test token, or the native coin. */
  async requestFaucet(key: string, to: Address, token: RuntimeToken, units: bigint): Promise<SendRecord> {
    if (!this.faucet) throw new Error(`${this.id} has no faucet`);
    const request =
      token.address === NATIVE_TOKEN
        ? { to, value: units }
        : { to: token.address, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [to, units] }) };
    return this.faucet.enqueue(this.options.pool, `faucet:${key}`, request);
  }

  /**
   * Queues a transfer from the hot wallet (a token's `transfer`, or the native coin), charged to the ledger account
   * `terms.account` when final; the same key is the same transfer, and asked again with any other term it is refused
   * (IDEMPOTENCY_KEY_REUSED). A refund (`terms.refundOf`) is checked against the deposit it names first (checkRefund).
   */
  async requestTransfer(key: string, terms: TransferTerms): Promise<SendRecord> {
    const { to, token, amount, account, refundOf } = terms;
    const sendKey = `transfer:${key}`;
    const known = await this.knownTransfer(this.options.pool, sendKey, terms);
    if (known) return known;
    const units = toBaseUnits(amount, token.decimals);
    if (refundOf !== undefined) await this.checkRefund(refundOf, terms);
    const request =
      token.address === NATIVE_TOKEN ? { to, value: units } : { to: token.address, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'transfer', args: [to, units] }) };
    return withTransaction(this.options.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.transfers (chain, send_key, token_symbol, amount, to_address, account, refund_of) values ($1, $2, $3, $4::numeric, $5, $6, $7) on conflict do nothing`,
        [this.id, sendKey, token.symbol, amount, to, account, refundOf ?? null],
      );
      if (inserted.rowCount === 0) {
        // Queued meanwhile under this key (a concurrent request: its answer is this one's), or the deposit was given
        // back by another transfer.
        const again = await this.knownTransfer(tx, sendKey, terms);
        if (again) return again;
        throw invalidField('refundOf', `deposit ${refundOf} is already given back by another transfer`);
      }
      return this.hot.enqueue(tx, sendKey, request);
    });
  }

  /** A transfer queued before under `sendKey`; IDEMPOTENCY_KEY_REUSED when any of its terms differs; undefined when none. */
  private async knownTransfer(db: Pick<PoolClient, 'query'>, sendKey: string, terms: TransferTerms): Promise<SendRecord | undefined> {
    const { rows } = await db.query<{ token_symbol: string; amount: string; to_address: string; account: string; refund_of: string | null }>(
      `select token_symbol, amount::text, to_address, account, refund_of from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = $2`,
      [this.id, sendKey],
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
    return (await this.hot.find(sendKey, db))!;
  }

  /**
   * A refund gives back exactly one credited deposit of a non-custodial off-ramp's address, as it arrived: the same
   * token, the same amount, to its sender (any address for a deposit that was minted, which has none: the off-ramp's
   * declared source then). Anything else is refused naming `refundOf`: never more, nor another token, than arrived.
   */
  private async checkRefund(depositId: string, terms: TransferTerms): Promise<void> {
    const prefix = `${this.environment}:${this.chain}:`;
    const [txHash, logIndex] = depositId.startsWith(prefix) ? depositId.slice(prefix.length).split(':') : [];
    const { rows } = await this.options.pool.query<{ token: string; amount: string; from_address: string; status: string; credited: boolean; owner: string }>(
      `select d.token, d.amount::text, d.from_address, d.status, d.credited, a.owner
         from ${CHAIN_SCHEMA}.chain_deposits d join ${CHAIN_SCHEMA}.deposit_addresses a on a.chain = d.chain and a.address = d.to_address
        where d.chain = $1 and d.tx_hash = $2 and d.log_index = $3`,
      [this.id, txHash ?? '', /^-?\d+$/.test(logIndex ?? '') ? Number(logIndex) : 0],
    );
    const deposit = rows[0];
    const refuse = (why: string): never => {
      throw invalidField('refundOf', `${depositId} ${why}`);
    };
    if (!deposit || !txHash) return refuse(`is not a deposit of ${this.environment} ${this.chain}`);
    if (!deposit.owner.startsWith('offramp:')) return refuse('is not a deposit to an off-ramp\'s address: only those are given back');
    if (deposit.status !== 'confirmed' || !deposit.credited) return refuse(`is not a credited deposit (${deposit.status})`);
    if (deposit.token !== terms.token.address) return refuse(`was not ${terms.token.symbol}: a refund is in the deposit's own token`);
    if (BigInt(deposit.amount) !== toBaseUnits(terms.amount, terms.token.decimals)) return refuse(`was ${fromBaseUnits(BigInt(deposit.amount), terms.token.decimals)} ${terms.token.symbol}: a refund is exactly what arrived`);
    if (!/^0x0{40}$/.test(deposit.from_address) && deposit.from_address !== terms.to.toLowerCase()) return refuse('came from another address: a refund goes back to its sender');
  }

  /**
   * Queues a swap from the hot wallet through the router of the platform's pools, booked against the ledger account
   * `terms.account` when final; the same key is the same swap (other terms: IDEMPOTENCY_KEY_REUSED). The router's
   * approval of the token goes first, once per token for good (its own send, before the swap in the queue's order).
   */
  async requestSwap(key: string, terms: SwapTerms): Promise<SwapRecord> {
    const dex = this.dexFor(terms);
    const sendKey = `swap:${key}`;
    const { fromToken, toToken } = terms;
    const call = routerSwapCall(dex, {
      fromToken: fromToken.symbol,
      toToken: toToken.symbol,
      amountIn: toBaseUnits(terms.amountIn, fromToken.decimals),
      minimumOut: toBaseUnits(terms.minimumOut, toToken.decimals),
      to: terms.to,
      deadline: BigInt(Math.floor(Date.now() / 1000) + SWAP_DEADLINE_SECONDS),
    });
    // Asked again (a step polling its swap): read only, no write transaction.
    const known = await this.knownSwap(this.options.pool, sendKey, terms);
    if (known) return known;
    return withTransaction(this.options.pool, async (tx) => {
      const inserted = await tx.query(
        `insert into ${CHAIN_SCHEMA}.swaps (chain, send_key, from_token, to_token, amount_in, minimum_out, to_address, account)
         values ($1, $2, $3, $4, $5::numeric, $6::numeric, $7, $8) on conflict do nothing`,
        [this.id, sendKey, fromToken.symbol, toToken.symbol, terms.amountIn, terms.minimumOut, terms.to.toLowerCase(), terms.account],
      );
      // Queued meanwhile by a concurrent request: this one's answer is that one's.
      if (inserted.rowCount === 0) return (await this.knownSwap(tx, sendKey, terms))!;
      if (fromToken.address !== NATIVE_TOKEN) await this.approveSpender(tx, dex.router, fromToken);
      return { send: await this.hot.enqueue(tx, sendKey, call) };
    });
  }

  /**
   * A swap queued before under `sendKey`, with its send and, once confirmed, its output; IDEMPOTENCY_KEY_REUSED when it
   * was queued with other terms; undefined when there is none.
   */
  private async knownSwap(db: Pick<PoolClient, 'query'>, sendKey: string, terms: SwapTerms): Promise<SwapRecord | undefined> {
    const row = await this.swapRow(db, sendKey);
    if (!row) return undefined;
    const same =
      row.from_token === terms.fromToken.symbol &&
      row.to_token === terms.toToken.symbol &&
      dec(row.amount_in).eq(terms.amountIn) &&
      dec(row.minimum_out).eq(terms.minimumOut) &&
      row.to_address === terms.to.toLowerCase() &&
      row.account === terms.account;
    if (!same) throw new AppError('IDEMPOTENCY_KEY_REUSED', `Swap ${sendKey.slice('swap:'.length)} was queued with other terms`);
    const send = await this.hot.find(sendKey, db);
    // The row's output is read after the send: a send seen confirmed has it (both written in the transaction that
    // finished it).
    const out = send?.status === 'confirmed' ? (await this.swapRow(db, sendKey))!.amount_out : null;
    return { send: send!, ...(out !== null && { amountOut: BigInt(out) }) };
  }

  /**
   * The allowance of the hot wallet's `token` to `spender` (the router, an intent pool), queued before a new send that
   * spends it: once for good, unless the last approval failed (refused or reverted), when a new one is queued under a
   * key of its own.
   */
  async approveSpender(tx: PoolClient, spender: Address, token: RuntimeToken): Promise<void> {
    const prefix = `approve:${spender.toLowerCase()}:${token.address}`;
    const { rows } = await tx.query<{ id: string; status: string }>(
      `select id, status from ${CHAIN_SCHEMA}.chain_sends where chain = $1 and (idempotency_key = $2 or idempotency_key like $2 || ':after:%') order by id desc limit 1`,
      [this.id, prefix],
    );
    if (rows[0] && rows[0].status !== 'failed') return;
    const approve = { to: token.address, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [spender, maxUint256] }) };
    await this.hot.enqueue(tx, rows[0] ? `${prefix}:after:${rows[0].id}` : prefix, approve);
  }

  /** What a swap would give now, or at a block (a refused swap's), by the router's own arithmetic. */
  async swapQuote(terms: Pick<SwapTerms, 'fromToken' | 'toToken' | 'amountIn'>, blockNumber?: bigint): Promise<bigint> {
    const dex = this.dexFor(terms);
    return routerAmountOut(this.client, dex, terms.fromToken.symbol, terms.toToken.symbol, toBaseUnits(terms.amountIn, terms.fromToken.decimals), blockNumber);
  }

  /** The platform's pools, for a swap of two of their tokens; a 4xx naming the field otherwise. */
  private dexFor(terms: Pick<SwapTerms, 'fromToken' | 'toToken'>): DexContracts {
    const dex = this.dex;
    if (!dex) throw new AppError('UNSUPPORTED_CHAIN', `${this.chain} has no pools of the platform for ${this.environment} keys`, 'chain');
    for (const [field, token] of [['fromToken', terms.fromToken], ['toToken', terms.toToken]] as const) {
      if (!dex.tokens[token.symbol] || (token.symbol !== dex.hub && !dex.pairs[token.symbol])) throw invalidField(field, `${token.symbol} has no pool on ${this.chain}`, 'UNSUPPORTED_TOKEN');
    }
    if (terms.fromToken.symbol === terms.toToken.symbol) throw invalidField('toToken', 'must differ from fromToken');
    return dex;
  }

  private async swapRow(db: Pick<PoolClient, 'query'>, sendKey: string): Promise<SwapRow | undefined> {
    const { rows } = await db.query<SwapRow>(
      `select from_token, to_token, amount_in::text, minimum_out::text, to_address, account, amount_out::text from ${CHAIN_SCHEMA}.swaps where chain = $1 and send_key = $2`,
      [this.id, sendKey],
    );
    return rows[0];
  }

  /**
   * What the platform holds on this chain, read at the watcher's checkpoint (see ChainHoldings): undefined before the
   * chain's first pass.
   */
  async holdings(): Promise<{ blockNumber: bigint; holdings: Map<string, bigint> } | undefined> {
    const blockNumber = await this.watcher.checkpoint();
    if (blockNumber === undefined) return undefined;
    const { pool } = this.options;
    const hot = this.hot.sender;
    const { rows: open } = await pool.query<{ address: string }>(
      `select distinct d.to_address as address from ${CHAIN_SCHEMA}.chain_deposits d
        where d.chain = $1 and d.block_number <= $2 and d.status in ('seen', 'confirmed') and d.to_address <> $3
          and not exists (select 1 from ${CHAIN_SCHEMA}.chain_sends s where s.chain = $1 and s.status = 'confirmed' and s.block_number <= $2
                            and s.idempotency_key = 'sweep:' || $4 || ':' || d.tx_hash || ':' || d.log_index)`,
      [this.id, blockNumber.toString(), hot.toLowerCase(), `${this.environment}:${this.chain}`],
    );
    const holders = [hot, ...open.map((row) => row.address as Address)];
    const held = new Map<string, bigint>();
    for (const token of this.tokens) {
      const balances = await Promise.all(holders.map((holder) => this.balanceAt(token, holder, blockNumber)));
      held.set(token.symbol, balances.reduce((sum, balance) => sum + balance, 0n));
    }
    // Seen on chain, not yet credited in the books. What the hot wallet's own sweeps and swaps brought it is never
    // credited as a deposit (ownArrival): the send's own booking covers it (and pendingMined below until then).
    const { rows: seen } = await pool.query<{ token: string; amount: string }>(
      `select d.token, sum(d.amount)::text as amount from ${CHAIN_SCHEMA}.chain_deposits d
        where d.chain = $1 and d.status = 'seen' and d.block_number <= $2
          and not (d.to_address = $3 and ${ownArrival('d', '$4', '$3')})
        group by d.token`,
      [this.id, blockNumber.toString(), hot.toLowerCase(), hot],
    );
    for (const row of seen) {
      const token = this.tokens.find((candidate) => candidate.address === row.token);
      if (token) held.set(token.symbol, held.get(token.symbol)! - BigInt(row.amount));
    }
    // Mined by the checkpoint but not final yet: the chain shows them spent, the books not yet.
    for (const send of await this.pendingMined(blockNumber)) {
      held.set(this.native.symbol, held.get(this.native.symbol)! + send.gas);
      for (const moved of send.moved) held.set(moved.symbol, held.get(moved.symbol)! + moved.units);
    }
    return { blockNumber, holdings: held };
  }

  /** What `holder` held of `token` at a block: 0 of a token whose contract was not there yet (a chain before deployment). */
  private async balanceAt(token: RuntimeToken, holder: Address, blockNumber: bigint): Promise<bigint> {
    if (token.address === NATIVE_TOKEN) return this.client.getBalance({ address: holder, blockNumber });
    if (!(await this.client.getCode({ address: token.address, blockNumber }))) return 0n;
    return this.client.readContract({ address: token.address, abi: TestToken.abi, functionName: 'balanceOf', args: [holder], blockNumber });
  }

  /**
   * The hot wallet's sends mined by `blockNumber` but not final: their gas, and what each moved that the books do not
   * hold yet (`moved`: positive what left, to add back; negative what arrived, to take off).
   */
  private async pendingMined(blockNumber: bigint): Promise<{ gas: bigint; moved: { symbol: string; units: bigint }[] }[]> {
    const pending = await this.hot.pending();
    if (pending.length === 0) return [];
    const keys = pending.map((send) => send.idempotencyKey);
    const { rows: transfers } = await this.options.pool.query<{ send_key: string; token_symbol: string; amount: string }>(
      `select send_key, token_symbol, amount::text from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = any($2)`,
      [this.id, keys],
    );
    const { rows: swaps } = await this.options.pool.query<SwapRow & { send_key: string }>(
      `select send_key, from_token, to_token, amount_in::text, minimum_out::text, to_address, account, amount_out::text from ${CHAIN_SCHEMA}.swaps where chain = $1 and send_key = any($2)`,
      [this.id, keys],
    );
    const mined = [];
    for (const send of pending) {
      // Whichever attempt was mined (a replaced send's earlier one included); an RPC failure fails the whole read,
      // rather than leave a mined send out of it.
      const receipt = await this.hot.receiptOf(send.attempts);
      if (!receipt || receipt.blockNumber > blockNumber) continue;
      const moved: { symbol: string; units: bigint }[] = [];
      const transfer = transfers.find((row) => row.send_key === send.idempotencyKey);
      const swap = swaps.find((row) => row.send_key === send.idempotencyKey);
      if (receipt.status === 'success' && transfer) {
        const token = this.token(transfer.token_symbol)!;
        moved.push({ symbol: token.symbol, units: toBaseUnits(transfer.amount, token.decimals) });
      }
      if (receipt.status === 'success' && swap) {
        const [from, to] = [this.token(swap.from_token)!, this.token(swap.to_token)!];
        moved.push({ symbol: from.symbol, units: toBaseUnits(swap.amount_in, from.decimals) });
        const out = swapOutputOf(this.dex!, from.symbol, to.symbol, receipt.logs);
        if (out !== undefined && swap.to_address === this.hot.sender.toLowerCase()) moved.push({ symbol: to.symbol, units: -out });
      }
      const bridged = receipt.status === 'success' ? await this.options.relayer?.moved(this, send.idempotencyKey) : undefined;
      if (bridged) moved.push({ symbol: bridged.symbol, units: bridged.direction === 'out' ? bridged.units : -bridged.units });
      mined.push({ gas: gasCost(receipt.gasUsed, receipt.effectiveGasPrice), moved });
    }
    return mined;
  }

  /** In the transaction that makes a hot-wallet send final: the event that books its gas and what it moved. */
  private async finished(tx: PoolClient, send: SendRecord, logs: readonly Log[]): Promise<void> {
    const { rows } = await tx.query<{ token_symbol: string; amount: string; to_address: string; account: string }>(
      `select token_symbol, amount::text, to_address, account from ${CHAIN_SCHEMA}.transfers where chain = $1 and send_key = $2`,
      [this.id, send.idempotencyKey],
    );
    const transfer = rows[0];
    const swap = send.status === 'confirmed' ? await this.swapFinished(tx, send, logs) : undefined;
    const bridge = await this.options.relayer?.finished(tx, this, send, logs);
    const event: SendFinished = {
      sendId: `${this.id}:${send.id}`,
      environment: this.environment,
      chain: this.chain,
      idempotencyKey: send.idempotencyKey,
      status: send.status as SendFinished['status'],
      ...(send.txHash && { transactionHash: send.txHash }),
      gasCost: fromBaseUnits(send.gasCost ?? 0n, this.native.decimals),
      nativeSymbol: this.native.symbol,
      ...(transfer && send.status === 'confirmed' && { transfer: { tokenSymbol: transfer.token_symbol, amount: dec(transfer.amount).toFixed(), to: transfer.to_address, account: transfer.account } }),
      ...(swap && { swap }),
      ...(bridge && { bridge }),
      ...(send.error && { error: send.error }),
    };
    const metadata: EventMetadata = { correlationId: send.idempotencyKey, causationId: event.sendId, actor: 'system:chain', tenant: systemTenant(this.environment) };
    await this.options.log.append(tx, `send-${this.id}-${send.id}`, 0, [{ type: CHAIN_EVENT_TYPES.sendFinished, data: event }], metadata);
  }

  /** A confirmed swap's output, read from its receipt and recorded beside it: what send.finished books. */
  private async swapFinished(tx: PoolClient, send: SendRecord, logs: readonly Log[]): Promise<SendFinished['swap']> {
    const row = await this.swapRow(tx, send.idempotencyKey);
    if (!row) return undefined;
    const [from, to] = [this.token(row.from_token)!, this.token(row.to_token)!];
    const out = swapOutputOf(this.dex!, from.symbol, to.symbol, logs);
    // A successful router swap always emits its pairs' Swap events: without one, nothing can be booked, and the send
    // stays unfinished (this transaction rolls back) for an operator rather than booked wrong.
    if (out === undefined) throw new Error(`swap ${send.idempotencyKey} (${send.txHash}) confirmed without a Swap event of its last pair`);
    await tx.query(`update ${CHAIN_SCHEMA}.swaps set amount_out = $3::numeric where chain = $1 and send_key = $2`, [this.id, send.idempotencyKey, out.toString()]);
    return {
      fromToken: from.symbol,
      amountIn: dec(row.amount_in).toFixed(),
      toToken: to.symbol,
      amountOut: fromBaseUnits(out, to.decimals),
      to: getAddress(row.to_address),
      intoHotWallet: row.to_address === this.hot.sender.toLowerCase(),
      account: row.account,
    };
  }

  private async credited(tx: PoolClient, deposit: Deposit): Promise<void> {
    const found = await this.depositEvent(tx, deposit);
    if (!found) return;
    const { event, metadata } = found;
    // Stream version 0: a second credit of the same deposit would conflict and roll the whole transaction back.
    await this.options.log.append(tx, `deposit-${event.depositId}`, 0, [{ type: CHAIN_EVENT_TYPES.depositCredited, data: event }], metadata);
    if (event.owner.startsWith(TREASURY_PREFIX)) return;
    // The address's funds go to the hot wallet: the forwarder is deployed (first time) and flushed, once per deposit.
    const tokens = this.tokens.filter((token) => token.address !== NATIVE_TOKEN).map((token) => token.address);
    await this.hot.enqueue(tx, `sweep:${event.depositId}`, {
      to: this.network.contracts.forwarderFactory as Address,
      data: encodeFunctionData({ abi: ForwarderFactory.abi, functionName: 'sweep', args: [depositSalt(ownerKey(event.owner)!), tokens] }),
    });
    this.options.logger.info({ chain: this.id, depositId: event.depositId, owner: event.owner, amount: event.amount, token: event.tokenSymbol }, 'deposit credited');
  }

  private async reversed(tx: PoolClient, deposit: Deposit): Promise<void> {
    const found = await this.depositEvent(tx, deposit);
    if (!found) return;
    await this.options.log.append(tx, `deposit-${found.event.depositId}`, 1, [{ type: CHAIN_EVENT_TYPES.depositReversed, data: found.event }], found.metadata);
  }

  /** Watches `address` for `owner`, on behalf of `tenant`. */
  async watch(address: Address, owner: string, tenant: Tenant): Promise<void> {
    await withTransaction(this.options.pool, async (tx) => {
      await tx.query(`insert into ${CHAIN_SCHEMA}.deposit_addresses (chain, address, owner, tenant) values ($1, $2, $3, $4) on conflict do nothing`, [
        this.id,
        address.toLowerCase(),
        owner,
        JSON.stringify(tenant),
      ]);
      await this.watcher.watch(tx, address, owner);
    });
  }

  /**
   * A transfer into the hot wallet made by one of its own sweeps or swaps (ownArrival): booked by the send's own entry,
   * not as the treasury's deposit. Only what arrives otherwise (from outside) is the treasury's.
   */
  private async isOwnArrival(tx: PoolClient, deposit: Deposit): Promise<boolean> {
    const { rows } = await tx.query<{ own: boolean }>(`select ${ownArrival('d', '$2', '$3')} as own from (select $4::text as tx_hash) d`, [
      this.id,
      this.hot.sender,
      this.hot.sender.toLowerCase(),
      deposit.txHash.toLowerCase(),
    ]);
    return rows[0]!.own;
  }

  private async depositEvent(tx: PoolClient, deposit: Deposit): Promise<{ event: DepositCredited; metadata: EventMetadata } | undefined> {
    const { rows } = await tx.query<{ owner: string; tenant: Tenant }>(`select owner, tenant from ${CHAIN_SCHEMA}.deposit_addresses where chain = $1 and address = $2`, [
      this.id,
      deposit.to.toLowerCase(),
    ]);
    const token = this.tokens.find((candidate) => candidate.address === deposit.token.toLowerCase());
    if (rows[0]?.owner.startsWith(TREASURY_PREFIX) && (await this.isOwnArrival(tx, deposit))) return undefined;
    if (!rows[0] || !token) {
      this.options.logger.error({ chain: this.id, txHash: deposit.txHash, to: deposit.to, token: deposit.token }, 'a deposit to an address or of a token the chain does not know');
      return undefined;
    }
    const depositId = `${this.environment}:${this.chain}:${deposit.txHash}:${deposit.logIndex}`;
    const event: DepositCredited = {
      depositId,
      environment: this.environment,
      chain: this.chain,
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
    return { event, metadata: { correlationId: rows[0].owner, causationId: depositId, actor: `system:chain`, tenant: rows[0].tenant } };
  }
}
