/**
 * What a run of the `cxm` CLI reads and writes: its two outputs, its environment, its working
 * directory and where interruptions come from. The bin entry (main.ts) gives the process's own; a
 * test gives buffers and an environment of its own, so that runs in one process stay apart.
 */

/** An output of the run: a process's stdout or stderr, or a buffer. */
export interface CliOutput {
  write(text: string): unknown;
  /** A terminal: progress lines are redrawn in place there, and left out elsewhere. */
  readonly isTTY?: boolean;
  /** The terminal's width in characters, when it is one. */
  readonly columns?: number;
}

/** The environment a run reads: `CXM_HOME`, `CXM_KEY`, and the AWS SDK's variables (aws-client-config.ts). */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/** The interruptions a run reacts to: Ctrl-C and a polite kill. */
export type CliSignal = 'SIGINT' | 'SIGTERM';

/** Where interruptions come from: the process, for the bin. */
export interface CliSignals {
  once(signal: CliSignal, listener: (signal: CliSignal) => void): unknown;
  off(signal: CliSignal, listener: (signal: CliSignal) => void): unknown;
}

/**
 * Everything a run of the CLI touches outside itself.
 *
 * @example
 * const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signals: process };
 */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  env: CliEnv;
  /** What relative paths (an import file, a sample to write, a relative CXM_HOME) resolve against. */
  cwd: string;
  /** Without it nothing interrupts the run: a test in process sends no signals. */
  signals?: CliSignals;
}
