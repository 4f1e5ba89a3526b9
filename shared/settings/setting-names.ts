/**
 * Every environment variable of ours a function reads, named by what it holds. CDK sets them
 * (infra/cdk/constructs), npm start passes them (infra/local), the functions read them (shared/): one
 * list for all three, so a rename cannot leave the writer and the reader apart. AWS's own variables
 * (AWS_REGION, POWERTOOLS_*) keep their documented names where they are used.
 */
export const FUNCTION_ENV = {
  /** The stage's name (`local` under npm start): metrics, usage-plan key names. */
  stage: 'CXM_STAGE',
  /** Each table's physical name (shared/store/table-specs.ts binds them to the tables). */
  tables: {
    keys: 'CXM_TABLE_KEYS',
    conversations: 'CXM_TABLE_CONVERSATIONS',
    documents: 'CXM_TABLE_DOCUMENTS',
    documentVersions: 'CXM_TABLE_DOCUMENT_VERSIONS',
    vocJobs: 'CXM_TABLE_VOC_JOBS',
    reporting: 'CXM_TABLE_REPORTING',
    reportingCounts: 'CXM_TABLE_REPORTING_COUNTS',
    idempotency: 'CXM_TABLE_IDEMPOTENCY',
    webhookEndpoints: 'CXM_TABLE_WEBHOOK_ENDPOINTS',
    webhookDeliveries: 'CXM_TABLE_WEBHOOK_DELIVERIES',
  },
  /** `opensearch` or `dynamodb`: where the reporting lists search (compiled into their bundles too). */
  reportingBackend: 'CXM_REPORTING_BACKEND',
  /** Where the reporting search cluster is, on the indexer and the lists of an OpenSearch stage. */
  opensearchEndpoint: 'CXM_OPENSEARCH_ENDPOINT',
  opensearchIndexPrefix: 'CXM_OPENSEARCH_INDEX_PREFIX',
  opensearchPrimaryShards: 'CXM_OPENSEARCH_PRIMARY_SHARDS',
  opensearchReplicas: 'CXM_OPENSEARCH_REPLICAS',
  /** Versions kept per provisioning document (`documentVersions.keep`). */
  documentVersionsKeep: 'CXM_DOCUMENT_VERSIONS_KEEP',
  /** Days a provisioning document's version is kept after it was made (`documentVersions.maxAgeDays`). */
  documentVersionsMaxAgeDays: 'CXM_DOCUMENT_VERSIONS_MAX_AGE_DAYS',
  /** How long an Idempotency-Key answers for its first request, in hours. */
  idempotencyTtlHours: 'CXM_IDEMPOTENCY_TTL_HOURS',
  /** The browser origins (and, locally, the hosts) the MCP endpoint accepts. */
  allowedOrigins: 'CXM_ALLOWED_ORIGINS',
  allowedHosts: 'CXM_ALLOWED_HOSTS',
  /** The reporting cursors' signing key: the secret's ARN on a stage, the key itself locally. */
  cursorSecretArn: 'CXM_CURSOR_SECRET_ARN',
  cursorSecret: 'CXM_CURSOR_SECRET',
  cursorSecretPrevious: 'CXM_CURSOR_SECRET_PREVIOUS',
  /** The key-tag secret (shared/auth/key-tag.ts) the authorizer checks tags with: its ARN on a stage, the secret itself locally. */
  keyTagSecretArn: 'CXM_KEY_TAG_SECRET_ARN',
  keyTagSecret: 'CXM_KEY_TAG_SECRET',
  keyTagSecretPrevious: 'CXM_KEY_TAG_SECRET_PREVIOUS',
  /** `true` or `false`: whether the authorizer still accepts keys issued before tags (`edge.acceptUntaggedKeys`). */
  acceptUntaggedKeys: 'CXM_ACCEPT_UNTAGGED_KEYS',
  /** Recordings: the bucket, the upload's limits, the job's deadlines and which analysis runs. */
  recordingsBucket: 'CXM_RECORDINGS_BUCKET',
  recordingMaxBytes: 'CXM_RECORDING_MAX_BYTES',
  recordingUploadUrlTtlSeconds: 'CXM_RECORDING_UPLOAD_URL_TTL_SECONDS',
  recordingUploadGraceSeconds: 'CXM_RECORDING_UPLOAD_GRACE_SECONDS',
  recordingProcessingWindowSeconds: 'CXM_RECORDING_PROCESSING_WINDOW_SECONDS',
  recordingMaxInFlightPerTenant: 'CXM_RECORDING_MAX_IN_FLIGHT',
  recordingMaxSeconds: 'CXM_RECORDING_MAX_SECONDS',
  /** `true` or `false`: whether Call Analytics is asked for a generative call summary. */
  recordingCallSummaries: 'CXM_RECORDING_CALL_SUMMARIES',
  /** A tenant's webhook endpoints at most (`webhooks.maxEndpointsPerTenant`). */
  webhookMaxEndpoints: 'CXM_WEBHOOK_MAX_ENDPOINTS',
  /**
   * `stage` or `local`: which webhook targets are allowed (shared/domain/webhooks/webhook-target.ts).
   * CDK sets `stage`; only the local runtime sets `local`, and unset is `stage`.
   */
  webhookTargets: 'CXM_WEBHOOK_TARGETS',
  /**
   * Comma-separated hosts the API itself answers on (`host` or `host:port`): no webhook may target
   * them. CDK sets the stage's execute-api host; the local gateway its own.
   */
  apiHosts: 'CXM_API_HOSTS',
  /**
   * The key that seals webhook signing secrets at rest (shared/secrets/webhook-secret-box.ts):
   * locally the value and the one before a local rotation, in the cloud a Secrets Manager ARN.
   */
  webhookSecretKey: 'CXM_WEBHOOK_SECRET_KEY',
  webhookSecretKeyPrevious: 'CXM_WEBHOOK_SECRET_KEY_PREVIOUS',
  webhookSecretKeyArn: 'CXM_WEBHOOK_SECRET_KEY_ARN',
  /**
   * The public key of that key's current value (base64url X25519): all the functions that make
   * signing secrets hold, so they seal without reading the secret. CDK sets it from the secret
   * (infra/cdk/constructs/webhook-sealing-key.ts); the local runtime from its key file.
   */
  webhookSealingKey: 'CXM_WEBHOOK_SEALING_KEY',
  /** Comma-separated waits in ms before each delivery attempt, instead of the stage's schedule (a local setting). */
  webhookRetrySchedule: 'CXM_WEBHOOK_RETRY_SCHEDULE_MS',
  /** The queue of webhook delivery tasks: its URL (the fan-out and the delivery function send to it). */
  webhookQueueUrl: 'CXM_WEBHOOK_QUEUE_URL',
  /** The role Transcribe assumes to read a recording and write its output (both kinds of job). */
  transcribeRoleArn: 'CXM_TRANSCRIBE_ROLE_ARN',
} as const;
