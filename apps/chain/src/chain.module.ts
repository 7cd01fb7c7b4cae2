import { Module } from '@nestjs/common';
import { sendQueueChannel } from '@ramp/evm';
import { CoreModule, DatabaseModule, recordedWaitsProvider, type DatabaseSpec } from '@ramp/service-kit';
import { Migration20261124000001 } from './migrations/Migration20261124000001';
import { Migration20261124000002 } from './migrations/Migration20261124000002';
import { Migration20261125000003 } from './migrations/Migration20261125000003';
import { Migration20261126000004 } from './migrations/Migration20261126000004';
import { Migration20261128000001 } from './migrations/Migration20261128000001';
import { Migration20261129000001 } from './migrations/Migration20261129000001';
import { Migration20261129000002 } from './migrations/Migration20261129000002';
import { Migration20261129000003 } from './migrations/Migration20261129000003';
import { Migration20261129000004 } from './migrations/Migration20261129000004';
import { Migration20261129000005 } from './migrations/Migration20261129000005';
import { Migration20261129000006 } from './migrations/Migration20261129000006';
import { Migration20261130000001 } from './migrations/Migration20261130000001';
import { Migration20261201000001 } from './migrations/Migration20261201000001';
import { Migration20261201000002 } from './migrations/Migration20261201000002';
import { Migration20261202000001 } from './migrations/Migration20261202000001';
import { Migration20261202000002 } from './migrations/Migration20261202000002';
import { Migration20261202000003 } from './migrations/Migration20261202000003';
import { Migration20261202000004 } from './migrations/Migration20261202000004';
import { Migration20261206000001 } from './migrations/Migration20261206000001';
import { Migration20261207000001 } from './migrations/Migration20261207000001';
import { Migration20261207000002 } from './migrations/Migration20261207000002';
import { Migration20261208000001 } from './migrations/Migration20261208000001';
import { Migration20261209000001 } from './migrations/Migration20261209000001';
import { Migration20261210000001 } from './migrations/Migration20261210000001';
import { Migration20261211000001 } from './migrations/Migration20261211000001';
import { Migration20261212000001 } from './migrations/Migration20261212000001';
import { ChainNatsController } from './networks/chain.nats.controller';
import { Networks } from './networks/networks';

/**
 * The chain service owns the `chain` schema: its event log, the send queues of the hot wallets and faucets, and the
 * deposit watchers. It is the only service with signing keys and JSON-RPC access (docs/chains.md).
 */
export const CHAIN_DATABASE: DatabaseSpec = {
  schema: 'chain',
  entities: [],
  migrations: [
    Migration20261124000001,
    Migration20261124000002,
    Migration20261125000003,
    Migration20261126000004,
    Migration20261128000001,
    Migration20261129000001,
    Migration20261129000002,
    Migration20261129000003,
    Migration20261129000004,
    Migration20261129000005,
    Migration20261129000006,
    Migration20261130000001,
    Migration20261201000001,
    Migration20261201000002,
    Migration20261202000001,
    Migration20261202000002,
    Migration20261202000003,
    Migration20261202000004,
    Migration20261206000001,
    Migration20261207000001,
    Migration20261207000002,
    Migration20261208000001,
    Migration20261209000001,
    Migration20261210000001,
    Migration20261211000001,
    Migration20261212000001,
  ],
};

@Module({
  imports: [CoreModule.forService('chain'), DatabaseModule.forService(CHAIN_DATABASE)],
  controllers: [ChainNatsController],
  // The faucet's answer waits for its send to be signed: the send queues NOTIFY at each signing.
  providers: [Networks, recordedWaitsProvider(sendQueueChannel(CHAIN_DATABASE.schema))],
})
export class ChainModule {}
