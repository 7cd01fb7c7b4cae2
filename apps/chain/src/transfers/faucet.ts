import { encodeFunctionData, type Address } from 'viem';
import { NATIVE_TOKEN, TestToken, unitsWorth, type SendQueue, type SendRecord, type SendRequest } from '@ramp/evm';
import type { ChainContext, SendKind } from '../context/chain-context';
import type { ChainToken } from '../context/platform-contracts';

/**
 * What the hot wallet of a local chain holds at least of each token, in US dollars at the sandbox prices, as the
 * relayer's inventory: what it fills bridge deposits with on the destination (minted by the faucet at each start when
 * below half of it, and booked as the treasury's deposits).
 */
const LOCAL_RELAYER_INVENTORY_USD = '1000000';

/** What the faucet sends for `units` of `token` to `to`: a mint of a test token, or a transfer of the native coin. */
export function faucetCall(token: ChainToken, to: Address, units: bigint): SendRequest {
  return token.address === NATIVE_TOKEN
    ? { to, value: units }
    : { to: token.address, data: encodeFunctionData({ abi: TestToken.abi, functionName: 'mint', args: [to, units] }) };
}

/** A local test chain's faucet: test tokens and coins to any address (the sandbox), and the relayer's inventory. */
export class Faucet {
  constructor(
    private readonly context: ChainContext,
    private readonly queue: SendQueue,
  ) {}

  /** Queues a faucet transfer, once per key: a mint of a test token, or the native coin. */
  request(key: string, to: Address, token: ChainToken, units: bigint): Promise<SendRecord> {
    return this.enqueue('faucet', key, to, token, units);
  }

  /** The faucet transfer queued under a key. */
  find(key: string): Promise<SendRecord | undefined> {
    return this.queue.find(`faucet:${key}`);
  }

  /** One pass of the faucet's send queue. */
  tick(): Promise<void> {
    return this.queue.tick();
  }

  /**
   * A local chain's relayer inventory (LOCAL_RELAYER_INVENTORY_USD of each token in the hot wallet): minted by the faucet
   * for each token below half of it, back up to it. The key holds the balance it was read at, so a start repeated
   * before the mint is mined queues nothing twice.
   */
  async stockInventory(): Promise<void> {
    const { context } = this;
    for (const token of context.tokens) {
      if (token.address === NATIVE_TOKEN) continue;
      const target = unitsWorth(LOCAL_RELAYER_INVENTORY_USD, token.symbol, token.decimals);
      const held = await context.balanceAt(token, context.hot.sender, await context.client.getBlockNumber({ cacheTime: 0 }));
      if (held * 2n >= target) continue;
      await this.enqueue('inventory', `inventory:${token.symbol}:${held}`, context.hot.sender, token, target - held);
    }
  }

  private enqueue(kind: Extract<SendKind, 'faucet' | 'inventory'>, key: string, to: Address, token: ChainToken, units: bigint): Promise<SendRecord> {
    return this.queue.enqueue(this.context.pool, `faucet:${key}`, faucetCall(token, to, units), kind);
  }
}
