import { AccountOperations } from '../accounts/account-operations';
import type { IntentRelayer } from '../bridge/intent-relayer';
import { ChainContext, type ChainContextOptions } from '../context/chain-context';
import { Deposits } from '../deposits/deposits';
import { Holdings } from '../holdings/holdings';
import { SendFinishedEvents } from '../holdings/send-finished';
import { PoolAverages } from '../swaps/pool-averages';
import { Pools } from '../swaps/pools';
import { Swaps } from '../swaps/swaps';
import { Faucet } from '../transfers/faucet';
import { Transfers } from '../transfers/transfers';
import { lookAtPass, type LeaderRead } from './pass-look';

export interface RuntimeOptions extends Omit<ChainContextOptions, 'onHotSendFinished'> {
  /** How long a read of the pools' reserves answers quotes. */
  poolsMaxAgeMs: number;
  /** POOL_AVERAGE_SECONDS: the span of a live chain's pools' averages. */
  poolAverageSeconds: number;
  /** How long after a credit its address is swept (the deposits arriving meanwhile go with it). */
  sweepDelayMs: number;
  /** The intent bridge's relayer, shared by every chain. */
  relayer?: IntentRelayer;
  /** CHAIN_SETTLEMENT_NET_MS: how long a netted settlement waits for others (0: each sent on its own). */
  settlementNetMs?: number;
}

/**
 * One chain of one environment in the chain service: its context (client, tokens, hot wallet) and its jobs, wired
 * together. What the chain service decides on its own is small: a deposit confirmed at the depth becomes a
 * `deposit.credited` event and a sweep of its address to the hot wallet (deposits), a send made final its
 * `send.finished` event (holdings), and the relayer moves bridges along at each pass (bridge).
 */
export class ChainRuntime {
  readonly context: ChainContext;
  readonly deposits: Deposits;
  readonly transfers: Transfers;
  /** Local test chains only. */
  readonly faucet: Faucet | undefined;
  readonly swaps: Swaps;
  readonly pools: Pools;
  /** A live chain's readings of its pools' accumulators. */
  readonly averages: PoolAverages | undefined;
  readonly holdings: Holdings;
  /** The operations of managed wallets' accounts (a chain with smart accounts). */
  readonly accounts: AccountOperations;
  private readonly sendFinished: SendFinishedEvents;
  private readonly relayer: IntentRelayer | undefined;
  private pauseReadAt = 0;

  constructor(options: RuntimeOptions) {
    const { poolsMaxAgeMs, poolAverageSeconds, sweepDelayMs, relayer, settlementNetMs, ...contextOptions } = options;
    this.relayer = relayer;
    this.context = new ChainContext({ ...contextOptions, onHotSendFinished: (tx, send, logs) => this.sendFinished.append(tx, send, logs) });
    this.accounts = new AccountOperations(this.context, contextOptions.custody);
    this.deposits = new Deposits(this.context, sweepDelayMs, this.accounts);
    this.transfers = new Transfers(this.context, settlementNetMs);
    this.faucet = this.context.faucet && new Faucet(this.context, this.context.faucet);
    this.swaps = new Swaps(this.context);
    // A live chain's pools are a third party's: their prices are judged by their own averages (a test key's are judged
    // by the sandbox's feed).
    this.averages = this.context.environment === 'live' ? new PoolAverages(this.context, poolAverageSeconds) : undefined;
    this.pools = new Pools(this.context, poolsMaxAgeMs, this.averages);
    this.holdings = new Holdings(this.context, { deposits: this.deposits, transfers: this.transfers, swaps: this.swaps, accounts: this.accounts, relayer });
    this.sendFinished = new SendFinishedEvents(this.context, { transfers: this.transfers, swaps: this.swaps, relayer });
  }

  /** `test-base`, `live-base`. */
  get id(): string {
    return this.context.id;
  }

  get chain(): string {
    return this.context.chain;
  }

  get environment(): ChainContext['environment'] {
    return this.context.environment;
  }

  /**
   * Before the first pass: the node must be the chain the settings name; on a local node the platform's contracts are
   * deployed (by the deployer account, idempotently) and the hot wallet's gas topped up; every contract the chain names
   * must have code; the hot wallet is watched as the treasury; a local chain's relayer inventory is stocked.
   */
  async prepare(): Promise<void> {
    await this.context.checkChainId();
    // Every contract there before anything is watched or sent: a chain without them is not run.
    if (this.faucet) await this.context.deployLocalContracts();
    await this.context.checkContracts();
    await this.deposits.prepare();
    if (this.faucet) await this.faucet.stockInventory();
  }

  /** Until the send queues' passes under way have ended: before this replica gives up running the chain. */
  async idle(): Promise<void> {
    await this.context.lanes.idle();
  }

  /**
   * One pass of each part that its look (on `read`, the leader's connection) found work for; a part that fails (an RPC
   * outage) is retried at the next pass without stopping the others. The look's failure is thrown: the leadership may be
   * gone with its connection.
   */
  async tick(read: LeaderRead, onError: (part: string, error: unknown) => void): Promise<void> {
    const look = await lookAtPass(read, this.context.id, {
      netMs: this.transfers.netMs,
      operations: this.context.smartAccounts !== undefined,
      bridges: this.relayer !== undefined,
    });
    try {
      // A pause of the chain's sends (ChainSendsPause) holds whichever replica runs it, and across restarts: read at
      // most once a second.
      if (Date.now() - this.pauseReadAt >= 1000) {
        this.pauseReadAt = Date.now();
        this.context.lanes.pause(await this.context.pauseReason());
      }
    } catch (error) {
      onError('pause', error);
    }
    const relayer = this.relayer;
    const { context } = this;
    const parts: [string, { tick(): Promise<void> } | undefined][] = [
      ['watcher', this.deposits.watcher],
      ['sweeps', look.sweeps ? this.deposits.sweeps : undefined],
      ['relayer', relayer && look.bridges ? { tick: () => relayer.tick(context) } : undefined],
      ['settlements', look.netting ? { tick: () => this.transfers.netDue() } : undefined],
      ['account operations', look.operations ? this.accounts : undefined],
      ['pool averages', this.averages],
      ['lanes', { tick: () => context.maintainLanes() }],
      // Every lane's sends and the faucet's at once, each failing on its own.
      [
        'sends',
        {
          tick: () =>
            context.lanes.tick(context.faucet ? [context.faucet] : [], (queue, error) =>
              onError(queue === context.faucet ? 'faucet sends' : `sends of ${queue.sender}`, error),
            ),
        },
      ],
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
}
