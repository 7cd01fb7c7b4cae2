import { createHash } from 'node:crypto';
import { Client, type QueryResult } from 'pg';

/**
 * The most distinct statements a process prepares. The platform's SQL is a few hundred fixed texts; a text built with
 * a varying shape (a list of placeholders) past this count runs unprepared rather than filling every connection with
 * plans used once.
 */
const MAX_PREPARED = 1_000;

/** PostgreSQL's "cached plan must not change result type": a `select *` prepared before a migration changed its table. */
const PLAN_CHANGED_RESULT = '0A000';

type Callback = (error: Error | null, result?: QueryResult) => void;

/**
 * Names parameterized statements, so that each connection parses and plans a statement once and then only binds and
 * executes it (the `pg` Client keeps which names its connection has parsed). The name is a digest of the text: the
 * same text is the same statement on every connection, and no two texts share a name.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly refused = new Set<string>();

  constructor(private readonly max = MAX_PREPARED) {}

  /** The name `text` is prepared under, or undefined: it runs unprepared (too many texts, or refused before). */
  of(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.max || this.refused.has(text)) return known;
    const name = `s_${createHash('sha1').update(text).digest('base64url')}`;
    this.names.set(text, name);
    return name;
  }

  /** `text` is never prepared again in this process (its prepared plan was refused). */
  refuse(text: string): void {
    this.names.delete(text);
    this.refused.add(text);
  }

  get size(): number {
    return this.names.size;
  }
}

/**
 * A `pg` Client whose queries with parameters are prepared statements (StatementNames): PostgreSQL plans each of the
 * platform's statements once per connection instead of at every call. Queries without parameters (transaction
 * control, DDL, several statements in one text) and query objects run as before.
 *
 * A statement prepared before a migration changed the row type it returns (`select *` of a table that gained a column)
 * is refused by PostgreSQL with 0A000: its text is then run unprepared from then on, and the query that met the refusal
 * is run again at once when it was alone (not inside a transaction block, which the refusal aborted: the caller's
 * transaction fails once, as on any error, and its retry runs unprepared).
 */
export function preparingClient(names: StatementNames): typeof Client {
  return class PreparingClient extends Client {
    // pg's overloads (promise, callback, query objects, submittables) are many; only (text, values[, callback]) changes.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const [text, values, callback] = args as [unknown, unknown, unknown];
      if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return (super.query as (...a: unknown[]) => unknown)(...args);
      const name = names.of(text);
      if (name === undefined) return (super.query as (...a: unknown[]) => unknown)(...args);
      const unprepared = (done: Callback) => (super.query as (...a: unknown[]) => unknown)(text, values, done);
      const run = (done: Callback) =>
        (super.query as (...a: unknown[]) => unknown)({ name, text, values }, (error: (Error & { code?: string }) | null, result?: QueryResult) => {
          if (error?.code !== PLAN_CHANGED_RESULT || !/cached plan/.test(error.message)) return done(error, result);
          names.refuse(text);
          if (this.getTransactionStatus() === 'I') return unprepared(done);
          done(error, result);
        });
      if (typeof callback === 'function') {
        run(callback as Callback);
        return undefined;
      }
      return new Promise<QueryResult>((resolve, reject) => run((error, result) => (error ? reject(error) : resolve(result!))));
    }
  };
}
