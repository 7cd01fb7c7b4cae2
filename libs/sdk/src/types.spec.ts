import { readFileSync } from 'fs';
import { dirname, resolve } from 'path';
import ts from 'typescript';
import { RampClient } from './client';
import type { Page, Transaction } from './types';
import type { WebhookEvent } from './webhooks';

/**
 * The methods' types come from the OpenAPI document. These calls are never made: the test below compiles this file,
 * and each `@ts-expect-error` is an error (TS2578) if the misuse below it ever compiles.
 */
async function misuses(ramp: RampClient): Promise<void> {
  // @ts-expect-error amounts are decimal strings, never numbers
  await ramp.offramp.quote({ amount: 100, tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' });
  // @ts-expect-error managed wallets are on base or bsc only
  await ramp.wallets.create({ chain: 'solana' });
  // @ts-expect-error quoteId is required
  await ramp.offramp.initiate({ walletId: 'wal_1' });
  // @ts-expect-error an unknown filter
  await ramp.transactions.list({ kind: 'offramp' });
  // @ts-expect-error a status that does not exist
  await ramp.transactions.list({ status: 'done' });
  const quote = await ramp.offramp.quote({ amount: '100', tokenSymbol: 'USDC', bankCode: '058', accountNumber: '0123456785', chain: 'base' });
  const payout: string = quote.payoutAmount;
  // @ts-expect-error the answer's fields are typed too
  const missing: string = quote.nonExistent;
  const page: Page<Transaction> = await ramp.transactions.list({ type: 'offramp', status: 'completed', page: 2, limit: 50 });
  const status: 'pending' | 'completed' | 'failed' = page.data[0]!.status;
  void [payout, missing, status];
}

/** A delivery's body is typed as well: `metadata.eventId` is the string to deduplicate by. */
function webhookFields(event: WebhookEvent): void {
  const eventId: string = event.data.metadata.eventId;
  // @ts-expect-error the event id is a string (and neither `unknown` nor `any`)
  const numeric: number = event.data.metadata.eventId;
  void [eventId, numeric];
}

describe('SDK types - request bodies, queries and answers come from the OpenAPI document, webhook bodies are typed', () => {
  it('refuse every misuse above at compile time and accept the correct calls', () => {
    const configFile = resolve(__dirname, '../../../tsconfig.json');
    const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, dirname(configFile));
    const program = ts.createProgram([__filename], { ...options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file?.fileName === program.getSourceFile(__filename)?.fileName)
      .map((diagnostic) => `${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
    expect(problems).toEqual([]);
    // The misuses are all still there to be refused.
    expect(readFileSync(__filename, 'utf8').match(/^\s*\/\/ @ts-expect-error /gm)).toHaveLength(7);
    expect([typeof misuses, typeof webhookFields]).toEqual(['function', 'function']);
  });
});
