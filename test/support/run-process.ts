/** Runs a project command as a user would, and collects what it prints. */
import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '#infra/project-root';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `onSpawn` gets the child, for a test that signals it while it runs. */
export function run(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  onSpawn?: (child: ChildProcess) => void,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Output lines that are not npm's own chatter. */
export function ownLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '' && !/^(npm (warn|error|notice)|> )/.test(line));
}

/** Starts a long-running command and resolves once `ready` matches its stdout. */
export function startUntil(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  timeoutMs = 90_000,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a signal reaches npm and its children as Ctrl-C would.
    const child = spawn(command, args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`not ready within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve({ child, output: () => out, exited });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${out}`));
    });
  });
}
