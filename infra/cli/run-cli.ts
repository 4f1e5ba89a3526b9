/**
 * `cxm` as a function: one command line run against an io, answering its exit code instead of
 * exiting, so that the tests run the CLI in their own process and the bin entry (main.ts) only
 * hands it the process's arguments, streams, environment and signals. Every failure a command
 * throws becomes one line on stderr and exit code 1.
 */
import { CommanderError } from 'commander';
import { ImportError } from '#infra/tenant-data/import-error';
import { cliProgram } from './cli-program.ts';
import { type CliContext, createCliContext } from './terminal/cli-context.ts';
import { CliError } from './terminal/cli-error.ts';
import type { CliIo } from './terminal/cli-io.ts';

/** The exit code of a failed run, with its one line on stderr (commander has written its own). */
function failure(error: unknown, cli: CliContext): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof CliError || error instanceof ImportError) {
    cli.warn(`cxm: ${error.message}`);
    return 1;
  }
  if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
    cli.warn('cxm: cannot reach DynamoDB of the local stack; is `npm start` running (with the same CXM_HOME)?');
    return 1;
  }
  cli.warn(`cxm: ${(error as Error).message ?? String(error)}`);
  return 1;
}

/**
 * Runs `cxm <argv>` on `io` and answers its exit code: 0, 1 for a failure, commander's code for a
 * usage error, or the code an interrupted command ends with (130 after Ctrl-C).
 *
 * @example
 * const code = await runCli(['keys', 'list', '--json'], { stdout, stderr, env: { CXM_HOME: home }, cwd: process.cwd() });
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { cli, exited, close } = createCliContext(io);
  try {
    const finished = cliProgram(cli)
      .parseAsync([...argv], { from: 'user' })
      .then(
        () => 0,
        (error: unknown) => failure(error, cli),
      );
    return await Promise.race([finished, exited]);
  } finally {
    close();
  }
}
