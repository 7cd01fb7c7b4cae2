import type { PoolClient } from 'pg';
import type { Log } from 'viem';
import { CHAIN_EVENT_TYPES, type SendFinished } from '@ramp/contracts';
import type { EventMetadata } from '@ramp/event-store';
import type { SendRecord } from '@ramp/evm';
import { dec, fromBaseUnits } from '@ramp/money';
import type { ChainContext } from '../context/chain-context';
import type { IntentRelayer } from '../bridge/intent-relayer';
import type { Swaps } from '../swaps/swaps';
import type { Transfers } from '../transfers/transfers';

/** The jobs that say what a hot-wallet send moved when it is final. */
export interface SendFinishedSources {
  transfers: Pick<Transfers, 'ofSend'>;
  swaps: Pick<Swaps, 'finished'>;
  relayer?: Pick<IntentRelayer, 'finished'>;
}

/**
 * The books' side of a hot-wallet send: in the transaction that makes it final, the `send.finished` event with its gas
 * and what it moved (a transfer, a swap's output, a bridge's movement), which the ledger books.
 */
export class SendFinishedEvents {
  constructor(
    private readonly context: ChainContext,
    private readonly sources: SendFinishedSources,
  ) {}

  async append(tx: PoolClient, send: SendRecord, logs: readonly Log[]): Promise<void> {
    const { context, sources } = this;
    const transfer = await sources.transfers.ofSend(tx, send.idempotencyKey);
    const swap = send.status === 'confirmed' ? await sources.swaps.finished(tx, send, logs) : undefined;
    const bridge = await sources.relayer?.finished(tx, context, send, logs);
    const event: SendFinished = {
      sendId: `${context.id}:${send.id}`,
      environment: context.environment,
      chain: context.chain,
      idempotencyKey: send.idempotencyKey,
      status: send.status as SendFinished['status'],
      ...(send.txHash && { transactionHash: send.txHash }),
      gasCost: fromBaseUnits(send.gasCost ?? 0n, context.native.decimals),
      nativeSymbol: context.native.symbol,
      ...(transfer &&
        send.status === 'confirmed' && {
          transfer: {
            tokenSymbol: transfer.token_symbol,
            amount: dec(transfer.amount).toFixed(),
            to: transfer.to_address,
            account: transfer.account,
            ...(transfer.to_wallet && { internal: true as const }),
            ...(transfer.shares && { shares: transfer.shares.map((share) => ({ ...share, amount: dec(share.amount).toFixed() })) }),
          },
        }),
      ...(swap && { swap }),
      ...(bridge && { bridge }),
      ...(send.error && { error: send.error }),
    };
    const metadata: EventMetadata = { correlationId: send.idempotencyKey, causationId: event.sendId, actor: 'system:chain', tenant: context.systemTenant };
    await context.log.append(tx, `send-${context.id}-${send.id}`, 0, [{ type: CHAIN_EVENT_TYPES.sendFinished, data: event }], metadata);
  }
}
