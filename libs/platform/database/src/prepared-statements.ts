import { createHash } from 'node:crypto';
import { Client, type QueryResult } from 'pg';

/**
 * The most distinct statements a process prepares. The platform's SQL is a few hundred fixed texts; a text built with
 * a varying shape (a list of placeholders) past this count runs unprepared rather than filling every connection with
 * plans used once.
 */
const MAX_PREPARED = 1_000;

/**
 * What PostgreSQL answers to a prepared statement whose table a migration changed: "cached plan must not change result
 * type" (0A000: a `select *` whose table gained a column), and a parameter of the type inferred at its first parse no
 * longer fitting its column (42804 datatype_mismatch, 42883 undefined_function). Unprepared, the types are inferred
 * again.
 */
const PLAN_REFUSED = new Set(['0A000', '42804', '42883']);

/** "prepared statement does not exist": the connection lost it (see forget). */
const STATEMENT_MISSING = '26000';

/** The `pg` Connection's record of the statements it parsed (not in pg's types). */
interface ParsedStatements {
  connection: { parsedStatements: Record<string, string>; submittedNamedStatements?: Record<string, string> };
}

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
 * A statement prepared before a migration changed its table (PLAN_REFUSED: the row type of a `select *`, a column's
 * type) is refused by PostgreSQL: its text is then run unprepared from then on, and the query that met the refusal is
 * run again at once when it was alone (not inside a transaction block, which the refusal aborted: the caller's
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
      // A value pg could not send (a client-side error, no code) makes pg close the statement on the server while its
      // connection still counts it parsed; and a statement the server no longer has is missing: either way this
      // connection parses it again at its next use.
      const forget = () => {
        const { connection } = this as unknown as ParsedStatements;
        delete connection.parsedStatements[name];
        if (connection.submittedNamedStatements) delete connection.submittedNamedStatements[name];
      };
      const run = (done: Callback) =>
        (super.query as (...a: unknown[]) => unknown)({ name, text, values }, (error: (Error & { code?: string }) | null, result?: QueryResult) => {
          if (!error) return done(error, result);
          const alone = this.getTransactionStatus() === 'I';
          if (error.code === undefined || error.code === STATEMENT_MISSING) forget();
          if (error.code === STATEMENT_MISSING && alone) return unprepared(done);
          if (error.code === undefined || !PLAN_REFUSED.has(error.code)) return done(error, result);
          names.refuse(text);
          if (alone) return unprepared(done);
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
