import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { parseGwei } from 'viem';
import { Counter, Gauge } from 'prom-client';
import { Config } from '@ramp/config';
import { DUST_MINIMUMS, parseDepositMinimums, parseOutflowLimits, parseSponsorshipBudgets } from '@ramp/chains';
import { AppError, chainEvents, type Environment } from '@ramp/contracts';
import type { Relay } from '@ramp/event-store';
import { RPC_NODE_STATES } from '@ramp/evm';
import { Metrics } from '@ramp/observability';
import { startLogRelay } from '@ramp/process-kit';
import { HealthRegistry, LOGGER, NATS_CONNECTION, PG_POOL, type Logger } from '@ramp/service-kit';
import { IntentRelayer } from '../bridge/intent-relayer';
import { CHAIN_LOG } from '../events/log';
import { ChainLoop } from './chain-loop';
import { ChainRuntime } from './chain-runtime';
import { configuredChains } from './configured-chains';

/**
 * Every chain of both environments (TEST_CHAINS, LIVE_CHAINS), each with its loop (run by one replica at a time), and
 * the relay of the service's events. The seed is opened here, once, into HdCustody, and goes nowhere else.
 */
@Injectable()
export class Networks implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly runtimes: ChainRuntime[];
  private readonly loops: ChainLoop[];
  readonly relayer: IntentRelayer;
  private relay: Relay | undefined;

  constructor(
    @Inject(Config) private readonly config: Config,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(Metrics) private readonly metrics: Metrics,
    @Inject(HealthRegistry) health: HealthRegistry,
  ) {
    // Each environment's seed, sealed with the chain service's own key: refused at start when they could sign for each other.
    const { test: testChains, live: liveChains, custody } = configuredChains(config);
    this.relayer = new IntentRelayer({ pool, logger, fillSeconds: config.int('chainBridgeFillSeconds', 5) });
    const shared = {
      relayer: this.relayer,
      pool,
      log: CHAIN_LOG,
      logger,
      stuckAfterMs: config.int('chainStuckAfterMs', 1000),
      maxFeePerGas: parseGwei(config.string('chainMaxFeeGwei')),
      poolsMaxAgeMs: config.int('chainPoolsMaxAgeMs', 0),
      poolAverageSeconds: config.int('poolAverageSeconds', 10, 86_400),
      sweepDelayMs: config.int('chainSweepDelayMs', 0),
      // Checked here, at start: a typo stops the service with the setting's name, not every deposit or send it meets.
      dustMinimums: { ...DUST_MINIMUMS, ...parseDepositMinimums(config.json('depositMinimums')) },
      outflowLimits: parseOutflowLimits(config.json('chainOutflowLimits')),
      sponsorshipBudgets: parseSponsorshipBudgets(config.json('chainSponsoredGasBudgets')),
      laneMaxPending: config.int('chainLaneMaxPending', 1, 10_000),
      settlementNetMs: config.int('chainSettlementNetMs', 0, 3_600_000),
    };
    this.runtimes = [
      ...testChains.map((settings) => new ChainRuntime({ ...shared, custody: custody.test, environment: 'test', settings })),
      ...liveChains.map((settings) => new ChainRuntime({ ...shared, custody: custody.live!, environment: 'live', settings })),
    ];
    for (const runtime of this.runtimes) this.relayer.register(runtime.context);
    // A part that fails at every pass (a node down, a question the database refuses) moves nothing of its chain while
    // the others go on: counted per chain and part, and alerted on (RampChainPassFailing, deploy/components/monitoring).
    const passFailures = new Counter({
      name: 'ramp_chain_pass_failures_total',
      help: "Failures of a chain's passes on the replica that runs it, by chain and part: look (the pass's first read), a part (watcher, sweeps, relayer, a send queue...), prepare (the chain could not be taken up), leadership (the chain given up and taken back).",
      labelNames: ['chain', 'part'],
      registers: [metrics.registry],
    });
    // A chain's RPC nodes by state, from the replica that runs the chain alone (another one asks them only now and then,
    // for a request it answers, and would keep reporting what it saw last): a node set aside (down, on another chain
    // id, behind) for long is a provider to call or replace while the others carry the chain. Alerted on
    // (RampChainRpcNodeSetAside, deploy/components/monitoring).
    const led = () => this.runtimes.filter((_, index) => this.loops[index]?.isLeader === true);
    new Gauge({
      name: 'ramp_chain_rpc_nodes',
      help: "A chain's RPC nodes by state (healthy; down, wrong-chain or behind: set aside; unchecked: not asked yet), as its failover sees them, on the replica that runs the chain.",
      labelNames: ['chain', 'state'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const runtime of led()) {
          const counts = new Map<string, number>(RPC_NODE_STATES.map((state) => [state, 0]));
          for (const status of runtime.context.rpc.statuses()) counts.set(status.state, (counts.get(status.state) ?? 0) + 1);
          for (const [state, count] of counts) this.set({ chain: runtime.id, state }, count);
        }
      },
    });
    // A chain its leader cannot take up (a node on another chain, a contract missing or not as pinned) is tried again
    // with growing waits, the lock held: told by the replica holding it, and alerted on (RampChainRefused).
    const held = () =>
      this.runtimes.flatMap((runtime, index) => (this.loops[index]?.isLeader ? [{ chain: runtime.id, refused: this.loops[index]!.refused }] : []));
    new Gauge({
      name: 'ramp_chain_refused',
      help: 'Chains that the replica holding their lock cannot take up (their preparation refused: a node on another chain id, a contract missing or not as pinned), 1 while refused; the log says why.',
      labelNames: ['chain'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const { chain, refused } of held()) this.set({ chain }, refused ? 1 : 0);
      },
    });
    const loop = {
      databaseUrl: config.string('databaseUrl'),
      pollMs: config.int('chainPollMs', 10),
      logger,
      onFailure: (chain: string, part: string) => passFailures.inc({ chain, part }),
    };
    this.loops = this.runtimes.map((runtime) => new ChainLoop(runtime, loop));
    // Ready once every chain has been scanned a first time (by whichever replica runs it): deposit addresses handed out
    // before that could receive funds the watcher would never look at; and, on a local chain, once its pools are seeded,
    // so that no quote is priced from empty pools. Later outages of a node do not unready it.
    // A send queue halted (its nonce and the chain's disagree: another signer, a chain reset under the database) sends
    // nothing until an operator acts: alerted on (deploy/components/monitoring), and logged by the queue.
    metrics.sampled(
      'ramp_chain_send_queues_halted',
      "Send queues (hot wallets and faucets of every chain) that sign nothing because their nonce and the chain's disagree.",
      async () =>
        this.runtimes.flatMap((runtime) => [...runtime.context.lanes.queues, runtime.context.faucet]).filter((queue) => queue?.haltedReason !== undefined)
          .length,
    );
    metrics.sampled(
      'ramp_chain_sends_paused',
      "Chains whose hot wallet's outbound sends are paused (ChainSendsPause: the books and the chain drifted apart).",
      async () => this.runtimes.filter((runtime) => runtime.context.hot.pausedReason !== undefined).length,
    );
    metrics.sampled(
      'ramp_chain_outflow_refusals',
      'Sends refused since start at an outflow limit (CHAIN_OUTFLOW_LIMITS) of any chain: per send, per hour, per organization per hour.',
      async () => this.runtimes.reduce((sum, runtime) => sum + [...runtime.context.outflows.refusals.values()].reduce((total, count) => total + count, 0), 0),
    );
    metrics.sampled(
      'ramp_chain_sponsorship_refusals',
      "Managed wallets' operations refused since start at their organization's sponsorship budget (CHAIN_SPONSORED_GAS_BUDGETS) on any chain.",
      async () => this.runtimes.reduce((sum, runtime) => sum + runtime.accounts.sponsorshipRefusals, 0),
    );
    // The paymaster's EntryPoint deposit pays every sponsored operation's gas: below a chain's paymasterMinDeposit, the
    // managed wallets' operations are about to stop. Alerted on (deploy/components/monitoring).
    metrics.sampled(
      'ramp_chain_paymaster_deposits_low',
      "Chains whose paymaster's EntryPoint deposit (the sponsored operations' gas) is below the chain's paymasterMinDeposit.",
      // Each chain on its own: one chain's node not answering must not hide another's low deposit.
      async () =>
        (await Promise.all(this.runtimes.map((runtime) => runtime.context.paymasterDepositLow().catch(() => undefined)))).filter((low) => low === true).length,
    );
    let scanned = false;
    health.add('chains', async () => {
      if (scanned) return;
      const waiting: string[] = [];
      for (const runtime of this.runtimes) if ((await runtime.deposits.checkpoint()) === undefined || !(await runtime.pools.seeded())) waiting.push(runtime.id);
      if (waiting.length > 0) throw new Error(`not scanned yet: ${waiting.join(', ')}`);
      scanned = true;
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    this.relay = await startLogRelay({
      nc: this.nc,
      pool: this.pool,
      databaseUrl: this.config.string('databaseUrl'),
      log: CHAIN_LOG,
      events: chainEvents(this.config.string('eventsNamespace')),
      replicas: this.config.int('streamReplicas', 1, 5),
      logger: this.logger,
      metrics: this.metrics,
    });
    for (const loop of this.loops) loop.start();
    this.logger.info({ chains: this.runtimes.map((runtime) => `${runtime.id} (${runtime.context.network.chainId})`) }, 'chains configured');
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.relay?.stop();
  }

  of(environment: Environment): ChainRuntime[] {
    return this.runtimes.filter((runtime) => runtime.environment === environment);
  }

  /** The chain of an environment, or UNSUPPORTED_CHAIN naming the field. */
  get(environment: Environment, chain: unknown, field = 'chain'): ChainRuntime {
    const runtime = this.runtimes.find((candidate) => candidate.environment === environment && candidate.chain === chain);
    if (!runtime) {
      const names = this.of(environment).map((candidate) => candidate.chain);
      throw new AppError(
        'UNSUPPORTED_CHAIN',
        `${field}: ${String(chain)} has no chain configured for ${environment} keys (configured: ${names.join(', ') || 'none'})`,
        field,
      );
    }
    return runtime;
  }
}
