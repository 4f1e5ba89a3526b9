/**
 * Permissions a role of the stack holds that no AWS call recorded in the test run exercises, each
 * with why it is granted all the same. test/infra/iam-simulation.test.ts holds every other grant to
 * a recorded call of its function, and fails on any grant left unexercised and unlisted here, and on
 * an entry that matches no such grant (so this list cannot go stale).
 *
 * The calls are recorded in the sources runtime (infra/local/emulators/record-aws-calls.ts): what the
 * function's own code calls. What the Lambda service does with a function's role (its logs, its
 * traces, its on-failure destination) and what only a stage runs is here, by name.
 */
export interface UnexercisedGrant {
  /** The function (route id, `authorizer`, `processRecording`), `transcribeDataAccess`, or `*` for every one. */
  principal: string;
  action: string;
  /** The granted resource as the simulation resolves it (the stage written `<stage>`); `*` wildcards allowed. */
  resource: string;
  why: string;
}

/**
 * The webhook functions: what the Lambda service does with their roles (reading the tables'
 * streams and the queue, the fan-out's dead-letter queue), and what CDK's grant to send to a queue
 * adds beside SendMessage.
 */
function webhookFunctionGrants(): UnexercisedGrant[] {
  return [
    ...['fanOutWebhooks', 'deliverWebhooks', 'sweepWebhooks', 'recoverWebhookDeliveries'].flatMap((principal) =>
      ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => ({
        principal,
        action,
        resource: '*:cxm-<stage>-webhook-deliveries',
        why: "CDK's grant to send to a queue adds them; the code only sends (SendMessageBatch), to the URL it is given.",
      })),
    ),
    ...['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map(
      (action) => ({
        principal: 'fanOutWebhooks',
        action,
        resource: '*',
        why: "The event source mappings: the Lambda service reads the tables' streams with the fan-out's role and hands it the records its filters let through; the fan-out's code never reads a stream.",
      }),
    ),
    ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => ({
      principal: 'fanOutWebhooks',
      action,
      resource: '*:cxm-<stage>-webhook-fan-out-dlq',
      why: "The event source mappings' on-failure destination: the Lambda service records a batch the fan-out failed on in its dead-letter queue with the fan-out's role.",
    })),
    ...['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'].map((action) => ({
      principal: 'deliverWebhooks',
      action,
      resource: '*:cxm-<stage>-webhook-deliveries',
      why: "The event source mapping: the Lambda service takes the delivery tasks from the queue with the function's role, and deletes those the function settled.",
    })),
  ];
}

/** A keyed write's record, read back only when a concurrent request holds its claim. */
const CONCURRENT_CLAIM =
  "Read only when a concurrent request with the same Idempotency-Key holds the key's claim (shared/store/idempotency-ledger.ts, recordLookupOnce): a race the tests prove for notes over HTTP, whose timing seldom sends this read.";

export const UNEXERCISED_GRANTS: readonly UnexercisedGrant[] = [
  {
    principal: '*',
    action: 'logs:CreateLogStream',
    resource: '*',
    why: "The Lambda service writes a function's logs to its own log group with the function's role; the function's code never calls CloudWatch Logs.",
  },
  {
    principal: '*',
    action: 'logs:PutLogEvents',
    resource: '*',
    why: 'As logs:CreateLogStream: the Lambda service sends the log lines with the role.',
  },
  {
    principal: '*',
    action: 'xray:PutTraceSegments',
    resource: '*',
    why: "Active tracing: the Lambda service sends each invocation's trace segments with the role; no X-Ray runs locally.",
  },
  {
    principal: '*',
    action: 'xray:PutTelemetryRecords',
    resource: '*',
    why: "As xray:PutTraceSegments: the tracing daemon's telemetry.",
  },
  ...[
    'addInternalNote',
    'replaceCurrentDocument',
    'mergeCurrentDocument',
    'restoreDocumentVersion',
    'createRecording',
    'createWebhookEndpoint',
    'rotateWebhookSecret',
  ].map((principal) => ({
    principal,
    action: 'dynamodb:GetItem',
    resource: '*:table/cxm-<stage>-idempotency',
    why: CONCURRENT_CLAIM,
  })),
  ...['listAssistantConversations', 'listVocConversations'].map((principal) => ({
    principal,
    action: 'secretsmanager:GetSecretValue',
    resource: '*:secret:cxm-<stage>-cursor-secret-*',
    why: 'The cursor key is read from Secrets Manager on a stage and in bundle mode (through the local stand-in, test/integration/bundle-wiring); the sources runtime, whose calls are recorded, is handed the key in its environment.',
  })),
  {
    principal: 'authorizer',
    action: 'secretsmanager:GetSecretValue',
    resource: '*:secret:cxm-<stage>-key-tag-secret-*',
    why: 'The key-tag secret is read from Secrets Manager on a stage and in bundle mode (through the local stand-in: test/integration/key-tags proves a tagged key, and one tagged under AWSPREVIOUS, over it); the sources runtime, whose calls are recorded, is handed the secret in its environment.',
  },
  {
    principal: 'deliverWebhooks',
    action: 'secretsmanager:GetSecretValue',
    resource: '*:secret:cxm-<stage>-webhook-secret-key-*',
    why: 'The key that opens webhook signing secrets is read from Secrets Manager on a stage and in bundle mode (through the local stand-in: test/integration/webhooks signs deliveries that verify over it); the sources runtime, whose calls are recorded, is handed the key in its environment.',
  },
  ...['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'].map((action) => ({
    principal: 'publishWebhookSealingKey',
    action,
    resource: '*:secret:cxm-<stage>-webhook-secret-key-*',
    why: "The webhook sealing key's custom resource runs at a deploy only, where no recorded runtime reaches; test/integration/webhook-sealing-key runs its handler against the Secrets Manager stand-in (a read at create, a put and a read at a rotation).",
  })),
  ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => ({
    principal: 'processRecording',
    action,
    resource: '*:cxm-<stage>-recording-processor-dlq',
    why: "The processor's on-failure destination: the Lambda service sends an event the function failed on, after its retries, to the dead-letter queue with the function's role (CDK's SqsDestination grants these).",
  })),
  ...['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'].map(
    (action) => ({
      principal: 'reporting-indexer',
      action,
      resource: '*',
      why: "The event source mapping: the Lambda service reads the reporting table's stream with the indexer's role and hands it batches; the indexer's code never reads the stream.",
    }),
  ),
  ...['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].map((action) => ({
    principal: 'reporting-indexer',
    action,
    resource: '*:cxm-<stage>-reporting-indexer-dlq',
    why: "The event source mapping's on-failure destination: the Lambda service records a batch the indexer failed on in the dead-letter queue with the indexer's role.",
  })),
  ...webhookFunctionGrants(),
  {
    principal: 'transcribeDataAccess',
    action: 's3:ListBucket',
    resource: 'arn:aws:s3:::cxm-<stage>-recordings-*',
    why: "AWS's example data-access role for Transcribe grants it on the input bucket; Transcribe does not document when it lists, and the local stand-in never does. Kept so a real stage's jobs never fail on it.",
  },
];
