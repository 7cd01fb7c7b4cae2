/**
 * A mistake in an operator command's arguments, or a request it refuses (a partner not configured, a reference unknown):
 * its message is printed without a trace, and the command exits with 2.
 */
export class UsageError extends Error {}

/** An operator command (`npm run chain:ops`, `chain:deploy`, `ops`): what it reads from its arguments and what it does. */
export interface OperatorCommand<R> {
  /** As the operator types it: `chain:ops`; it names the command's failures. */
  name: string;
  usage: string;
  /** The request of the arguments, or `help`; a UsageError names what is wrong with them. */
  parse(argv: string[]): R | 'help';
  /** Does the request and prints its answer; its exit code when not 0 (1: done, but with something the operator must see). */
  run(request: R): Promise<number | void>;
  /** Errors that refuse the request itself (the command's domain errors), printed like a UsageError. */
  refuses?: (error: unknown) => boolean;
}

/**
 * Runs an operator command on the process's arguments: the usage on `help` (standard output) and after a mistake in
 * the arguments (standard error, exit 2); a refused request's reason (exit 2); any other failure as
 * `<name> failed: <message>` (exit 2), never a stack trace.
 */
export function runOperatorCommand<R>(command: OperatorCommand<R>, argv: string[] = process.argv.slice(2)): void {
  const main = async () => {
    let request: R | 'help';
    try {
      request = command.parse(argv);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`${error.message}\n\n${command.usage}\n`);
      process.exitCode = 2;
      return;
    }
    if (request === 'help') {
      process.stdout.write(`${command.usage}\n`);
      return;
    }
    try {
      const code = await command.run(request);
      if (code) process.exitCode = code;
    } catch (error) {
      if (!(error instanceof UsageError) && !command.refuses?.(error)) throw error;
      process.stderr.write(`${(error as Error).message}\n`);
      process.exitCode = 2;
    }
  };
  main().catch((error: unknown) => {
    process.stderr.write(`${command.name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
