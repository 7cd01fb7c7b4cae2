import type { PruneJob } from '@ramp/service-kit';

/** Quotes, QUOTE_RETENTION_DAYS after they expire, used or not: a transaction keeps its own copy of its quote. */
export const QUOTE_PRUNING: PruneJob = {
  table: 'quote.quotes',
  retentionMs: (config) => config.int('quoteRetentionDays', 1) * 24 * 60 * 60 * 1000,
  statement: `delete from quote.quotes where id = any(array(
    select id from quote.quotes where expires_at < $1 order by expires_at limit $2))`,
};
