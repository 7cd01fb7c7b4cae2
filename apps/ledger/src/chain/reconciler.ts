import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Config } from '@ramp/config';
import { ENVIRONMENTS } from '@ramp/contracts';
import { Metrics } from '@ramp/observability';
import { LOGGER, type Logger } from '@ramp/service-kit';
import { ChainBooks } from './chain-books';

/**
 * Reconciles the books of every chain with the chains on a schedule (CHAIN_RECONCILE_INTERVAL_MS) and exposes the
 * number of tokens that differ as `ramp_ledger_chain_drift_assets`. A deposit or a send on its way from the chain
 * service to the books shows for one round: alert on a drift that lasts (docs/chains.md).
 */
@Injectable()
export class Reconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private drifting: number | undefined;
  private readonly intervalMs: number;

  constructor(
    @Inject(ChainBooks) private readonly books: ChainBooks,
    @Inject(Config) config: Config,
    @Inject(Metrics) metrics: Metrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.intervalMs = config.int('chainReconcileIntervalMs', 0);
    metrics.sampled('ramp_ledger_chain_drift_assets', 'Tokens whose on-chain holdings differ from the books at the last reconciliation (0: every chain reconciles).', async () => {
      if (this.drifting === undefined) throw new Error('not reconciled yet');
      return this.drifting;
    });
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
      for (const environment of ENVIRONMENTS) {
        const { drifts } = await this.books.reconcile(environment);
        drifting += drifts.length;
        if (drifts.length > 0) this.logger.warn({ environment, drifts }, 'the books of a chain differ from the chain');
      }
      this.drifting = drifting;
    } catch (error) {
      this.drifting = undefined;
      this.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'reconciliation with the chains failed');
    }
  }
}
