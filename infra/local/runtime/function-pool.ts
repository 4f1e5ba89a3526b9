/**
 * The execution environments of one function in bundle mode, managed as Lambda manages them: each
 * environment is a worker process on Lambda's Node (infra/local/runtime/lambda-worker.mjs) that imports the
 * bundle once (init) and then takes one invocation at a time. The pool grows while every
 * environment is busy (up to `maxEnvironments`; further requests wait for one to free up), and
 * reuses warm ones. A function past its timeout is killed and replaced, as Lambda does; so is one
 * whose process crashes or whose init fails.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { LAMBDA_NODE_OPTIONS } from '#infra/lambda-node';
import { LOCAL_ACCOUNT } from '../emulators/local-identity.ts';

const WORKER = fileURLToPath(new URL('./lambda-worker.mjs', import.meta.url));
/** Lambda's limit on the init phase of an on-demand environment. */
const INIT_TIMEOUT_MS = 10_000;
/** Lambda's Node runtime gives the V8 heap about this share of the function's memory. */
const HEAP_SHARE = 0.9;

export interface FunctionSpec {
  functionName: string;
  /** `<module>.<export>`, the template's Handler. */
  handler: string;
  /** The unpacked code asset: the task root. */
  codeDir: string;
  /** The whole environment of the process: the template's variables, Lambda's own, local endpoints. */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
}

/** An error the function's handler threw (Lambda's function error payload). */
export class FunctionError extends Error {
  constructor(
    readonly functionName: string,
    readonly errorType: string,
    message: string,
    readonly trace: string[],
  ) {
    super(message);
    this.name = errorType;
  }
}

/** The environment failed the invocation: init failure, timeout, or a crash. */
export class EnvironmentFailure extends Error {
  constructor(
    readonly functionName: string,
    readonly status: 'init-error' | 'timeout' | 'crash',
    message: string,
  ) {
    super(`${functionName}: ${message}`);
    this.name = 'EnvironmentFailure';
  }
}

export interface PoolEvents {
  /** Lambda's REPORT line after each invocation; a cold start's carries its init duration. */
  report?: (line: string) => void;
}

interface Description {
  errorType: string;
  errorMessage: string;
  trace: string[];
}

type WorkerMessage =
  | { type: 'ready'; initMs: number }
  | { type: 'init-error'; initMs: number; error: Description }
  | { type: 'result'; id: string; json: string; durationMs: number; maxRssKb: number }
  | { type: 'error'; id: string; error: Description; durationMs: number; maxRssKb: number }
  | { type: 'crash'; error: Description };

interface Outcome {
  durationMs: number;
  maxRssKb: number;
  status: 'ok' | 'error' | 'timeout';
}

interface Pending {
  id: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onSettled: (outcome: Outcome) => void;
  timer: NodeJS.Timeout;
}

class Environment {
  readonly child: ChildProcess;
  readonly ready: Promise<number>;
  pending?: Pending;
  /** Init duration, until the first invocation's REPORT line has carried it. */
  initMsToReport?: number;
  dead = false;
  /** Killed or being killed: never handed out again. */
  retired = false;
  private lastCrash?: Description;

  constructor(
    private readonly spec: FunctionSpec,
    execPath: string,
    private readonly onGone: (env: Environment) => void,
  ) {
    const heapMb = Math.floor(spec.memoryMb * HEAP_SHARE);
    this.child = fork(WORKER, [], {
      execPath,
      // Not the gateway's own flags (`--import tsx`): the bundle runs on bare Node with Lambda's
      // options, which its compile cache was made for.
      execArgv: [...LAMBDA_NODE_OPTIONS, `--max-old-space-size=${heapMb}`],
      cwd: spec.codeDir,
      env: spec.environment,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.ready = new Promise<number>((resolve, reject) => {
      const initTimer = setTimeout(() => {
        reject(
          new EnvironmentFailure(
            spec.functionName,
            'init-error',
            `init did not finish within ${INIT_TIMEOUT_MS / 1000} s`,
          ),
        );
        this.kill();
      }, INIT_TIMEOUT_MS);
      this.child.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          clearTimeout(initTimer);
          this.initMsToReport = message.initMs;
          resolve(message.initMs);
        } else if (message.type === 'init-error') {
          clearTimeout(initTimer);
          const { errorType, errorMessage } = message.error;
          reject(
            new EnvironmentFailure(
              spec.functionName,
              'init-error',
              `init failed after ${message.initMs.toFixed(0)} ms: ${errorType}: ${errorMessage}`,
            ),
          );
          this.kill();
        } else if (message.type === 'crash') {
          // It is exiting: never hand it out again, even before its exit arrives.
          this.lastCrash = message.error;
          this.retired = true;
        } else {
          this.settle(message);
        }
      });
      this.child.on('exit', (code, signal) => {
        clearTimeout(initTimer);
        this.dead = true;
        const crash = this.lastCrash ? ` (${this.lastCrash.errorType}: ${this.lastCrash.errorMessage})` : '';
        const failure = new EnvironmentFailure(
          spec.functionName,
          'crash',
          `Runtime exited ${signal ? `on ${signal}` : `with status ${code}`}${crash}`,
        );
        reject(failure);
        if (this.pending) {
          const { reject: rejectPending, timer } = this.pending;
          clearTimeout(timer);
          this.pending = undefined;
          rejectPending(failure);
        }
        this.onGone(this);
      });
      this.child.on('error', (error) => {
        const failure = new EnvironmentFailure(spec.functionName, 'crash', `could not start: ${error.message}`);
        reject(failure);
        // A process that never started sends no 'exit': it is gone now.
        if (this.child.pid === undefined) {
          clearTimeout(initTimer);
          this.dead = true;
          this.retired = true;
          this.onGone(this);
        }
      });
    });
    // A rejection nobody awaits yet (an environment that dies before its first use) is no crash of ours.
    this.ready.catch(() => undefined);
  }

  invoke(event: unknown, requestId: string, onSettled: (outcome: Outcome) => void): Promise<unknown> {
    const { functionName, timeoutSeconds, memoryMb } = this.spec;
    const timeoutMs = timeoutSeconds * 1000;
    return new Promise<unknown>((resolve, reject) => {
      if (this.dead) {
        reject(new EnvironmentFailure(functionName, 'crash', 'the environment ended before the invocation'));
        return;
      }
      const id = randomUUID();
      const started = Date.now();
      const timer = setTimeout(() => {
        this.pending = undefined;
        onSettled({ durationMs: Date.now() - started, maxRssKb: 0, status: 'timeout' });
        reject(
          new EnvironmentFailure(functionName, 'timeout', `Task timed out after ${timeoutSeconds.toFixed(2)} seconds`),
        );
        this.kill();
      }, timeoutMs);
      this.pending = { id, resolve, reject, onSettled, timer };
      this.child.send({
        type: 'invoke',
        id,
        event,
        context: {
          awsRequestId: requestId,
          deadline: started + timeoutMs,
          functionName,
          functionVersion: '$LATEST',
          memoryLimitInMB: String(memoryMb),
          invokedFunctionArn: `arn:aws:lambda:${this.spec.environment.AWS_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`,
          logGroupName: this.spec.environment.AWS_LAMBDA_LOG_GROUP_NAME,
          logStreamName: this.spec.environment.AWS_LAMBDA_LOG_STREAM_NAME,
        },
      });
    });
  }

  private settle(message: Extract<WorkerMessage, { id: string }>): void {
    const pending = this.pending;
    if (!pending || pending.id !== message.id) return;
    clearTimeout(pending.timer);
    this.pending = undefined;
    pending.onSettled({
      durationMs: message.durationMs,
      maxRssKb: message.maxRssKb,
      status: message.type === 'result' ? 'ok' : 'error',
    });
    if (message.type === 'result') pending.resolve(JSON.parse(message.json) as unknown);
    else
      pending.reject(
        new FunctionError(
          this.spec.functionName,
          message.error.errorType,
          message.error.errorMessage,
          message.error.trace,
        ),
      );
  }

  kill(): void {
    this.retired = true;
    if (!this.dead) this.child.kill('SIGKILL');
  }
}

export class FunctionPool {
  private readonly idle: Environment[] = [];
  private readonly all = new Set<Environment>();
  private readonly waiting: Array<{ resolve: (env: Environment) => void; reject: (error: Error) => void }> = [];
  private closed = false;

  constructor(
    readonly spec: FunctionSpec,
    private readonly execPath: string,
    private readonly maxEnvironments: number,
    private readonly events: PoolEvents = {},
  ) {}

  /** Environments alive now (warm or busy). */
  get size(): number {
    return this.all.size;
  }

  /** Runs one invocation; resolves with the handler's result, rejects with FunctionError or EnvironmentFailure. */
  async invoke(event: unknown, requestId: string): Promise<unknown> {
    const env = await this.acquire();
    try {
      await env.ready;
      return await env.invoke(event, requestId, (outcome) => this.report(env, requestId, outcome));
    } finally {
      this.release(env);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new EnvironmentFailure(this.spec.functionName, 'crash', 'the local gateway is closing'));
    const exits = [...this.all].map(
      (env) =>
        new Promise<void>((resolve) =>
          env.dead || env.child.pid === undefined ? resolve() : env.child.once('exit', () => resolve()),
        ),
    );
    for (const env of this.all) env.kill();
    await Promise.all(exits);
  }

  private acquire(): Promise<Environment> {
    if (this.closed)
      return Promise.reject(new EnvironmentFailure(this.spec.functionName, 'crash', 'the local gateway is closing'));
    let warm = this.idle.pop();
    while (warm && (warm.retired || warm.dead)) warm = this.idle.pop();
    if (warm) return Promise.resolve(warm);
    if (this.all.size < this.maxEnvironments) return Promise.resolve(this.spawn());
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(env: Environment): void {
    if (env.retired || env.dead || this.closed) {
      // Its place is free: a waiting request gets a new environment.
      const next = this.waiting.shift();
      if (next && !this.closed) next.resolve(this.spawn());
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(env);
    else this.idle.push(env);
  }

  private spawn(): Environment {
    const env = new Environment(this.spec, this.execPath, (gone) => {
      this.all.delete(gone);
      const at = this.idle.indexOf(gone);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.all.add(env);
    return env;
  }

  private report(env: Environment, requestId: string, outcome: Outcome): void {
    if (!this.events.report) return;
    const init = env.initMsToReport === undefined ? '' : `\tInit Duration: ${env.initMsToReport.toFixed(2)} ms`;
    env.initMsToReport = undefined;
    const memory = outcome.maxRssKb > 0 ? `\tMax Memory Used: ${Math.ceil(outcome.maxRssKb / 1024)} MB` : '';
    const status = outcome.status === 'ok' ? '' : `\tStatus: ${outcome.status}`;
    this.events.report(
      `REPORT RequestId: ${requestId}\tFunction: ${this.spec.functionName}\tDuration: ${outcome.durationMs.toFixed(2)} ms\tMemory Size: ${this.spec.memoryMb} MB${memory}${init}${status}`,
    );
  }
}
