/**
 * A bench section run in a child process on `node` (Lambda's, where the section's figure depends
 * on the Node version) with this process's environment, which already holds what the code under
 * measure reads at import (table names, silent logs), less the sources runtime's per-invocation mode. `track` hears of the child, so the bench can
 * kill it on every way out. The section's report is the JSON on the last line of its stdout.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { PROJECT_ROOT } from '#infra/project-root';
import { MAX_CONCURRENCY_ENV } from '#shared/http/request-logger';

export async function runSectionProcess<T>(
  node: string,
  nodeArgs: readonly string[],
  script: string,
  input: unknown,
  track: (child: ChildProcess) => void,
): Promise<T> {
  // The section calls handlers one at a time, as a classic Lambda environment does. A bench that
  // served the sources runtime before has set the per-invocation mode, in which Powertools' Logger
  // refuses to work outside an invocation scope the child never opens.
  const { [MAX_CONCURRENCY_ENV]: _perInvocation, ...environment } = process.env;
  const child = spawn(node, [...nodeArgs, '--import', 'tsx', script, JSON.stringify(input)], {
    cwd: PROJECT_ROOT,
    env: environment,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  track(child);
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk));
  // `close`, not `exit`: stdout may still hold the report when the process has exited.
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`${script} on ${node} exited with code ${code}`);
  // The last line: anything a module printed at import comes before it.
  return JSON.parse(Buffer.concat(chunks).toString('utf8').trimEnd().split('\n').at(-1)!) as T;
}
