/**
 * One run of the CLI as its commands see it: lines to print, the run's environment, working
 * directory and state directory, its interruptions, the SDK clients it opened (destroyed when it
 * ends), and a way to end it at once with an exit code. Nothing of it outlives the run, so two runs
 * in one process (the tests) never see each other's.
 */
import { resolve } from 'node:path';
import { cxmHome } from '#infra/local/local-state';
import type { CliEnv, CliIo, CliOutput, CliSignal } from './cli-io.ts';

/** An SDK client, or anything else a run opens and must close. */
interface Destroyable {
  destroy(): void;
}

export interface CliContext {
  readonly env: CliEnv;
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  /** The run's state directory (`$CXM_HOME`, else `.cxm`), absolute. */
  readonly home: string;
  /** A line on stdout: what the command answers. */
  print(line: string): void;
  /** A line on stderr: progress, warnings, what happens beside the answer. */
  warn(line: string): void;
  /** A path as the operator typed it, absolute (against the run's working directory). */
  resolvePath(typed: string): string;
  /**
   * Calls `listener` on the first Ctrl-C, and on the first SIGTERM, until the returned function is
   * called. The listener decides how the run ends (`exit`); a signal without one ends the process
   * as Node does.
   */
  onInterrupt(listener: (signal: CliSignal) => void): () => void;
  /** Ends the run now with `code`, whatever its command is still doing (after an interruption). */
  exit(code: number): void;
  /** Destroys `client` when the run ends. */
  own<T extends Destroyable>(client: T): T;
}

/** A run's context and what its runner needs: the code `exit` was called with, and the end of the run. */
export interface CliContextHandle {
  cli: CliContext;
  /** Settles only when a command calls `exit`. */
  exited: Promise<number>;
  /** Ends the run: its clients are destroyed, and whatever it still writes is dropped. */
  close(): void;
}

const SIGNALS: readonly CliSignal[] = ['SIGINT', 'SIGTERM'];

/**
 * The context of a new run on `io`.
 *
 * @example
 * const { cli, exited, close } = createCliContext(io);
 * cli.print('Imported 3 documents.');
 */
export function createCliContext(io: CliIo): CliContextHandle {
  let open = true;
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolveExit) => (exit = resolveExit));
  const owned: Destroyable[] = [];
  const cli: CliContext = {
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    home: cxmHome(io.env, io.cwd),
    print: (line) => open && io.stdout.write(`${line}\n`),
    warn: (line) => open && io.stderr.write(`${line}\n`),
    resolvePath: (typed) => resolve(io.cwd, typed),
    onInterrupt(listener) {
      const { signals } = io;
      if (!signals) return () => {};
      for (const signal of SIGNALS) signals.once(signal, listener);
      return () => {
        for (const signal of SIGNALS) signals.off(signal, listener);
      };
    },
    exit: (code) => exit(code),
    own(client) {
      owned.push(client);
      return client;
    },
  };
  return {
    cli,
    exited,
    close() {
      open = false;
      for (const client of owned.splice(0)) client.destroy();
    },
  };
}
