/**
 * The `cxm` CLI in tests: run in this process (`runCli`) with its outputs collected, answering as
 * `run` answers for a child process (exit code, stdout, stderr), and a state directory whose
 * local.json names a test gateway, the run's DynamoDB Local and, when the gateway's lists search
 * it, the run's OpenSearch engine. A few tests spawn the bin itself
 * (infra/cli/cxm.mjs) with `run`, for what only a process shows: the bin's exit codes, `npx cxm`,
 * signals.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '#infra/cli/run-cli';
import { type CliContext, createCliContext } from '#infra/cli/terminal/cli-context';
import type { CliIo, CliOutput } from '#infra/cli/terminal/cli-io';
import { type LocalState, writeLocalState } from '#infra/local/local-state';
import { PROJECT_ROOT } from '#infra/project-root';
import type { Finished } from './run-process.ts';
import type { TestApi } from './test-api.ts';
import { TEST_KEY_TAG_SECRET } from './test-env.ts';

/** An output that keeps what is written, as a pipe to a child process would: not a terminal. */
function collectedOutput(): CliOutput & { readonly text: string } {
  let text = '';
  return {
    isTTY: false,
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    get text() {
      return text;
    },
  };
}

/**
 * An io with collected outputs and the environment a child process of this one would get: this
 * process's, with `env` over it (an undefined value unsets a variable), in the project directory.
 */
function collectingIo(env: Record<string, string | undefined>): {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
} {
  const stdout = collectedOutput();
  const stderr = collectedOutput();
  return {
    io: { stdout, stderr, env: { ...process.env, ...env }, cwd: PROJECT_ROOT },
    stdout: () => stdout.text,
    stderr: () => stderr.text,
  };
}

/**
 * `cxm <args>` run in this process, as `run('node', ['infra/cli/cxm.mjs', ...args], env)` runs it
 * as a child: its exit code and what it wrote to stdout and stderr.
 *
 * @example const listed = await cxm(['keys', 'list', '--json'], { CXM_HOME: home }); // { code: 0, stdout: '[...]\n', stderr: '' }
 */
export async function cxm(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Finished> {
  const { io, stdout, stderr } = collectingIo(env);
  const code = await runCli(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

/**
 * A CLI run's context for a test that calls a command's own function (`runSmoke`), its outputs
 * collected and dropped.
 *
 * @example await runSmoke({ kind: 'given-key', url, key, tenant }, 15_000, testCliContext());
 */
export function testCliContext(env: Record<string, string | undefined> = {}): CliContext {
  return createCliContext(collectingIo(env).io).cli;
}

/**
 * A state directory pointing the CLI at `api` (what `overrides` says otherwise aside), and `cxm`
 * run there in this process.
 *
 * @example const { home, cxm } = cliFor(api, 'cxm-cli'); await cxm('keys', 'list');
 */
export function cliFor(api: TestApi, prefix: string, overrides: Partial<LocalState> = {}) {
  const home = mkdtempSync(join(tmpdir(), `${prefix}-`));
  writeLocalState(
    {
      apiUrl: api.url,
      dynamodbEndpoint: api.dynamo.endpoint,
      dynamodbCredentials: api.dynamo.credentials,
      region: 'us-east-1',
      stage: 'test',
      tables: api.tables,
      demo: null,
      keyTagSecret: TEST_KEY_TAG_SECRET,
      ...(api.opensearch && { opensearch: api.opensearch }),
      pid: process.pid,
      ...overrides,
    },
    home,
  );
  return { home, cxm: (...args: string[]) => cxm(args, { CXM_HOME: home }) };
}
