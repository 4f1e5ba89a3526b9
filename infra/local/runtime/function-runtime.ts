/**
 * What serves the functions behind the local gateway (infra/local/README.md): `sources` (the TS
 * handler modules in this process) or `bundles` (`CXM_RUNTIME=bundles`: the synthesized bundles in
 * worker processes on Lambda's Node). The gateway in front is the same for both.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { RouteSpec } from '#shared/api/route-spec';
import { wholeNumberSetting } from '#shared/settings/whole-number-setting';
import type { EventTarget } from '../emulators/deliver-events.ts';
import type { StreamTarget } from '../emulators/local-streams.ts';
import type { AuthorizerHandler, ProxyHandler } from '../gateway/local-gateway.ts';

export type FunctionRuntimeKind = 'sources' | 'bundles';

/**
 * What the local gateway sets up for its functions beyond their template's variables, as
 * environment variables: where S3, Transcribe and the delivery queue are on this machine, the
 * bucket's name and the queue's URL, the webhook target rules and the gateway's own hosts.
 * serve-gateway.ts makes it and returns it; the sources runtime puts it in this process's
 * environment (its functions run here), bundle mode in each worker's where the template asks.
 */
export type LocalWiring = Readonly<Record<string, string>>;

export interface FunctionRuntime {
  /** The routes served, with the methods the deployed API has for them. */
  routes: readonly RouteSpec[];
  authorizer: AuthorizerHandler;
  /** Route id -> the function serving it. */
  handlers: ReadonlyMap<string, ProxyHandler>;
  /** The functions EventBridge rules invoke (the recording processor), with their rules' patterns. */
  eventTargets: EventTarget[];
  /**
   * The webhook functions (shared/webhook-functions.ts): the fan-out as its table streams' reader
   * hands it records, the delivery function as its queue hands it tasks. Absent where the runtime
   * does not serve them.
   */
  webhooks?: {
    fanOut: StreamTarget;
    deliver(event: SQSEvent): Promise<SQSBatchResponse | undefined>;
  };
  /**
   * The reporting indexer (shared/reporting/reporting-indexer.ts) as the reporting table's stream
   * reader hands it records: read when the local stack serves reporting from OpenSearch. Absent
   * where the runtime does not serve it (a bundle assembly of a DynamoDB-reporting stage).
   */
  indexer?: StreamTarget;
  /** How long the deployed API caches an authorizer result (bundles: the template's authorizer TTL). */
  authorizerCacheTtlSeconds?: number;
  /** For the start banner: `bundles on node v24.21.0 (cloud assembly <dir>)`. */
  description: string;
  close(): Promise<void>;
}

/** Environments of one function alive at once in bundle mode (CXM_FUNCTION_CONCURRENCY). */
const DEFAULT_MAX_ENVIRONMENTS = 8;

/** CXM_FUNCTION_CONCURRENCY, checked (npm start checks it before anything starts). */
export function maxEnvironments(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberSetting('CXM_FUNCTION_CONCURRENCY', DEFAULT_MAX_ENVIRONMENTS, 1, 100, env);
}

/** `CXM_RUNTIME`: unset or `sources`, or `bundles`; anything else is a mistake worth stopping for. */
export function functionRuntimeKind(raw = process.env.CXM_RUNTIME): FunctionRuntimeKind {
  if (raw === undefined || raw === '' || raw === 'sources') return 'sources';
  if (raw === 'bundles') return 'bundles';
  throw new Error(`CXM_RUNTIME=${raw} is not valid; use sources (the default) or bundles.`);
}
