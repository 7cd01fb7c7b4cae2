import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Config } from '@ramp/config';
import { lowWaterOf, parseLowWaterMarks, significantDrifts, type Inventory, type LowWaterMarks, type MarkedInventory } from '@ramp/bookkeeping';
import { ChainSendsPause, ENVIRONMENTS, platformTenant } from '@ramp/contracts';
import { RpcClient } from '@ramp/messaging';
import { dec } from '@ramp/money';
import { Metrics } from '@ramp/observability';
import { Gauge } from 'prom-client';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { ChainBooks, type Reconciliation } from './chain-books';

/**
 * Reconciles the books of every chain with the chains on a schedule (CHAIN_RECONCILE_INTERVAL_MS) and exposes the
 * number of tokens that differ as `ramp_ledger_chain_drift_assets` (and each managed wallet's tokens whose smart
 * account holds other than its balance as `ramp_ledger_wallet_drift_assets`). A deposit or a send on its way from the chain
 * service to the books shows for one round: alert on a drift that lasts (docs/chains.md). A chain whose drift is more
 * than noise (significantDrifts: beyond CHAIN_DRIFT_PAUSE_FRACTION of its holdings) for CHAIN_DRIFT_PAUSE_ROUNDS rounds
 * in a row has its outbound sends paused (ChainSendsPause), until a round finds it reconciled: money must not keep
 * leaving a wallet whose books nobody can trust.
 */
@Injectable()
export class Reconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private drifting: number | undefined;
  private uncovered: number | undefined;
  private walletDrifts: number | undefined;
  /** Each environment's inventory at the last reconciliation, and its marked tokens against their low-water marks. */
  private inventory: { environment: string; entries: Inventory[]; marked: MarkedInventory[] }[] | undefined;
  private readonly lowWaterMarks: LowWaterMarks;
  private readonly intervalMs: number;
  private readonly pauseFraction: string;
  private readonly pauseRounds: number;
  /** Rounds in a row each chain (`<environment>:<chain>`) has drifted beyond noise; the chains this replica paused. */
  private readonly driftRounds = new Map<string, number>();
  private readonly paused = new Set<string>();

  constructor(
    @Inject(ChainBooks) private readonly books: ChainBooks,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(Config) config: Config,
    @Inject(Metrics) metrics: Metrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = config.int('chainReconcileIntervalMs', 0);
    this.pauseFraction = config.string('chainDriftPauseFraction');
    this.pauseRounds = config.int('chainDriftPauseRounds', 1);
    // Checked here, at start: a malformed mark or an unknown chain stops the service with the setting's name.
    this.lowWaterMarks = parseLowWaterMarks(config.json('treasuryLowWaterMarks'));
    const inventory = () => this.inventory;
    // The treasury's inventory per chain and token (LIVE.md, "Treasury"), for dashboards (a float: never for arithmetic),
    // and whether it is below its low-water mark (TREASURY_LOW_WATER_MARKS): what RampTreasuryInventoryLow alerts on.
    // Both leave their series out until a reconciliation has run, and when the last one failed.
    new Gauge({
      name: 'ramp_treasury_inventory',
      help: 'What the platform holds of a token on a chain beyond what its customers are owed there (wallet balances, off-ramps in flight), at the last reconciliation, by environment, chain and token (negative: customers are owed more than is held).',
      labelNames: ['environment', 'chain', 'token'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const { environment, entries } of inventory() ?? [])
          for (const entry of entries) this.set({ environment, chain: entry.chain, token: entry.tokenSymbol }, Number(entry.free));
      },
    });
    new Gauge({
      name: 'ramp_treasury_inventory_low',
      help: 'Whether the inventory of a token on a chain is below its low-water mark (TREASURY_LOW_WATER_MARKS) at the last reconciliation: 1 below, 0 not; only tokens with a mark.',
      labelNames: ['environment', 'chain', 'token'],
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const { environment, marked } of inventory() ?? [])
          for (const entry of marked) this.set({ environment, chain: entry.chain, token: entry.tokenSymbol }, entry.below ? 1 : 0);
      },
    });
    metrics.sampled(
      'ramp_ledger_chain_drift_assets',
      'Tokens whose on-chain holdings differ from the books at the last reconciliation (0: every chain reconciles).',
      async () => {
        if (this.drifting === undefined) throw new Error('not reconciled yet');
        return this.drifting;
      },
    );
    metrics.sampled(
      'ramp_ledger_wallet_drift_assets',
      "Managed wallets' tokens whose smart account holds other than the wallet's balance at the last reconciliation (0: every wallet compared reconciles).",
      async () => {
        if (this.walletDrifts === undefined) throw new Error('not reconciled yet');
        return this.walletDrifts;
      },
    );
    new Gauge({
      name: 'ramp_ledger_sponsored_gas',
      help: "Gas the paymaster sponsored for each organization's managed wallets since the start of the books, by environment, chain and organization, in the chain's native coin (the books' sponsored-gas accounts).",
      labelNames: ['environment', 'chain', 'organization'],
      registers: [metrics.registry],
      async collect() {
        this.reset();
        for (const { environment, chain, organizationId, amount } of await books.sponsoredGas())
          this.set({ environment, chain, organization: organizationId }, Number(amount));
      },
    });
    metrics.sampled(
      'ramp_ledger_uncovered_liabilities',
      "Tokens whose customers' wallet balances exceed what the platform holds of them on their chain, at the last reconciliation.",
      async () => {
        if (this.uncovered === undefined) throw new Error('not reconciled yet');
        return this.uncovered;
      },
    );
  }

  onApplicationBootstrap(): void {
    if (this.intervalMs === 0) return;
    const run = () => {
      void this.round().finally(() => {
        this.timer = setTimeout(run, this.intervalMs);
        this.timer.unref();
      });
    };
    this.timer = setTimeout(run, this.intervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.timer);
  }

  private async round(): Promise<void> {
    try {
      let drifting = 0;
      let uncovered = 0;
      let walletDrifts = 0;
      const inventory: NonNullable<typeof this.inventory> = [];
      for (const environment of ENVIRONMENTS) {
        const reconciliation = await this.books.reconcile(environment);
        const { drifts } = reconciliation;
        drifting += drifts.length;
        uncovered += reconciliation.uncovered.length;
        walletDrifts += reconciliation.wallets.drifts.length;
        if (reconciliation.wallets.drifts.length > 0)
          this.logger.warn({ environment, drifts: reconciliation.wallets.drifts }, "managed wallets' accounts hold other than their balances");
        if (drifts.length > 0) this.logger.warn({ environment, drifts }, 'the books of a chain differ from the chain');
        if (reconciliation.uncovered.length > 0)
          this.logger.error({ environment, uncovered: reconciliation.uncovered }, "customers' balances exceed what the platform holds on their chain");
        await this.pauseDrifting(reconciliation);
        const chains = reconciliation.chains.map((held) => held.chain);
        const { marked, unrun } = lowWaterOf(environment, chains, reconciliation.inventory, this.lowWaterMarks);
        const low = marked.filter((entry) => entry.below);
        // A mark of a chain the environment does not run watches nothing: said, rather than silently never alerting.
        if (unrun.length > 0)
          this.logger.warn({ environment, chains: unrun }, 'TREASURY_LOW_WATER_MARKS names a chain this environment does not run: its marks watch nothing');
        if (low.length > 0) this.logger.warn({ environment, low }, "the treasury's inventory of a token is below its low-water mark");
        inventory.push({ environment, entries: reconciliation.inventory, marked });
      }
      this.inventory = inventory;
      this.drifting = drifting;
      this.uncovered = uncovered;
      this.walletDrifts = walletDrifts;
    } catch (error) {
      this.drifting = undefined;
      this.uncovered = undefined;
      this.walletDrifts = undefined;
      this.inventory = undefined;
      this.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'reconciliation with the chains failed');
    }
  }

  /** Pauses each chain drifting beyond noise for pauseRounds rounds in a row, and resumes each that reconciles again. */
  private async pauseDrifting(reconciliation: Reconciliation): Promise<void> {
    const { environment } = reconciliation;
    const significant = significantDrifts(reconciliation.drifts, this.pauseFraction);
    for (const { chain } of reconciliation.chains) {
      const id = `${environment}:${chain}`;
      const drifts = significant.filter((drift) => drift.chain === chain);
      const rounds = drifts.length > 0 ? (this.driftRounds.get(id) ?? 0) + 1 : 0;
      this.driftRounds.set(id, rounds);
      const tenant = platformTenant(environment, 'ledger');
      if (rounds >= this.pauseRounds) {
        const reason = `the books and the chain differ beyond ${dec(this.pauseFraction).mul(100).toFixed()}% for ${rounds} reconciliations: ${drifts.map((drift) => `${drift.tokenSymbol} books ${drift.books}, chain ${drift.onchain}`).join('; ')}`;
        await this.rpc.call(ChainSendsPause.contract, tenant, { environment, chain, paused: true, reason });
        if (!this.paused.has(id)) this.logger.error({ environment, chain, drifts }, "a chain's outbound sends are paused: its books and the chain drift apart");
        this.paused.add(id);
      } else if (rounds === 0 && this.paused.has(id)) {
        await this.rpc.call(ChainSendsPause.contract, tenant, { environment, chain, paused: false });
        this.paused.delete(id);
        this.logger.warn({ environment, chain }, 'a chain reconciles again: its outbound sends resume');
      }
    }
  }
}
