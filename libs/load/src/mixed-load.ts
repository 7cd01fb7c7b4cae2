import { setTimeout as sleep } from 'timers/promises';
import { RampClient, RampError } from '@ramp/sdk';
import { makeNuban } from '@ramp/banking';
import { dec } from '@ramp/money';
import type { TransactionType } from '@ramp/testing';

/** What the mixed load starts, in turn: every flow of the API, and each sandbox failure path among them. */
export type FlowKind = 'onramp' | 'offramp' | 'offramp-noncustodial' | 'swap' | 'cross-chain-swap' | 'transfer';

interface Flow {
  kind: FlowKind;
  amount: string;
  /**
   * The bank's side makes the transaction fail: an off-ramp's payout to the sandbox's rejecting account, an on-ramp's
   * payment of another amount than asked (refunded). See docs/api/sandbox.md.
   */
  fails?: boolean;
}

/**
 * One turn of the mix: 8 that complete, 2 that fail on purpose on the bank's side (a payout rejected, an on-ramp paid
 * the wrong amount and refunded). Ramps, swaps and transfers run on the local chains (pools, and the intent bridge
 * between chains), where no amount is magic: their failures (a trade that moves a pool, the relayer held for an
 * organization) are produced by the tests that need them, not by the load, whose organization's relayer is never held.
 */
export const FLOW_CYCLE: readonly Flow[] = [
  { kind: 'offramp', amount: '10' },
  { kind: 'swap', amount: '10' },
  { kind: 'onramp', amount: '20000' },
  { kind: 'transfer', amount: '10' },
  { kind: 'offramp-noncustodial', amount: '10' },
  { kind: 'cross-chain-swap', amount: '10' },
  { kind: 'offramp', amount: '10', fails: true },
  { kind: 'onramp', amount: '13000', fails: true },
  { kind: 'offramp', amount: '15' },
  { kind: 'onramp', amount: '5000' },
];

const TYPE_OF: Record<FlowKind, TransactionType> = {
  onramp: 'onramp',
  offramp: 'offramp',
  'offramp-noncustodial': 'offramp',
  swap: 'swap',
  'cross-chain-swap': 'swap',
  transfer: 'transfer',
};

/** An EIP-55 address outside the platform: where transfers, cross-chain swaps and non-custodial deposits come from or go. */
export const OUTSIDE_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A transaction the load started and was told about (its initiation answered 201). */
export interface StartedTransaction {
  id: string;
  type: TransactionType;
  kind: FlowKind;
  /** What the sandbox makes of it when the load got every step through: `failed` for the bank-side failures. */
  expect: 'completed' | 'failed';
  /** The path of its per-transaction callbackUrl on the receiver. */
  callbackPath: string;
  /**
   * On-ramps and non-custodial off-ramps: the sandbox was told of the payment or deposit (answered 2xx) and it arrived
   * before the transaction's window closed.
   */
  funded: boolean;
}

export interface MixedLoadOptions {
  /** The SDK, as an integrator uses it: its retries and Idempotency-Keys are part of what is under test. */
  client: RampClient;
  /** A managed wallet on base holding enough USDC for every flow. */
  walletId: string;
  /** The URL of a receiver path, for per-transaction callbacks (`/callbacks/<n>`). */
  callbackUrl: (path: string) => string;
  /** Flows in flight at once. */
  concurrency: number;
  /** How long a side-effect-free call (a quote) or a sandbox step is retried through an outage. */
  persistMs?: number;
}

/**
 * A mixed load of on-ramps, off-ramps (custodial and not), swaps (on one chain and across chains) and transfers,
 * each with a per-transaction callback, started back to back by `concurrency` workers until {@link stop}. It keeps
 * going through faults the way an integrator's backend would: quotes and sandbox steps are retried until they pass,
 * an initiation is sent once through the SDK (whose retries reuse its Idempotency-Key), and one whose answer never
 * came is counted as unknown: it may exist, which is why checks read the services' own logs, not this list.
 */
export class MixedLoad {
  readonly started: StartedTransaction[] = [];
  /** Initiations that got no definite answer (a 5xx, or none at all): the transaction may or may not exist. */
  unknownOutcomes = 0;
  /** Every error a call ended with (after the SDK's retries), by phase, step and code: what the faults looked like. */
  readonly errors = new Map<string, number>();
  /** What is going on (a fault being injected, say), set by whoever drives the load: errors are counted under it. */
  phase = 'steady';
  /** Calls that got a 4xx other than a rate limit: a valid request refused, which no fault should cause. */
  readonly refusals: string[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private next = 0;
  private readonly account = makeNuban('058', '012345678');
  private readonly rejectedAccount = makeNuban('058', '888888888');

  constructor(private readonly options: MixedLoadOptions) {}

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: this.options.concurrency }, () => this.work());
  }

  /** Stops starting flows and waits for the ones under way. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** Flows started so far, including those whose initiation failed. */
  get attempted(): number {
    return this.next;
  }

  private async work(): Promise<void> {
    while (this.running) {
      const n = this.next++;
      await this.run(n, FLOW_CYCLE[n % FLOW_CYCLE.length]!);
    }
  }

  private async run(n: number, flow: Flow): Promise<void> {
    const { client, walletId } = this.options;
    const callbackPath = `/callbacks/${n}`;
    const common = { reference: `chaos-${n}`, callbackUrl: this.options.callbackUrl(callbackPath) };
    let quoteId: string;
    try {
      quoteId = (await this.persist('quote', () => this.quote(flow))).quoteId;
    } catch {
      return;
    }
    let id: string;
    try {
      switch (flow.kind) {
        case 'onramp':
          id = (await client.onramp.initiate({ quoteId, walletId, ...common })).id;
          break;
        case 'offramp':
          id = (await client.offramp.initiate({ quoteId, walletId, ...common })).transactionId;
          break;
        case 'offramp-noncustodial':
          id = (await client.offramp.initiate({ quoteId, sourceAddress: OUTSIDE_ADDRESS, ...common })).transactionId;
          break;
        case 'swap':
          id = (await client.swap.initiate({ quoteId, walletId, ...common })).id;
          break;
        case 'cross-chain-swap':
          id = (await client.swap.initiate({ quoteId, walletId, destinationAddress: OUTSIDE_ADDRESS, ...common })).id;
          break;
        case 'transfer':
          id = (await client.transfer.initiate({ quoteId, walletId, ...common })).id;
          break;
      }
    } catch (error) {
      this.record('initiate', error);
      if (outcomeUnknown(error)) this.unknownOutcomes += 1;
      return;
    }
    const entry: StartedTransaction = {
      id,
      type: TYPE_OF[flow.kind],
      kind: flow.kind,
      expect: flow.fails ? 'failed' : 'completed',
      callbackPath,
      funded: false,
    };
    this.started.push(entry);
    // The sandbox plays the payment or the deposit; both are idempotent, so a step whose answer was lost is sent again.
    if (flow.kind === 'onramp' || flow.kind === 'offramp-noncustodial') {
      try {
        // A failing on-ramp is paid a Naira short: the payment is refunded and the on-ramp fails.
        const payment = flow.fails ? { amount: dec(flow.amount).sub(1).toFixed() } : {};
        const answer =
          flow.kind === 'onramp'
            ? await this.persist('pay', () => client.sandbox.payOnramp(id, payment))
            : await this.persist('deposit', () => client.sandbox.depositOfframp(id));
        // An answer that finds the window already closed (the deposit on chain credited after it, under faults): the
        // money is given back and the transaction fails, as it must; it funded nothing.
        entry.funded = answer.failureReason !== 'DEPOSIT_EXPIRED' && answer.failureReason !== 'PAYMENT_EXPIRED';
      } catch {
        // Counted in errors; the deposit window will fail the transaction, which the checks accept for unfunded ones.
      }
    }
  }

  private quote(flow: Flow): Promise<{ quoteId: string }> {
    const { client } = this.options;
    switch (flow.kind) {
      case 'onramp':
        return client.onramp.quote({ amount: flow.amount, tokenSymbol: 'USDC', chain: 'base' });
      case 'offramp':
      case 'offramp-noncustodial':
        return client.offramp.quote({
          amount: flow.amount,
          tokenSymbol: 'USDC',
          bankCode: '058',
          accountNumber: flow.fails ? this.rejectedAccount : this.account,
          chain: 'base',
        });
      case 'swap':
        return client.swap.quote({ fromToken: 'USDC', toToken: 'ETH', amount: flow.amount, fromChain: 'base', toChain: 'base' });
      case 'cross-chain-swap':
        return client.swap.quote({ fromToken: 'USDC', toToken: 'BNB', amount: flow.amount, fromChain: 'base', toChain: 'bsc' });
      case 'transfer':
        return client.transfer.quote({ fromChain: 'base', toChain: 'arbitrum', token: 'USDC', amount: flow.amount, destinationAddress: OUTSIDE_ADDRESS });
    }
  }

  /** Retries a call that is safe to repeat (each time with a new Idempotency-Key) through 5xx and lost answers. */
  private async persist<T>(step: string, call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.options.persistMs ?? 60_000);
    for (;;) {
      try {
        return await call();
      } catch (error) {
        this.record(step, error);
        const transient = outcomeUnknown(error) || (error instanceof RampError && error.status === 429);
        if (!transient || Date.now() > deadline) throw error;
        await sleep(250);
      }
    }
  }

  private record(step: string, error: unknown): void {
    const code = error instanceof RampError ? `${error.status ?? 'no answer'} ${error.code}` : String(error);
    const key = `${this.phase} | ${step}: ${code}`;
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    if (
      error instanceof RampError &&
      error.status !== undefined &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 429 &&
      !outcomeUnknown(error)
    ) {
      this.refusals.push(`${step}: ${error.status} ${error.code} ${error.message}`);
    }
  }
}

/**
 * An answer that does not say whether the request ran: none at all, a 5xx, or CONFLICT "still being processed" (an
 * SDK retry meeting the claim its first attempt left when the gateway died under it; see docs/api/idempotency.md).
 */
function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof RampError)) return true;
  return error.status === undefined || error.status >= 500 || (error.status === 409 && /still being processed/.test(error.message));
}
