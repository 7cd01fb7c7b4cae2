import type { Pool, PoolClient } from 'pg';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  maxUint256,
  parseEther,
  type Address,
  type Log,
  type PublicClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DUST_MINIMUMS, liveChainData, type OutflowLimits, type SponsorshipBudget, type SponsorshipBudgets } from '@ramp/chains';
import { AppError, platformTenant, type ChainNetwork, type Environment, type Tenant } from '@ramp/contracts';
import type { Sql } from '@ramp/database';
import { toBaseUnits } from '@ramp/money';
import type { EventLog } from '@ramp/event-store';
import {
  accountOfSigner,
  balancesAt,
  deployPlatformContracts,
  deploySmartAccountContracts,
  developmentSigner,
  EntryPoint,
  lanePath,
  LOCAL_CHAIN_ACCOUNTS,
  NATIVE_TOKEN,
  PAYMASTER_OWNER_PATH,
  PAYMASTER_SIGNER_PATH,
  RPC_BATCH_SIZE,
  RpcNodes,
  seedPools,
  SendQueue,
  sponsorship,
  TestToken,
  UserOperations,
  type ChainLogger,
  type ChainSettings,
  type DexContracts,
  type HdCustody,
  type PlatformContractsSpec,
  type SendRecord,
  type SendRequest,
  type Signer,
  type SmartAccountContracts,
} from '@ramp/evm';
import { chainContractsOf, contractCodes, missingContracts, namedContracts, type ChainToken, type ContractCode } from './platform-contracts';
import { unpinnedContracts } from './live-deployment';
import { findLiveDex } from './live-dex';
import { SendLanes } from './lanes';
import { missingEffect } from './send-effects';
import { Outflows } from '../transfers/outflows';

/** The chain service's schema: its event log, send queues and watchers. */
export const CHAIN_SCHEMA = 'chain';

/** What a send of the chain service is for: the `kind` column of chain_sends (Migration20261129000002). */
export type SendKind = 'sweep' | 'transfer' | 'swap' | 'approve' | 'bridge' | 'faucet' | 'inventory' | 'gas';

/** The sends that spend the hot wallet's funds (beyond gas). */
const SPENDING_KINDS: ReadonlySet<SendKind> = new Set(['transfer', 'swap', 'bridge']);

/** What the hot wallet of a local chain is topped up to, for gas, at each start. */
const LOCAL_HOT_WALLET_GAS = parseEther('100');

/** What the paymaster's EntryPoint deposit on a local chain is topped up to at each start: the sponsored operations' gas. */
const LOCAL_PAYMASTER_DEPOSIT = parseEther('100');

/** How long a sponsorship the paymaster signs stays valid: an operation not included by then is refused by the EntryPoint. */
const SPONSORSHIP_VALID_SECONDS = 600;

/** The smart accounts of a chain with a bundler (managed wallets, docs/chains.md "Smart accounts"). */
export interface ChainSmartAccountParts {
  contracts: SmartAccountContracts;
  /** UserOperations through the chain's bundler, sponsored by the environment's paymaster. */
  operations: UserOperations;
  /** The paymaster's owner: deploys it and alone may withdraw its deposit. */
  paymasterOwner: Signer;
  /** Who signs the paymaster's sponsorships (the verifying signer it is deployed with). */
  paymasterSigner: Address;
  /** The chain's client with the chain's id as viem's chain (an operation's hash and signature name it). */
  client: PublicClient;
}

export interface ChainContextOptions {
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
  /** The smallest deposit acted on, per token symbol (DUST_MINIMUMS with DEPOSIT_MINIMUMS over them). */
  dustMinimums?: Readonly<Record<string, string>>;
  /** The most sends a lane has signed and not yet mined at once (CHAIN_LANE_MAX_PENDING); none: no limit. */
  laneMaxPending?: number;
  /** What may leave the hot wallet, by chain id then token (CHAIN_OUTFLOW_LIMITS); none: no limit. */
  outflowLimits?: OutflowLimits;
  /** What the paymaster sponsors for an organization in a day, by chain id (CHAIN_SPONSORED_GAS_BUDGETS); none: no budget. */
  sponsorshipBudgets?: SponsorshipBudgets;
  /** In the transaction that makes a hot-wallet send final: the event that books it. */
  onHotSendFinished: (tx: PoolClient, send: SendRecord, logs: readonly Log[]) => Promise<void>;
}

/** How long a live chain's failed look for its pools (findPools) is answered with its failure before asking again. */
export const FIND_POOLS_RETRY_MS = 5_000;

/**
 * One chain of one environment as every job of the chain service sees it: its RPC client, its tokens and contracts,
 * the hot wallet's send queue (and the faucet's, on a local chain), and what the hot wallet holds. The jobs (deposits,
 * transfers, swaps, holdings, the bridge's relayer) each hold the context of their chain and nothing of each other's.
 */
export class ChainContext {
  /** The chain's name in the send queue's and the watcher's tables: `test-base`, `live-base`. */
  readonly id: string;
  readonly environment: Environment;
  readonly settings: ChainSettings;
  /** The chain's JSON-RPC nodes, with failover: what `client` (and the smart accounts' client) send through. */
  readonly rpc: RpcNodes;
  readonly client: PublicClient;
  /** The omnibus hot wallet's send queue: the treasury, what pays gas and sends. */
  readonly hot: SendQueue;
  /** The hot wallet's queue and its lanes' (settings.lanes): token transfers go out through all of them. */
  readonly lanes: SendLanes;
  /** Local test chains only: mints test tokens and sends test coins. */
  readonly faucet: SendQueue | undefined;
  /** A chain with a bundler (settings.bundlerUrl): its smart accounts' contracts and UserOperations; otherwise none. */
  readonly smartAccounts: ChainSmartAccountParts | undefined;
  /** The chain as the chains list shows it (its contracts, its hot wallet). */
  readonly network: ChainNetwork;
  readonly tokens: readonly ChainToken[];
  readonly native: ChainToken;
  /**
   * The pools swaps run on: the platform's on its local chains; on a live chain its DEX's, once found (findPools);
   * none elsewhere.
   */
  get dex(): DexContracts | undefined {
    return this.pools;
  }

  private pools: DexContracts | undefined;
  /** A look for a live chain's pools under way, or failed (kept FIND_POOLS_RETRY_MS); undefined once it succeeded. */
  private finding: Promise<void> | undefined;
  private foundAt = 0;
  readonly pool: Pool;
  readonly log: EventLog;
  readonly logger: ChainLogger;
  /** The smallest deposit acted on, per token symbol. */
  readonly dustMinimums: Readonly<Record<string, string>>;
  /** The brake on what leaves the hot wallet for the outside (transfers, swaps to an address, bridge deposits). */
  readonly outflows: Outflows;
  /** This chain's sponsorship budget (CHAIN_SPONSORED_GAS_BUDGETS); undefined: none. */
  readonly sponsorshipBudget: SponsorshipBudget | undefined;
  private readonly spec: PlatformContractsSpec | undefined;
  private readonly deployer: ReturnType<typeof mnemonicToAccount>;

  constructor(options: ChainContextOptions) {
    const { environment, settings, custody, pool, logger } = options;
    this.id = `${environment}-${settings.chain}`;
    this.environment = environment;
    this.settings = settings;
    this.pool = pool;
    this.log = options.log;
    this.logger = logger;
    this.dustMinimums = options.dustMinimums ?? DUST_MINIMUMS;
    this.outflows = new Outflows({ id: this.id, name: options.settings.chain }, options.outflowLimits?.[this.id]);
    this.sponsorshipBudget = options.sponsorshipBudgets?.[this.id];
    const hotSigner = custody.signer(settings.hotWalletPath);
    const faucetSigner = developmentSigner(LOCAL_CHAIN_ACCOUNTS.mnemonic, LOCAL_CHAIN_ACCOUNTS.faucetIndex);
    this.deployer = mnemonicToAccount(LOCAL_CHAIN_ACCOUNTS.mnemonic, { addressIndex: LOCAL_CHAIN_ACCOUNTS.deployerIndex });
    const paymasterOwner = custody.signer(PAYMASTER_OWNER_PATH);
    const planned = chainContractsOf(environment, settings, {
      faucet: faucetSigner.address,
      hotWallet: hotSigner.address,
      deployer: this.deployer.address,
      paymasterOwner: paymasterOwner.address,
    });
    this.spec = planned.spec;
    this.pools = planned.dex;
    this.network = planned.network;
    this.tokens = planned.tokens;
    this.native = this.tokens.find((token) => token.address === NATIVE_TOKEN)!;
    // The requests a pass makes at once (receipts, balances, nonces) go in one HTTP request (JSON-RPC batch).
    // The chain's nodes, with failover (docs/chains.md, "RPC nodes"): a node is named by its place in the list, never by
    // its URL, which may hold a provider's key.
    this.rpc = new RpcNodes(settings.rpcUrls, {
      chainId: settings.chainId,
      timeoutMs: 10_000,
      batchSize: RPC_BATCH_SIZE,
      onChange: (status, previous) => {
        const fields = { chain: this.id, node: status.index, state: status.state, previous, reason: status.reason };
        if (status.state === 'healthy') logger.info(fields, 'an RPC node of the chain is used again');
        else if (previous === 'healthy' || previous === 'unchecked') logger.warn(fields, 'an RPC node of the chain is set aside');
      },
    });
    this.client = createPublicClient({ transport: this.rpc.transport() }) as PublicClient;
    const queue = {
      schema: CHAIN_SCHEMA,
      pool,
      chain: this.id,
      chainId: settings.chainId,
      client: this.client,
      confirmations: settings.confirmations,
      finality: settings.finality,
      logger,
    };
    const limits = { stuckAfterMs: options.stuckAfterMs, maxFeePerGas: options.maxFeePerGas };
    const effects = { hotWallet: hotSigner.address, forwarderFactory: this.network.contracts.forwarderFactory as Address };
    const lane = (index: number) =>
      new SendQueue({
        ...queue,
        ...limits,
        signer: index === 0 ? hotSigner : custody.signer(lanePath(settings.hotWalletPath, index)),
        onFinished: options.onHotSendFinished,
        verify: (send, logs) => missingEffect(send, logs, effects),
        // A local anvil node mines each transaction as it arrives and keeps any number of one sender's: the cap is a
        // public node's (geth's txpool.accountslots), and on a local chain it only made each pass sign fewer.
        maxPending: settings.localPort === undefined ? options.laneMaxPending : undefined,
        // A lane spends the hot wallet's tokens: what the hot wallet's sweeps bring in first.
        ...(index > 0 && { dependsOn: [hotSigner.address] }),
      });
    const queues = Array.from({ length: settings.lanes }, (_, index) => lane(index));
    this.hot = queues[0]!;
    this.lanes = new SendLanes({ schema: CHAIN_SCHEMA, chain: this.id, pool, queues, gas: toBaseUnits(settings.laneGas, this.native.decimals) });
    this.faucet = this.network.faucet ? new SendQueue({ ...queue, ...limits, signer: faucetSigner }) : undefined;
    const contracts = this.network.contracts.smartAccounts as SmartAccountContracts | undefined;
    const paymasterSigner = custody.signer(PAYMASTER_SIGNER_PATH);
    // The bundler's client needs the chain's id as viem's chain: the operations' hashes and signatures name it.
    const accountsClient = createPublicClient({
      chain: defineChain({
        id: settings.chainId,
        name: settings.chain,
        nativeCurrency: { name: this.native.symbol, symbol: this.native.symbol, decimals: this.native.decimals },
        rpcUrls: { default: { http: [settings.rpcUrl] } },
      }),
      transport: this.rpc.transport(),
    }) as PublicClient;
    this.smartAccounts =
      contracts && settings.bundlerUrl !== undefined
        ? {
            contracts,
            paymasterOwner,
            paymasterSigner: paymasterSigner.address,
            client: accountsClient,
            operations: new UserOperations(
              accountsClient,
              settings.bundlerUrl,
              contracts,
              sponsorship({
                paymaster: contracts.paymaster,
                signer: paymasterSigner,
                chainId: settings.chainId,
                validForSeconds: SPONSORSHIP_VALID_SECONDS,
              }),
            ),
          }
        : undefined;
  }

  get chain(): string {
    return this.settings.chain;
  }

  /** The platform acting for itself: the tenant of its own events. */
  get systemTenant(): Tenant {
    return platformTenant(this.environment, 'chain');
  }

  token(symbol: string): ChainToken | undefined {
    return this.tokens.find((token) => token.symbol === symbol);
  }

  /** The token contracts (every token but the native coin), lower case. */
  get tokenContracts(): Address[] {
    return this.tokens.filter((token) => token.address !== NATIVE_TOKEN).map((token) => token.address);
  }

  /**
   * Queues a send of the hot wallet, once per key, recorded with what it is for. A send that spends the hot wallet's
   * funds (a transfer, a swap, a bridge deposit) is queued after whatever must come in first (beforeSpend: the sweeps
   * scheduled), in the same transaction.
   */
  async enqueue(db: Sql, kind: SendKind, key: string, request: SendRequest): Promise<SendRecord> {
    if (SPENDING_KINDS.has(kind) && this.beforeSpend) await this.beforeSpend(db);
    return this.hot.enqueue(db, key, request, kind);
  }

  /**
   * Queues a transfer of the hot wallet's `units` of `token` to `to`, once per key, through one of the chain's lanes
   * (SendLanes.route): after whatever must come in first (beforeSpend), as enqueue.
   */
  async enqueueTransfer(db: Sql, key: string, token: ChainToken, to: Address, units: bigint): Promise<SendRecord> {
    if (this.beforeSpend) await this.beforeSpend(db);
    const { queue, request } = await this.lanes.route(db, token, token.address === NATIVE_TOKEN, to, units);
    return queue.enqueue(db, key, request, 'transfer');
  }

  /** Why a queued send waits (its lane's reason, as the replica running the chain recorded it), or undefined. */
  async waitingOf(send: SendRecord): Promise<string | undefined> {
    return (this.lanes.of(send.sender) ?? this.hot).waiting();
  }

  /** The leader's care of the lanes (their allowances and gas: SendLanes.maintain). */
  async maintainLanes(): Promise<void> {
    await this.lanes.maintain(
      this.tokens.filter((token) => token.address !== NATIVE_TOKEN),
      {
        enqueueGas: (db, key, request) => this.enqueue(db, 'gas', key, request),
        approveSpender: (db, spender, token) => this.approveSpender(db, spender, token),
        balanceOf: (holder) => this.client.getBalance({ address: holder }),
      },
    );
  }

  /** The approvals (approveSpender's keys) found confirmed. */
  private readonly approved = new Set<string>();

  /** What must be queued before any send that spends the hot wallet's funds (the deposits' sweeps register it). */
  beforeSpend: ((db: Sql) => Promise<void>) | undefined;

  /** What `holder` held of `token` at a block: 0 of a token whose contract was not there yet (a chain before deployment). */
  async balanceAt(token: ChainToken, holder: Address, blockNumber: bigint): Promise<bigint> {
    return (await balancesAt(this.client, token.address, [holder], blockNumber))[0]!;
  }

  /** What each of `holders` holds of `token` at `blockNumber`, in their order: a few eth_calls for any number (balancesAt). */
  balancesAt(token: ChainToken, holders: readonly Address[], blockNumber: bigint): Promise<bigint[]> {
    return balancesAt(this.client, token.address, holders, blockNumber);
  }

  /**
   * The allowance of the hot wallet's `token` to `spender` (the router, an intent pool), queued before a new send that
   * spends it: once for good, unless the last approval failed (refused or reverted), when a new one is queued under a
   * key of its own.
   */
  async approveSpender(tx: Sql, spender: Address, token: ChainToken): Promise<void> {
    const prefix = `approve:${spender.toLowerCase()}:${token.address}`;
    // Confirmed once, an approval of the most there is stands for good: not looked up again at every send.
    if (this.approved.has(prefix)) return;
    const approve = { to: token.address, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'approve', args: [spender, maxUint256] }) };
    // An approval of this spender for this token is exactly a send of this call to this token.
    const { rows } = await tx.query<{ id: string; status: string }>(
      `select id, status from ${CHAIN_SCHEMA}.chain_sends where chain = $1 and kind = 'approve' and to_address = $2 and data = $3 order by id desc limit 1`,
      [this.id, approve.to, approve.data],
    );
    if (rows[0]?.status === 'confirmed') this.approved.add(prefix);
    if (rows[0] && rows[0].status !== 'failed') return;
    await this.enqueue(tx, 'approve', rows[0] ? `${prefix}:after:${rows[0].id}` : prefix, approve);
  }

  /**
   * Whether the paymaster's EntryPoint deposit is below the chain's `paymasterMinDeposit` (its sponsored operations'
   * gas about to run out); undefined for a chain without smart accounts.
   */
  async paymasterDepositLow(): Promise<boolean | undefined> {
    const parts = this.smartAccounts;
    if (!parts || this.settings.paymasterMinDeposit === undefined) return undefined;
    const held = await this.client.readContract({
      address: parts.contracts.entryPoint,
      abi: EntryPoint.abi,
      functionName: 'balanceOf',
      args: [parts.contracts.paymaster],
    });
    return held < toBaseUnits(this.settings.paymasterMinDeposit, this.native.decimals);
  }

  /**
   * A live chain's pools on its DEX (findLiveDex), found once per process: by the replica taking the chain up before
   * its pins are checked, by chain:deploy before it pins, and by any replica before it reads the pools, plans or books a
   * swap (poolsFor). A token the DEX has no pool of with the hub is logged and not swapped. Nothing on other chains
   * (their pools are known from their settings). `again`: looked for anew (a pair created since), at most every
   * FIND_POOLS_RETRY_MS. A failed read (a node down) is SERVICE_UNAVAILABLE, and fails the calls of the next
   * FIND_POOLS_RETRY_MS too before it is tried again.
   */
  async findPools(again = false): Promise<void> {
    if (this.environment !== 'live') return;
    if (this.pools) {
      // Known: looked for anew only when asked, and not while (or shortly after) another look; a failed new look
      // leaves the pools as they were found.
      if (!again) return;
      if (this.finding) return void (await this.finding.catch(() => undefined));
      if (Date.now() - this.foundAt < FIND_POOLS_RETRY_MS) return;
    }
    if (this.finding) return this.finding;
    const finding = (async () => {
      const live = liveChainData(this.chain)!;
      const found = await findLiveDex(this.client, live, this.tokens, this.native.symbol).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new AppError('SERVICE_UNAVAILABLE', `${this.chain}'s DEX (${live.dex.name}) could not be read: ${reason}`);
      });
      this.network.contracts.wrappedNative = found.wrappedNative;
      this.network.contracts.dex = { ...this.network.contracts.dex!, pairs: found.dex.pairs };
      this.pools = found.dex;
      this.foundAt = Date.now();
      const fields = { chain: this.id, dex: live.dex.name, hub: live.dex.hub, pools: Object.keys(found.dex.pairs) };
      if (found.unpooled.length > 0)
        this.logger.warn(
          { ...fields, unpooled: found.unpooled },
          `${live.dex.name} has no pool of ${found.unpooled.join(', ')} with ${live.dex.hub} on ${this.chain}: not swapped there`,
        );
      else this.logger.info(fields, `${live.dex.name}'s pools found on ${this.chain}`);
      this.finding = undefined;
    })().catch((error: unknown) => {
      // Asked again after a while, not at every request of a chain whose node cannot tell it (a paid provider).
      setTimeout(() => {
        if (this.finding === finding) this.finding = undefined;
      }, FIND_POOLS_RETRY_MS).unref();
      throw error;
    });
    this.finding = finding;
    await finding;
  }

  /**
   * The pools a swap from `fromToken` to `toToken` goes through, as this replica knows them: on a live chain found
   * first, and looked for again when a token of the path has no pair here (one created since this replica looked,
   * which another replica found and accepted a swap through: its outcome must still be read). UNSUPPORTED_CHAIN where
   * the chain has no pools for the environment.
   */
  async poolsFor(fromToken: string, toToken: string): Promise<DexContracts> {
    await this.findPools();
    const unpooled = () => [fromToken, toToken].some((symbol) => symbol !== this.pools?.hub && !this.pools?.pairs[symbol]);
    if (this.pools && unpooled()) await this.findPools(true);
    if (!this.pools) throw new AppError('UNSUPPORTED_CHAIN', `${this.chain} has no pools for ${this.environment} keys`, 'chain');
    return this.pools;
  }

  /**
   * The code of every contract the chain names (contractCodes). On a live chain whose DEX's factory and router have
   * code, its pools are found first (findPools), so that the wrapped native coin its router names is among them; where
   * they have none, the codes say so, and the chain is refused for it rather than for a failed read of the factory.
   */
  async contractCodes(): Promise<ContractCode[]> {
    const codes = await contractCodes(this.client, this.network);
    if (this.environment !== 'live' || this.pools) return codes;
    const dex = codes.filter((entry) => entry.name === 'dex.factory' || entry.name === 'dex.router');
    if (dex.length === 0 || dex.some((entry) => !entry.code)) return codes;
    const named = codes.length;
    await this.findPools();
    return namedContracts(this.network).length === named ? codes : contractCodes(this.client, this.network);
  }

  /**
   * Before the chain's first pass: at least one of its nodes must answer as the chain the settings name (a node on
   * another chain is never used, and is reported: its setting is wrong).
   */
  async checkChainId(): Promise<void> {
    const { settings } = this;
    const statuses = await this.rpc.check();
    for (const status of statuses.filter((candidate) => candidate.state === 'wrong-chain'))
      this.logger.error(
        { chain: this.id, node: status.index, reason: status.reason },
        `an RPC node of ${settings.chain} is another chain: check the chain settings`,
      );
    if (!statuses.some((status) => status.state === 'healthy'))
      throw new Error(`no RPC node of ${settings.chain} (chain id ${settings.chainId}) can be used: ${this.rpc.describe()}; check the chain settings`);
  }

  /** Why the chain's outbound sends are paused (ChainSendsPause), or undefined. */
  async pauseReason(): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ reason: string }>(`select reason from ${CHAIN_SCHEMA}.send_pauses where chain = $1`, [this.id]);
    return rows[0]?.reason;
  }

  /** Pauses the chain's outbound sends with a reason, or lifts the pause (undefined). */
  async setPause(reason: string | undefined): Promise<void> {
    if (reason === undefined) await this.pool.query(`delete from ${CHAIN_SCHEMA}.send_pauses where chain = $1`, [this.id]);
    else
      await this.pool.query(
        `insert into ${CHAIN_SCHEMA}.send_pauses (chain, reason) values ($1, $2) on conflict (chain) do update set reason = excluded.reason`,
        [this.id, reason],
      );
  }

  /**
   * Every contract the chain's network names has code on the chain, or the chain is refused with the list: checked at
   * every start, after a local chain's deployment. On a live chain, each must also be as `npm run chain:deploy`
   * recorded it: at that address, with that code.
   */
  async checkContracts(): Promise<void> {
    const codes = await this.contractCodes();
    const missing = missingContracts(codes);
    if (missing.length > 0) {
      throw new Error(
        `${this.id} is not run: no contract at ${missing.join(', ')}; deploy the platform's contracts there (docs/chains.md, "Contracts") or correct the chain settings`,
      );
    }
    if (this.environment !== 'live') return;
    const unpinned = await unpinnedContracts(this.pool, this.id, codes);
    if (unpinned.length > 0)
      throw new Error(
        `${this.id} is not run: ${unpinned.join('; ')}; run \`npm run chain:deploy -- --env live --chain ${this.chain}\` after checking the live configuration (docs/chains.md, "Contracts on a live chain")`,
      );
  }

  /**
   * A local chain's platform contracts deployed and its pools seeded (by the deployer account, idempotently), and the
   * hot wallet's gas topped up; with a bundler, the smart accounts' contracts too (the paymaster by its owner, its gas
   * and its EntryPoint deposit given by the deployer).
   */
  async deployLocalContracts(): Promise<void> {
    if (!this.spec || !this.dex) throw new Error(`${this.id} is not a local test chain: the platform deploys nothing there`);
    const deployer = createWalletClient({ account: this.deployer, transport: this.rpc.transport() });
    await deployPlatformContracts(this.client, deployer, this.spec, LOCAL_HOT_WALLET_GAS);
    await seedPools(this.client, deployer, this.spec.pools, this.dex);
    const parts = this.smartAccounts;
    if (parts) {
      const owner = createWalletClient({ account: accountOfSigner(parts.paymasterOwner), transport: this.rpc.transport() });
      await deploySmartAccountContracts(this.client, deployer, owner, parts.paymasterSigner, LOCAL_PAYMASTER_DEPOSIT);
    }
  }
}
