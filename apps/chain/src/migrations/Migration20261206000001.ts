import { Migration } from '@ramp/database';

/**
 * Whether a transaction hash is one of the platform's own sends' (a deposit to the hot wallet brought by its own sweep,
 * swap or bridge send; a delivery into a managed wallet: own-arrival.ts) is asked of every broadcast attempt of every
 * send, `attempts ? <hash>`: without an index, a scan of all the chain's sends at every deposit it records, 19 ms a
 * deposit after a few benchmark runs and growing with every send ever made. A GIN index answers it by the hash.
 * `if not exists`: on a large table an operator may build it first without blocking the sends (`create index
 * concurrently chain_sends_attempts on chain.chain_sends using gin (attempts)`, CHANGELOG), and the migration keeps it.
 */
export class Migration20261206000001 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index if not exists chain_sends_attempts on chain.chain_sends using gin (attempts);`);
  }
}
