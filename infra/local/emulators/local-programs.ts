/**
 * What the local stack needs of the programs it runs beside the API (DynamoDB Local and the
 * OpenSearch engine, both on Java): the error that stops a start with one line saying what to do,
 * which `java` runs them and whether it is new enough, and starting one so that it dies with the
 * process that started it.
 */
import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A start that cannot go on, with the one line that says what to do: printed without a stack trace. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` from PATH.
 *
 * @example javaCommand('/usr/lib/jvm/java-17'); // '/usr/lib/jvm/java-17/bin/java'
 */
export function javaCommand(javaHome = process.env.JAVA_HOME): string {
  return javaHome ? join(javaHome, 'bin', 'java') : 'java';
}

/** Java commands found to be 17 or newer: a process starting several programs starts one JVM to ask. */
const checkedJava = new Set<string>();

/**
 * Runs `command -version`: a StartupError, saying what to install, unless it is Java 17 or newer.
 *
 * @example checkJava(javaCommand(), 'the OpenSearch engine'); // throws when java is missing or older
 */
export function checkJava(command = javaCommand(), program = 'DynamoDB Local'): void {
  if (checkedJava.has(command)) return;
  const result = spawnSync(command, ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new StartupError(
      `Java 17 or newer is needed to run ${program}, but '${command}' could not be run (${(result.error as NodeJS.ErrnoException).code}). ` +
        'Install a JDK or JRE 17+ (on Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME, then try again.',
    );
  }
  const major = Number(/version "(?:1\.)?(\d+)/.exec(result.stderr)?.[1]);
  if (!(major >= 17)) {
    throw new StartupError(
      `${program} needs Java 17 or newer; '${command}' is version ${major || 'unknown'}. Install Java 17+ or set JAVA_HOME.`,
    );
  }
  checkedJava.add(command);
}

/** util-linux's `setpriv` on PATH (Linux distributions ship it), looked up once. */
let setprivPath: string | null | undefined;
function setpriv(): string | null {
  // Not `??=`: a machine without it (null) is looked up once too.
  if (setprivPath === undefined)
    setprivPath =
      process.platform === 'linux'
        ? ((process.env.PATH ?? '')
            .split(delimiter)
            .filter(Boolean)
            .map((dir) => join(dir, 'setpriv'))
            .find((path) => existsSync(path)) ?? null)
        : null;
  return setprivPath;
}

/**
 * Starts `command args` so that it dies with the process starting it. Otherwise a parent killed
 * outright (kill -9, a CI job's timeout, the OOM killer) leaves the JVM running: over a data
 * folder, beside the next start's JVM on the same files. `setpriv --pdeathsig TERM` sets a
 * parent-death signal (PR_SET_PDEATHSIG) and execs the program under its own pid: when the parent
 * goes, the kernel sends it a SIGTERM, and it closes its data as on a stop. The kernel ties the
 * signal to the thread that spawned it: Node spawns from the calling thread, the main one for
 * every caller here (a worker thread's end would stop the program too). Without setpriv (macOS),
 * the program is started as it is.
 *
 * @example const jvm = spawnTiedToParent('java', ['-jar', 'x.jar'], { stdio: 'pipe' });
 */
export function spawnTiedToParent(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const wrapper = setpriv();
  return wrapper
    ? spawn(wrapper, ['--pdeathsig', 'TERM', '--', command, ...args], options)
    : spawn(command, args, options);
}
