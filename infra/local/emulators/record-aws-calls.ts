/**
 * Records every AWS call the functions make in this process, with the function that made it, for
 * the IAM simulation (test/infra/iam-simulation.test.ts): each call is later held to that
 * function's synthesized policies. Turned on by `CXM_AWS_CALL_LOG=<folder>` in the sources runtime,
 * where the functions run in this process; each call is a JSON line in `<folder>/calls-<pid>.jsonl`.
 *
 * What counts as a call: a request of an AWS SDK client (its `send`, as OpenTelemetry's AWS SDK
 * instrumentation hooks it), and a request we sign ourselves with the SDK's SigV4 signer (an upload
 * URL for S3, a search for OpenSearch): the signature is what AWS authorizes, whoever sends it. Only
 * what names a resource or a condition is kept (table, index, bucket and key, secret, job name,
 * output location, role passed); never items, bodies or credentials.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@smithy/core/client';
import { SignatureV4 } from '@smithy/signature-v4';

/** The environment variable that turns recording on: the folder the call logs go to. */
export const AWS_CALL_LOG_ENV = 'CXM_AWS_CALL_LOG';

/** One AWS call as recorded: who made it, to which service, which operation, what it named. */
export interface RecordedAwsCall {
  /** The function (a route id, `authorizer`, `processRecording`) or other principal (`transcribeDataAccess`). */
  principal: string;
  /** The SDK's service id (`DynamoDB`, `S3`, `Transcribe`, `Secrets Manager`) or the signing name of a signed request (`s3`, `es`). */
  service: string;
  /** The SDK's operation (`GetItem`, `PutObject`...), or for a signed request its HTTP method. */
  operation: string;
  input: Record<string, unknown>;
  /**
   * A request we signed ourselves (presigned or signed), not sent by an SDK client: its signed
   * header names, and the values of those that are IAM condition keys (`if-none-match`).
   */
  signed?: { method: string; host: string; path: string; headers: string[]; conditions: Record<string, string> };
}

/** Request fields that name a resource or a condition; everything else (items, bodies) is left out. */
const NAMING_FIELDS = [
  'TableName',
  'IndexName',
  'Bucket',
  'Key',
  'SecretId',
  'VersionStage',
  'CallAnalyticsJobName',
  'TranscriptionJobName',
  'OutputLocation',
  'OutputBucketName',
  'OutputKey',
  'DataAccessRoleArn',
  'QueueUrl',
] as const;

function naming(input: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const field of NAMING_FIELDS) if (typeof input[field] === 'string') kept[field] = input[field];
  const media = (input.Media as { MediaFileUri?: unknown } | undefined)?.MediaFileUri;
  if (typeof media === 'string') kept.MediaFileUri = media;
  const execution = (input.JobExecutionSettings as { DataAccessRoleArn?: unknown } | undefined)?.DataAccessRoleArn;
  if (typeof execution === 'string') kept.DataAccessRoleArn = execution;
  // Batch and transaction requests: the table of each item and what is done to it.
  if (input.RequestItems && typeof input.RequestItems === 'object') kept.RequestItems = Object.keys(input.RequestItems);
  if (Array.isArray(input.TransactItems)) {
    kept.TransactItems = input.TransactItems.map((item: Record<string, { TableName?: string }>) => {
      const [operation, request] = Object.entries(item)[0] ?? [];
      return { operation, TableName: request?.TableName };
    });
  }
  return kept;
}

const TAPPED = Symbol.for('cxm.record-aws-calls');
/** Signed headers whose values IAM reads as condition keys (`s3:if-none-match`). */
const CONDITION_HEADERS = ['if-none-match', 'if-match'];

/**
 * One recording per process: the SDK's classes are patched once, and their patches must see the
 * principal set by any copy of this module a process loads (a test worker that runs several files
 * loads the project's modules again for each, the SDK once).
 */
interface Recording {
  principals: AsyncLocalStorage<string>;
  /** Set while an SDK client sends: its own signing is part of that call, not one of ours. */
  insideClient: AsyncLocalStorage<true>;
  folder: string | undefined;
}
const RECORDING = Symbol.for('cxm.record-aws-calls.recording');
const processGlobals = globalThis as { [RECORDING]?: Recording };
processGlobals[RECORDING] ??= {
  principals: new AsyncLocalStorage<string>(),
  insideClient: new AsyncLocalStorage<true>(),
  folder: undefined,
};
const recording: Recording = processGlobals[RECORDING];
const { principals, insideClient } = recording;

function write(call: RecordedAwsCall): void {
  if (!recording.folder) return;
  appendFileSync(join(recording.folder, `calls-${process.pid}.jsonl`), `${JSON.stringify(call)}\n`);
}

interface SendableClient {
  config: { serviceId?: string };
  send(command: { input?: unknown; clientCommand?: object }, ...rest: unknown[]): unknown;
}

/** Wraps `send` of one build (ESM or CommonJS) of the SDK's client base class, once. */
function instrumentClient(prototype: SendableClient): void {
  const marked = prototype as SendableClient & { [TAPPED]?: true };
  if (marked[TAPPED]) return;
  marked[TAPPED] = true;
  const send = prototype.send;
  prototype.send = function (this: SendableClient, command, ...rest) {
    const principal = principals.getStore();
    if (principal && recording.folder) {
      // lib-dynamodb's commands wrap the client's (`GetCommand` -> `GetItemCommand`).
      const operation = (command.clientCommand ?? command).constructor.name.replace(/Command$/, '');
      write({
        principal,
        service: this.config.serviceId ?? 'unknown',
        operation,
        input: naming((command.input ?? {}) as Record<string, unknown>),
      });
    }
    return insideClient.run(true, () => send.call(this, command, ...rest));
  };
}

interface SignableRequest {
  method: string;
  hostname: string;
  path: string;
  headers: Record<string, string>;
}

/** Wraps `sign` and `presign` of the SDK's SigV4 signer: the requests we sign ourselves. */
function instrumentSigner(prototype: SignatureV4): void {
  const marked = prototype as SignatureV4 & { [TAPPED]?: true };
  if (marked[TAPPED]) return;
  marked[TAPPED] = true;
  for (const method of ['sign', 'presign'] as const) {
    const original = prototype[method] as (this: SignatureV4, request: SignableRequest, ...rest: unknown[]) => unknown;
    (prototype as unknown as Record<string, unknown>)[method] = function (
      this: SignatureV4 & { service: string },
      request: SignableRequest,
      ...rest: unknown[]
    ) {
      const principal = principals.getStore();
      if (
        principal &&
        recording.folder &&
        !insideClient.getStore() &&
        request &&
        typeof request === 'object' &&
        'method' in request
      ) {
        write({
          principal,
          service: this.service,
          operation: request.method,
          input: {},
          signed: {
            method: request.method,
            host: request.hostname,
            path: request.path,
            headers: Object.keys(request.headers ?? {}).map((name) => name.toLowerCase()),
            conditions: Object.fromEntries(
              Object.entries(request.headers ?? {})
                .filter(([name]) => CONDITION_HEADERS.includes(name.toLowerCase()))
                .map(([name, value]) => [name.toLowerCase(), value]),
            ),
          },
        });
      }
      return original.call(this, request, ...rest);
    };
  }
}

/**
 * Starts recording into `logFolder` (this process's file in it). Safe to call again.
 *
 * @example startRecordingAwsCalls(process.env.CXM_AWS_CALL_LOG!)
 */
export function startRecordingAwsCalls(logFolder: string): void {
  mkdirSync(logFolder, { recursive: true });
  recording.folder = logFolder;
  instrumentClient(Client.prototype as unknown as SendableClient);
  instrumentSigner(SignatureV4.prototype);
  // A package loaded as CommonJS (some SDK consumers are) has its own copy of both classes.
  const require = createRequire(import.meta.url);
  instrumentClient((require('@smithy/core/client') as { Client: { prototype: SendableClient } }).Client.prototype);
  instrumentSigner(
    (require('@smithy/signature-v4') as { SignatureV4: { prototype: SignatureV4 } }).SignatureV4.prototype,
  );
}

/**
 * Runs `work` as `principal`: every AWS call it makes is recorded as that principal's. Without
 * recording on, it only runs `work`.
 *
 * @example actingAs('getVocJobStatus', () => handler(event, context))
 */
export function actingAs<T>(principal: string, work: () => T): T {
  return recording.folder ? principals.run(principal, work) : work();
}

/**
 * Runs `work` as no one: a call a test makes from inside a function's request (a hook on the
 * function's client, standing for another party) is not the function's own.
 *
 * @example await asNoOne(() => other.send(new UpdateItemCommand(close)))
 */
export function asNoOne<T>(work: () => T): T {
  return principals.exit(work);
}
