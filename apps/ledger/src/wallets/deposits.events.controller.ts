import { Controller, Inject } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { CHAIN_EVENT_TYPES, chainEvents, everyEventOf, type DepositCredited } from '@ramp/contracts';
import type { StoredEvent } from '@ramp/event-store';
import { JetStreamEventPattern, type JetStreamContext } from '@ramp/messaging';
import { WalletService } from './wallet-service';

/**
 * Deposits to managed wallets' addresses, confirmed by the chain service at their chain's depth: each is credited to
 * its wallet once: the ledger has no inbox, and needs none, since the deposit id is the key of its chain_deposits row and
 * of its journal entry, so a redelivery changes nothing.
 */
@Controller()
export class DepositsEventsController {
  constructor(@Inject(WalletService) private readonly wallets: WalletService) {}

  @JetStreamEventPattern(everyEventOf(chainEvents), { durable: 'ledger_chain_deposits', inbox: false })
  async onChainEvent(@Payload() event: StoredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    if (event.type !== CHAIN_EVENT_TYPES.depositCredited) return;
    await this.wallets.creditDeposit(context.tx, event.data as DepositCredited);
  }
}
