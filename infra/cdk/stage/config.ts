/**
 * Per-stage settings. The stage comes from `-c stage=<name>` (default `dev`); it names the stack
 * (`cxm-<stage>`), the API stage and every table (`cxm-<stage>-<table>`), so it must be a short,
 * lowercase DNS-ish label.
 *
 * Unknown stage names are allowed (a developer's own `-c stage=alice`, a `staging` nobody wrote down
 * yet) and get the PROTECTIVE defaults below: their tables survive `cdk destroy` and are
 * deletion-protected. Only a stage explicitly listed as disposable (`dev`) loses its data on
 * destroy; forgetting to list a stage can cost a manual cleanup, never a table.
 */

import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_RATE_LIMIT, DEFAULT_STAGE_RATE_LIMIT, type RateLimit } from '#infra/cdk/stage/default-rate-limits';
import { LOCAL_STAGE } from '#infra/stage-names';
import { DEFAULT_VERSION_RETENTION, daysToMs } from '#shared/domain/documents/document-versions';
import { DEFAULT_RECORDING_LIMITS } from '#shared/domain/voc/recording-upload';
import { DEFAULT_MAX_ENDPOINTS_PER_TENANT } from '#shared/domain/webhooks/webhook-endpoint';
import { DEFAULT_IDEMPOTENCY_TTL_HOURS } from '#shared/settings/idempotency-settings';
import {
  DEFAULT_MAX_IN_FLIGHT_PER_TENANT,
  DEFAULT_MAX_RECORDING_SECONDS,
  DEFAULT_PROCESSING_WINDOW_SECONDS,
} from '#shared/settings/recording-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { STAGE_NAME_PATTERN } from '#shared/store/table-specs';

export interface StageConfig {
  stage: string;
  /** What `cdk destroy` does to tables and log groups. */
  removalPolicy: RemovalPolicy;
  /** DynamoDB deletion protection: a table cannot be deleted, even by CloudFormation. */
  deletionProtection: boolean;
  logRetention: RetentionDays;
  /** How long API Gateway reuses an authorizer decision for the same Authorization header. */
  authorizerCacheTtl: Duration;
  /**
   * Per-tenant throttle of the stage's usage plan: every tenant has one API Gateway
   * key in that plan, which each of its keys of that tenant alone is throttled through (a key of
   * several tenants gets one of its own), so one busy tenant cannot starve the others. The local
   * gateway uses the same numbers (CXM_RATE_LIMIT).
   */
  rateLimit: RateLimit;
  /**
   * What limits requests before the authorizer has answered (a random well-formed token costs an
   * authorizer invocation and a strongly consistent read; `/openapi.json` needs no key at all), so
   * that no flood can use up the region's Lambda concurrency every tenant's functions share:
   * - `stageRateLimit`: API Gateway's stage throttle, which it applies to each method of the stage
   *   (429 beyond it, before the authorizer); above the per-tenant `rateLimit` times the tenants
   *   busy at once on one route. The total per client address is the web ACL's.
   * - `authorizerReservedConcurrency`, `documentReservedConcurrency`: reserved concurrency of the
   *   authorizer and of the OpenAPI document function, a cap on what they can take (and a
   *   guarantee of it). Undefined leaves a function unreserved: accounts whose concurrency quota
   *   is still the new-account 10 cannot reserve (Lambda keeps 100 unreserved).
   * - `acceptUntaggedKeys`: whether the authorizer still accepts keys issued before key tags
   *   (`cxm_<keyId>_<secret>`), each at the cost of a read; off, an untagged token is refused as
   *   cheaply as a forged tag (shared/auth/key-tag.ts). On by default: stages deployed before tags
   *   hold keys without one (infra/README.md says how to replace them, then turn it off).
   * - The stage's WAF web ACL (edge-protection.ts), which exists when any of its rules is asked for:
   *   - `wafRequestsPerIpPer5Minutes`: blocks an IP address (429) that sends more requests in any 5
   *     minutes; undefined: no such rule.
   *   - `wafMalformedKeyRequestsPerIpPer5Minutes`: the same, far lower, for the requests whose
   *     `Authorization` header cannot hold a key (missing, another scheme, another shape; untagged
   *     keys count too once `acceptUntaggedKeys` is off); only those requests of the address are
   *     blocked. Undefined: no such rule.
   *   - `wafIpReputationList`, `wafAnonymousIpList`: AWS's managed rule groups
   *     AWSManagedRulesAmazonIpReputationList (addresses Amazon's threat intelligence has seen
   *     attack or scan) and AWSManagedRulesAnonymousIpList (VPNs, proxies, Tor; its hosting-provider
   *     rule only counts, since our callers are servers that run at hosting providers).
   */
  edge: {
    stageRateLimit: RateLimit;
    authorizerReservedConcurrency: number | undefined;
    documentReservedConcurrency: number | undefined;
    acceptUntaggedKeys: boolean;
    wafRequestsPerIpPer5Minutes: number | undefined;
    wafMalformedKeyRequestsPerIpPer5Minutes: number | undefined;
    wafIpReputationList: boolean;
    wafAnonymousIpList: boolean;
  };
  /** Lambda memory (MB); on arm64, CPU scales with it, and cold starts with CPU. */
  memorySize: number;
  /** Powertools log level (`POWERTOOLS_LOG_LEVEL`). */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Where the reporting lists read: OpenSearch (production), or DynamoDB's window index for
   * small stages, which then have no search domain at all.
   */
  reportingBackend: 'opensearch' | 'dynamodb';
  /**
   * Origins (`https://app.example.com`) whose browser pages may call the MCP endpoint; a
   * request with any other `Origin` is 403. Server-side callers send no Origin and need no entry.
   * Empty everywhere by default: list an origin only for a browser-based MCP client you trust.
   */
  mcpAllowedOrigins: readonly string[];
  /**
   * How long an Idempotency-Key's answer is kept for replay, in hours: the promise made to
   * clients about how late a retry may come. 24 like Stripe; DynamoDB TTL deletes records later.
   */
  idempotencyTtlHours: number;
  /**
   * VOC recording uploads (infra/cdk/constructs/recordings.ts): the largest file accepted (S3 enforces
   * it through the signed Content-Length), how long an upload URL lives, the grace after it before a
   * job whose file never came is failed, how long processing may take after the file arrived, how
   * many days recordings and their analysis output are kept, and the origins of browser pages
   * allowed to upload (CORS on the bucket; empty: uploads come from servers only). `callSummaries`
   * asks Call Analytics for a generative summary of each two-channel call (the row's `Summary`):
   * offered in few regions and for English only (infra/cdk/stage/call-summary-regions.ts), so a stage that
   * asks for it elsewhere does not deploy.
   */
  recordings: {
    maxUploadBytes: number;
    uploadUrlTtl: Duration;
    uploadGrace: Duration;
    processingWindow: Duration;
    retentionDays: number;
    browserUploadOrigins: readonly string[];
    callSummaries: boolean;
    /**
     * A tenant's recordings in flight (upload jobs still `started`) at most: past it a new upload
     * is 429, so one tenant's burst cannot fill the analysis queue the account shares, nor push
     * other tenants' jobs past their processing window.
     */
    maxInFlightPerTenant: number;
    /** The longest recording analysed (read from the file; Transcribe takes at most 4 hours). */
    maxDuration: Duration;
    /**
     * Reserved concurrency of the recording processor: a burst of recordings takes at most this
     * much of the account's concurrency, and always has it (undefined: none reserved).
     */
    processorReservedConcurrency: number | undefined;
  };
  /**
   * A provisioning document's history (infra/README.md, the cost per write): the last `keep` versions
   * of each document (at most 10 000), each for `maxAgeDays` after it was made (at most 3 650).
   */
  documentVersions: {
    keep: number;
    maxAgeDays: number;
  };
  /** Tenant webhooks. */
  webhooks: {
    /** How many endpoints a tenant may register (at most 100: each event reads them all). */
    maxEndpointsPerTenant: number;
    /**
     * The generation of the webhook secret key: raising it rotates the key at the next deploy
     * (infra/cdk/constructs/webhook-sealing-key.ts). Starts at 1.
     */
    secretKeyGeneration: number;
  };
  /** The search domain's size, when reportingBackend is opensearch. */
  search: {
    dataNodeInstanceType: string;
    dataNodes: number;
    /** Spread data nodes over this many availability zones (1 turns zone awareness off). */
    availabilityZones: 1 | 2 | 3;
    volumeSizeGiB: number;
    /**
     * Shards of each year index (one per list kind and UTC year, created on its first row): read by
     * the indexer into the index templates, so a change shapes the next index created, never an
     * existing one. Size primaries so a year's shard stays within 10-30 GiB (infra/README.md,
     * "Choosing the reporting backend": plan on 1.5 KB a row on disk, so 1 primary of 25 GiB holds
     * ~17 million rows); replicas 1 wherever there are two data nodes or more, 0 on one node (a replica would
     * never be assigned there and leave the domain yellow).
     */
    indexShards: { primaries: number; replicas: number };
  };
  /** Alarm thresholds (infra/cdk/constructs/observability.ts); each alarm notifies `cxm-<stage>-alarms`. */
  alarms: {
    /** 5XX responses as a percentage of all requests, over 5 minutes. */
    serverErrorRatePercent: number;
    /** API p99 latency, sustained for 15 minutes (three 5-minute periods). */
    latencyP99: Duration;
    /** 429 responses (usage plan throttles) in 5 minutes. */
    throttled429Per5Minutes: number;
    /** 401 responses (keys refused, by the authorizer or the gateway) in 5 minutes. */
    unauthenticated401Per5Minutes: number;
    /** Throttled invocations of the authorizer in 5 minutes: each one a 503 for a tenant whose cached answer had expired. */
    authorizerThrottlesPer5Minutes: number;
    /** DynamoDB SystemErrors of one table in 5 minutes that raise the alarm. */
    dynamoSystemErrorsPer5Minutes: number;
    /** Age of the oldest reporting stream record the indexer has not processed yet. */
    indexerIteratorAge: Duration;
  };
}

export const DEFAULT_STAGE = 'dev';

type StageSettings = Omit<StageConfig, 'stage'>;

const protectiveDefaults: StageSettings = {
  removalPolicy: RemovalPolicy.RETAIN,
  deletionProtection: true,
  logRetention: RetentionDays.THREE_MONTHS,
  authorizerCacheTtl: Duration.seconds(60),
  rateLimit: DEFAULT_RATE_LIMIT,
  edge: {
    stageRateLimit: DEFAULT_STAGE_RATE_LIMIT,
    authorizerReservedConcurrency: 50,
    documentReservedConcurrency: 2,
    acceptUntaggedKeys: true,
    // About 333 a second from one address, kept up for 5 minutes: a partner calling for several
    // tenants at their full rate (50 a second each) stays under it.
    wafRequestsPerIpPer5Minutes: 100_000,
    // About 3 a second from one address, kept up for 5 minutes: far more than a client's mistakes
    // (a key left out, a key mistyped, the OpenAPI document fetched), a hundredth of the total.
    wafMalformedKeyRequestsPerIpPer5Minutes: 1_000,
    // Few false positives (addresses seen attacking), and callers are servers: on everywhere.
    wafIpReputationList: true,
    // Off: a tenant's backend may leave through a commercial proxy or VPN (a static egress
    // address, say), which this list blocks. A stage that knows its callers can turn it on.
    wafAnonymousIpList: false,
  },
  memorySize: 1024,
  logLevel: 'INFO',
  reportingBackend: 'opensearch',
  mcpAllowedOrigins: [],
  idempotencyTtlHours: DEFAULT_IDEMPOTENCY_TTL_HOURS,
  recordings: {
    maxUploadBytes: DEFAULT_RECORDING_LIMITS.maxBytes,
    uploadUrlTtl: Duration.seconds(DEFAULT_RECORDING_LIMITS.uploadUrlTtlSeconds),
    uploadGrace: Duration.seconds(DEFAULT_RECORDING_LIMITS.uploadGraceSeconds),
    processingWindow: Duration.seconds(DEFAULT_PROCESSING_WINDOW_SECONDS),
    retentionDays: 90,
    browserUploadOrigins: [],
    callSummaries: true,
    maxInFlightPerTenant: DEFAULT_MAX_IN_FLIGHT_PER_TENANT,
    maxDuration: Duration.seconds(DEFAULT_MAX_RECORDING_SECONDS),
    processorReservedConcurrency: 10,
  },
  documentVersions: {
    keep: DEFAULT_VERSION_RETENTION.keep,
    maxAgeDays: DEFAULT_VERSION_RETENTION.maxAgeMs / daysToMs(1),
  },
  webhooks: { maxEndpointsPerTenant: DEFAULT_MAX_ENDPOINTS_PER_TENANT, secretKeyGeneration: 1 },
  search: {
    dataNodeInstanceType: 'r7g.large.search',
    dataNodes: 2,
    availabilityZones: 2,
    volumeSizeGiB: 100,
    indexShards: { primaries: 1, replicas: 1 },
  },
  alarms: {
    serverErrorRatePercent: 1,
    latencyP99: Duration.seconds(3),
    throttled429Per5Minutes: 100,
    // More than 3 a second for 5 minutes: a client stuck on a revoked key, or a flood of made-up ones.
    unauthenticated401Per5Minutes: 1_000,
    authorizerThrottlesPer5Minutes: 1,
    dynamoSystemErrorsPer5Minutes: 1,
    indexerIteratorAge: Duration.minutes(5),
  },
};

/** A small single-node domain: enough to develop against, not to lose sleep over (and what the local engine is). */
const SINGLE_NODE_SEARCH: StageSettings['search'] = {
  dataNodeInstanceType: 't3.small.search',
  dataNodes: 1,
  availabilityZones: 1,
  volumeSizeGiB: 10,
  indexShards: { primaries: 1, replicas: 0 },
};

const knownStages: Record<string, StageSettings> = {
  dev: {
    ...protectiveDefaults,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    logLevel: 'DEBUG',
    search: SINGLE_NODE_SEARCH,
  },
  prod: {
    ...protectiveDefaults,
    logRetention: RetentionDays.ONE_YEAR,
    search: {
      dataNodeInstanceType: 'r7g.large.search',
      dataNodes: 3,
      availabilityZones: 3,
      volumeSizeGiB: 200,
      indexShards: { primaries: 1, replicas: 1 },
    },
  },
  // The stage bundle mode synthesizes and serves on one machine (`CXM_RUNTIME=bundles`,
  // infra/local): DynamoDB's window index for reporting unless `npm start` serves it from the
  // local OpenSearch engine (withReportingBackend), which is one node; quiet logs.
  [LOCAL_STAGE]: {
    ...protectiveDefaults,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    logLevel: 'WARN',
    reportingBackend: 'dynamodb',
    search: SINGLE_NODE_SEARCH,
  },
  // A stage that reads reporting rows from DynamoDB: no search domain, no indexer.
  lite: {
    ...protectiveDefaults,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    reportingBackend: 'dynamodb',
  },
};

/**
 * `config` with the reporting backend `npm start` serves (context `reportingBackend`, which bundle
 * mode passes): only the local stage takes one; a deployed stage's backend is its config's.
 *
 * @example withReportingBackend(stageConfig('local'), 'opensearch').reportingBackend // 'opensearch'
 */
export function withReportingBackend(config: StageConfig, backend: unknown): StageConfig {
  if (backend === undefined) return config;
  if (config.stage !== LOCAL_STAGE)
    throw new Error(`context "reportingBackend" is for the local stage only; stage ${config.stage} takes its config's`);
  if (backend !== 'dynamodb' && backend !== 'opensearch')
    throw new Error(`context "reportingBackend" must be dynamodb or opensearch, not ${String(backend)}`);
  return { ...config, reportingBackend: backend };
}

/**
 * The stage's document history settings as the functions read them (CDK sets them on every function
 * that writes or reads versions; the CLI binds its stores with them).
 *
 * @example documentVersionsEnvironment(stageConfig('dev')) // { CXM_DOCUMENT_VERSIONS_KEEP: '100', CXM_DOCUMENT_VERSIONS_MAX_AGE_DAYS: '365' }
 */
export function documentVersionsEnvironment(config: Pick<StageConfig, 'documentVersions'>): Record<string, string> {
  return {
    [FUNCTION_ENV.documentVersionsKeep]: String(config.documentVersions.keep),
    [FUNCTION_ENV.documentVersionsMaxAgeDays]: String(config.documentVersions.maxAgeDays),
  };
}

export function stageConfig(stage: string = DEFAULT_STAGE): StageConfig {
  if (!STAGE_NAME_PATTERN.test(stage)) {
    throw new Error(
      `invalid stage "${stage}": use 1-20 characters, lowercase letters, digits and "-", starting with a letter (e.g. -c stage=dev)`,
    );
  }
  return { stage, ...(knownStages[stage] ?? protectiveDefaults) };
}
