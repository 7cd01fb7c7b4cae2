import { custom, http, HttpRequestError, type EIP1193RequestFn, type Transport } from 'viem';
import { isNodeFailure } from './rpc-errors';

/** How far behind the most advanced of a chain's nodes one may be and still be used (docs/chains.md, "RPC nodes"). */
export const RPC_MAX_LAG_BLOCKS = 10;

/** How often each node of a chain is looked at (its chain id and its newest block). */
export const RPC_CHECK_INTERVAL_MS = 10_000;

/** What a node was found to be at its last look. */
export const RPC_NODE_STATES = ['unchecked', 'healthy', 'down', 'wrong-chain', 'behind'] as const;
export type RpcNodeState = (typeof RPC_NODE_STATES)[number];

export interface RpcNodeStatus {
  /** Its place in the chain's list (0 first): its URL may hold a provider's key, so it is never logged or exported. */
  index: number;
  state: RpcNodeState;
  /** Its newest block at its last look, when it answered. */
  head?: bigint;
  /** Why it is not used, for a log. */
  reason?: string;
}

export interface RpcNodesOptions {
  /** The chain id every node must answer with. */
  chainId: number;
  timeoutMs?: number;
  /** JSON-RPC batches of up to this many requests, per node (viem's http batching). */
  batchSize?: number;
  maxLagBlocks?: number;
  /** How often the nodes are looked at again (RPC_CHECK_INTERVAL_MS). */
  checkIntervalMs?: number;
  /** Told when a node's state changes (for the chain's log and metrics). */
  onChange?: (status: RpcNodeStatus, previous: RpcNodeState) => void;
}

/**
 * A chain's JSON-RPC nodes in order of preference, with failover: a request goes to the first node found healthy at
 * the last look (`check`): answering, on the chain's id, and at most `maxLagBlocks` behind the most advanced of them. A
 * node that fails a request the way a node does (unreachable, a timeout, an HTTP error, a rate limit or an internal
 * error) is set aside until the next look, and the request goes to the next one; a JSON-RPC answer (a revert, a bad
 * parameter) is the chain's and is returned as it is. A node behind is never used while a node ahead is healthy, so
 * that a lagging node cannot make the chain seem to go back (which the deposit watcher would take for a
 * reorganisation); with none healthy, requests fail, and the chain's pass with them, rather than read a wrong chain.
 */
export class RpcNodes {
  private readonly nodes: { index: number; request: EIP1193RequestFn; status: RpcNodeStatus; failedAt: number }[];
  private readonly maxLag: bigint;
  /** The newest block any node has shown: a node that falls behind it stays out, even once the nodes ahead are gone. */
  private highest: bigint | undefined;
  private looked: Promise<unknown> | undefined;
  private looking: Promise<RpcNodeStatus[]> | undefined;
  private lastLook = 0;

  constructor(
    urls: readonly string[],
    private readonly options: RpcNodesOptions,
  ) {
    if (urls.length === 0) throw new Error('a chain needs at least one RPC URL');
    this.maxLag = BigInt(options.maxLagBlocks ?? RPC_MAX_LAG_BLOCKS);
    this.nodes = urls.map((url, index) => ({
      index,
      request: http(url, {
        timeout: options.timeoutMs ?? 10_000,
        retryCount: 0,
        ...(options.batchSize !== undefined && { batch: { batchSize: options.batchSize } }),
      })({ retryCount: 0 }).request,
      status: { index, state: 'unchecked' as RpcNodeState },
      failedAt: 0,
    }));
  }

  /** Each node's state at its last look. */
  statuses(): RpcNodeStatus[] {
    return this.nodes.map((node) => ({ ...node.status }));
  }

  /**
   * Looks at every node at once: its chain id and newest block; then which are healthy. A node is behind when it is more
   * than `maxLagBlocks` below the newest block any node has shown since the start (a high-water mark: the node ahead
   * gone, the one behind does not become the chain).
   */
  check(): Promise<RpcNodeStatus[]> {
    // One look at a time: a request that finds the last one old starts the next, and others join it.
    this.looking ??= this.look().finally(() => {
      this.looking = undefined;
      this.lastLook = Date.now();
    });
    // The first look is what a request waits for before any node is used.
    this.looked ??= this.looking.catch(() => undefined);
    return this.looking;
  }

  private async look(): Promise<RpcNodeStatus[]> {
    const started = Date.now();
    const looks = await Promise.all(
      this.nodes.map(async (node) => {
        try {
          const [chainId, head] = await Promise.all([
            node.request({ method: 'eth_chainId' }) as Promise<string>,
            node.request({ method: 'eth_blockNumber' }) as Promise<string>,
          ]);
          if (Number(BigInt(chainId)) !== this.options.chainId)
            return { state: 'wrong-chain' as const, reason: `answers chain id ${Number(BigInt(chainId))}, not ${this.options.chainId}` };
          return { state: 'healthy' as const, head: BigInt(head) };
        } catch (error) {
          return { state: 'down' as const, reason: firstLine(error) };
        }
      }),
    );
    const best = looks.reduce<bigint | undefined>(
      (most, look) => (look.head !== undefined && (most === undefined || look.head > most) ? look.head : most),
      this.highest,
    );
    this.highest = best;
    looks.forEach((look, index) => {
      const node = this.nodes[index]!;
      // A node that failed a request after this look began stays set aside until the next look.
      if (look.state === 'healthy' && node.failedAt >= started) return;
      // A chain with one node has nothing to fail over to: its node is the chain, as it always was (the deposit watcher
      // copes with a head that goes back); lag only chooses between nodes.
      const behind = this.nodes.length > 1 && look.head !== undefined && best !== undefined && best - look.head > this.maxLag;
      this.set(
        node,
        behind
          ? { index, state: 'behind', head: look.head, reason: `${best! - look.head!} blocks behind the newest block a node has shown` }
          : { index, ...look },
      );
    });
    return this.statuses();
  }

  /** The viem transport over the nodes. */
  transport(): Transport {
    return custom({ request: (args: { method: string; params?: unknown }) => this.request(args) }, { retryCount: 0 });
  }

  private async request(args: { method: string; params?: unknown }): Promise<unknown> {
    // Never a node not looked at: it might be another chain.
    await (this.looked ??= this.check());
    // The nodes are looked at again every `checkIntervalMs`, by the requests themselves (no timer), in the background.
    const interval = this.options.checkIntervalMs ?? RPC_CHECK_INTERVAL_MS;
    if (Date.now() - this.lastLook >= interval) this.check().catch(() => undefined);
    // A node answers eth_getLogs up to a block it does not have yet with what it has, and no error: the logs of a range
    // are asked only of a node known to have its last block (its head at a look, or at its last eth_blockNumber).
    // With one node there is no other to ask: it is the chain, as before.
    const through = this.nodes.length > 1 ? logsThrough(args) : undefined;
    const usable = () =>
      this.nodes.filter(
        (node) => node.status.state === 'healthy' && (through === undefined || (node.status.head !== undefined && node.status.head >= through)),
      );
    let candidates = usable();
    // None left (each failed a request since): one fresh look before giving up, at most once a second.
    if (candidates.length === 0 && Date.now() - this.lastLook >= 1000) {
      await this.check();
      candidates = usable();
    }
    if (candidates.length === 0)
      throw new HttpRequestError({
        url: 'rpc-failover',
        details: `no healthy RPC node${through === undefined ? '' : ` known to have block ${through}`} (${this.describe()})`,
      });
    let failure: unknown;
    for (const node of candidates) {
      try {
        const answer = await node.request(args as Parameters<EIP1193RequestFn>[0]);
        const seen = blockSeen(args.method, answer);
        if (seen !== undefined && (node.status.head === undefined || seen > node.status.head)) node.status = { ...node.status, head: seen };
        return answer;
      } catch (error) {
        // With one node there is none to fail over to: its failure is the request's, and it stays in use.
        if (!isNodeFailure(error) || this.nodes.length === 1) throw error;
        failure = error;
        node.failedAt = Date.now();
        this.set(node, { index: node.index, state: 'down', reason: firstLine(error) });
      }
    }
    throw failure;
  }

  private set(node: (typeof this.nodes)[number], status: RpcNodeStatus): void {
    const previous = node.status.state;
    node.status = status;
    if (previous !== status.state) this.options.onChange?.(status, previous);
  }

  /** Each node's state, for an error or a log (by index: never its URL). */
  describe(): string {
    return this.nodes.map((node) => `node ${node.index}: ${node.status.state}${node.status.reason ? ` (${node.status.reason})` : ''}`).join('; ');
  }
}

/** A block a node's answer shows it has: its eth_blockNumber, or a block it returned. */
function blockSeen(method: string, answer: unknown): bigint | undefined {
  if (method === 'eth_blockNumber' && typeof answer === 'string') return BigInt(answer);
  if ((method === 'eth_getBlockByNumber' || method === 'eth_getBlockByHash') && answer !== null && typeof answer === 'object') {
    const number = (answer as { number?: unknown }).number;
    return typeof number === 'string' ? BigInt(number) : undefined;
  }
  return undefined;
}

/** The last block of an eth_getLogs by block numbers, or undefined (another method, a tag, a block hash). */
function logsThrough(args: { method: string; params?: unknown }): bigint | undefined {
  if (args.method !== 'eth_getLogs' || !Array.isArray(args.params)) return undefined;
  const toBlock = (args.params[0] as { toBlock?: unknown } | undefined)?.toBlock;
  return typeof toBlock === 'string' && /^0x[0-9a-f]+$/i.test(toBlock) ? BigInt(toBlock) : undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error)).split('\n')[0]!;
}
