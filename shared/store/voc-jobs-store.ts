/**
 * VOC recording jobs, one item each at pk `<tenant>#<jobId>`. Every status change is a conditional
 * update on `status = started`, so a job leaves `started` once and for all, whatever races it
 * (duplicate events, a retry beside a deadline, an operator). A job created by an upload is one
 * transaction with its Idempotency-Key record, as every keyed write.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotencyRecord } from '#shared/domain/idempotency/recorded-response';
import { ANALYSIS_KINDS, type AnalysisKind } from '#shared/domain/voc/analysis-kind';
import {
  type FinalJobStatus,
  JOB_STATUSES,
  type JobStatus,
  type OverdueBasis,
  type StoredVocJob,
  type VocJob,
  type VocJobUpload,
} from '#shared/domain/voc/job-status';
import { tenantKey } from './composite-key.ts';
import { type RecordRequest, recordLookupOnce } from './idempotency-ledger.ts';
import type { StopSignal } from './stop-signal.ts';
import { StoreUnavailableError } from './store-unavailable-error.ts';
import { backoff, CONTENDED_ITEM } from './write-retry.ts';

export type TransitionOutcome = 'done' | 'not-found' | 'not-started';

export type CreateJobOutcome =
  | { kind: 'created' }
  | { kind: 'recorded'; record: IdempotencyRecord }
  /** The tenant has its most recordings in flight already: nothing was written. */
  | { kind: 'busy'; limit: number };

/** A processing attempt's view of its job: the job as it stood, or why there is nothing to do. */
export type AttemptOutcome =
  | { kind: 'attempt'; job: StoredVocJob; attempt: number }
  | { kind: 'not-found' }
  | { kind: 'not-started'; job: StoredVocJob }
  /** The job exists but its file is another (or it has no upload): nothing was counted. */
  | { kind: 'other-file'; job: StoredVocJob };

export interface VocJobsStore {
  get(tenantId: string, jobId: string): Promise<StoredVocJob | undefined>;
  /** An operator's import: the job as given, overwriting one of the same id. */
  put(tenantId: string, job: VocJob): Promise<void>;
  /**
   * A new upload's job, with its Idempotency-Key record when the request has one, and counted among
   * the tenant's recordings in flight: refused (`busy`) when `inFlightLimit` of them are already.
   * The job is listed by `openJobs` until it finishes.
   */
  create(
    tenantId: string,
    job: StoredVocJob,
    options: { inFlightLimit: number; signal?: StopSignal; record?: RecordRequest<void> },
  ): Promise<CreateJobOutcome>;
  /**
   * Counts one attempt at `eventId` for a `started` job (a new event starts again at 1: a duplicate
   * delivery is no retry) and notes when its file first arrived. With `file`, only if that is the
   * job's own upload: checked in the same conditional update, so a stray object counts nothing.
   */
  beginAttempt(tenantId: string, jobId: string, eventId: string, nowMs: number, file?: string): Promise<AttemptOutcome>;
  /**
   * started -> completed | failed, or why not, in one step with the tenant's count of recordings in
   * flight when the job counts there. A failure keeps its reason; `basis` makes the transition
   * conditional on what an overdue verdict saw (the file had not arrived, or arrived then).
   */
  finish(
    tenantId: string,
    job: Pick<StoredVocJob, 'id' | 'upload'>,
    status: FinalJobStatus,
    options?: { reason?: string; basis?: OverdueBasis },
  ): Promise<TransitionOutcome>;
  /** Notes that a `started` job's recording went to `kind` (and how long the file is). The first submission's time stays. */
  markAnalysisSubmitted(
    tenantId: string,
    jobId: string,
    kind: AnalysisKind,
    nowMs: number,
    audioSeconds?: number,
  ): Promise<TransitionOutcome>;
  /**
   * The upload jobs still `started` that were created before `openedBeforeMs`, oldest first, at
   * most `limit`: across tenants, the one read that is, for the processor's sweep (each job is then
   * read and finished through the tenant's own calls).
   */
  openJobs(openedBeforeMs: number, limit: number): Promise<{ tenantId: string; jobId: string }[]>;
  /** How many of the tenant's recordings are in flight (upload jobs still `started`). */
  inFlight(tenantId: string): Promise<number>;
}

/** The value of `openJob` on a job of the sparse index `byOpenJob`. */
const OPEN = 'open';

/**
 * The item counting a tenant's recordings in flight, beside its jobs: `/` is in no tenant id or
 * job id, so no job's key (`<tenant>#<jobId>`) can be it.
 */
const inFlightKey = (tenantId: string) => `${tenantId}/recordings-in-flight`;

const UPLOAD_FIELDS = [
  'contentType',
  'sizeBytes',
  'fileName',
  'uploadExpiresAt',
  'uploadedAt',
  'attempts',
  'attemptEvent',
  'audioSeconds',
  'analysisSubmittedAt',
  'keyId',
  'countsInFlight',
] as const;

/** A job as its item (or a stream image of it) holds it. */
export function toJob(item: Record<string, unknown>): StoredVocJob {
  const status = JOB_STATUSES.includes(item.status as JobStatus) ? (item.status as JobStatus) : 'started';
  const job: StoredVocJob = {
    id: String(item.jobId),
    status,
    started: Number(item.started),
    file: String(item.file),
    recordingId: String(item.recordingId),
  };
  if (status === 'failed' && typeof item.failureReason === 'string') job.failureReason = item.failureReason;
  if (ANALYSIS_KINDS.includes(item.analysis as AnalysisKind)) job.analysis = item.analysis as AnalysisKind;
  if (typeof item.uploadExpiresAt === 'number') {
    job.upload = Object.fromEntries(
      UPLOAD_FIELDS.flatMap((field) => (item[field] === undefined ? [] : [[field, item[field]]])),
    ) as unknown as VocJobUpload;
  }
  return job;
}

function jobItem(pk: string, tenantId: string, job: StoredVocJob): Record<string, unknown> {
  const { id, upload, ...fields } = job;
  return { pk, tenantId, jobId: id, ...fields, ...upload };
}

const MAX_ATTEMPTS = 5;

export function createVocJobsStore(client: DynamoDBDocumentClient, table: string): VocJobsStore {
  const key = (tenantId: string, jobId: string) => tenantKey(tenantId, jobId);
  return {
    async get(tenantId, jobId) {
      const pk = key(tenantId, jobId);
      if (pk === undefined) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }));
      return Item ? toJob(Item) : undefined;
    },

    async put(tenantId, job) {
      const pk = key(tenantId, job.id);
      if (pk === undefined) throw new RangeError('job id too long to store');
      await client.send(new PutCommand({ TableName: table, Item: jobItem(pk, tenantId, job) }));
    },

    async create(tenantId, job, { inFlightLimit, signal, record }) {
      const pk = key(tenantId, job.id);
      if (pk === undefined) throw new RangeError('job id too long to store');
      const concurrentRecord = recordLookupOnce(tenantId, record, signal);
      const counted: StoredVocJob = { ...job, ...(job.upload && { upload: { ...job.upload, countsInFlight: true } }) };
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (signal?.aborted) throw new StoreUnavailableError(`job ${job.id} abandoned at the deadline`);
        const nowMs = Date.now();
        const put = {
          TableName: table,
          Item: { ...jobItem(pk, tenantId, counted), openJob: OPEN, openedAt: job.started },
          ConditionExpression: 'attribute_not_exists(pk)',
        };
        const count = {
          TableName: table,
          Key: { pk: inFlightKey(tenantId) },
          UpdateExpression: 'ADD inFlight :one SET tenantId = :tenant',
          ConditionExpression: 'attribute_not_exists(inFlight) OR inFlight < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': inFlightLimit, ':tenant': tenantId },
        };
        try {
          await client.send(
            new TransactWriteCommand({
              // A retried call whose answer was lost is a no-op rather than a refusal of its own job;
              // the token names the tenant's job, as job ids alone are unique only within a tenant.
              ClientRequestToken: `${createHash('sha256').update(pk).digest('base64url').slice(0, 32)}.${attempt}`,
              TransactItems: [
                { Put: put },
                { Update: count },
                ...(record ? [record.ledger.recordItem(tenantId, record.claim, record.response(), nowMs)] : []),
              ],
            }),
            { abortSignal: signal },
          );
          return { kind: 'created' };
        } catch (error) {
          if (signal?.aborted)
            throw new StoreUnavailableError(`job ${job.id} abandoned at the deadline`, { cause: error });
          if (!(error instanceof TransactionCanceledException)) throw error;
          const [jobReason, countReason, claim] = error.CancellationReasons ?? [];
          // Job ids are fresh ULIDs: the id exists only if this very request wrote it already.
          if (jobReason?.Code === 'ConditionalCheckFailed') return { kind: 'created' };
          const held = record?.ledger.heldBy(claim);
          if (held) return { kind: 'recorded', record: held };
          if (countReason?.Code === 'ConditionalCheckFailed') {
            // A keyed retry of a create that once went through answers what it recorded, busy or not.
            const found = await concurrentRecord();
            return found ? { kind: 'recorded', record: found } : { kind: 'busy', limit: inFlightLimit };
          }
          const found = await concurrentRecord();
          if (found) return { kind: 'recorded', record: found };
          await backoff(attempt, CONTENDED_ITEM);
        }
      }
      throw new StoreUnavailableError(`job ${job.id} kept conflicting after ${MAX_ATTEMPTS} attempts`);
    },

    async beginAttempt(tenantId, jobId, eventId, nowMs, file) {
      const pk = key(tenantId, jobId);
      if (pk === undefined) return { kind: 'not-found' };
      const update = (sameEvent: boolean) =>
        client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk },
            UpdateExpression: sameEvent
              ? 'SET uploadedAt = if_not_exists(uploadedAt, :now) ADD attempts :one'
              : 'SET uploadedAt = if_not_exists(uploadedAt, :now), attempts = :one, attemptEvent = :event',
            ConditionExpression:
              (sameEvent
                ? '#status = :started AND attemptEvent = :event'
                : '#status = :started AND (attribute_not_exists(attemptEvent) OR attemptEvent <> :event)') +
              (file === undefined ? '' : ' AND #file = :file AND attribute_exists(uploadExpiresAt)'),
            ExpressionAttributeNames: { '#status': 'status', ...(file !== undefined && { '#file': 'file' }) },
            ExpressionAttributeValues: {
              ':now': nowMs,
              ':one': 1,
              ':started': 'started',
              ':event': eventId,
              ...(file !== undefined && { ':file': file }),
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
      // First as a retry of the event the job last saw (the common case on a retry), else as a new one.
      for (const sameEvent of [true, false]) {
        try {
          const { Attributes } = await update(sameEvent);
          const job = toJob(Attributes!);
          return { kind: 'attempt', job, attempt: job.upload?.attempts ?? 1 };
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          if (!error.Item) return { kind: 'not-found' };
          const job = toJob(unmarshall(error.Item));
          if (job.status !== 'started') return { kind: 'not-started', job };
          if (file !== undefined && (job.file !== file || !job.upload)) return { kind: 'other-file', job };
        }
      }
      throw new StoreUnavailableError(`job ${jobId} changed between its two attempt updates`);
    },

    async finish(tenantId, job, status, { reason, basis } = {}) {
      const pk = key(tenantId, job.id);
      if (pk === undefined) return 'not-found';
      const seen =
        basis === undefined
          ? ''
          : basis.uploadedAt === undefined
            ? ' AND attribute_not_exists(uploadedAt)'
            : ' AND uploadedAt = :seen';
      const update = {
        TableName: table,
        Key: { pk },
        // A finished job leaves the sparse index of open jobs.
        UpdateExpression: `SET #status = :to, finishedAt = :now${reason === undefined ? '' : ', failureReason = :reason'} REMOVE openJob`,
        ConditionExpression: `#status = :started${seen}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':to': status,
          ':started': 'started',
          ':now': Date.now(),
          ...(reason !== undefined && { ':reason': reason }),
          ...(basis?.uploadedAt !== undefined && { ':seen': basis.uploadedAt }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      };
      try {
        if (!job.upload?.countsInFlight) {
          await client.send(new UpdateCommand(update));
          return 'done';
        }
        // Only the transition that leaves `started` takes the job off the tenant's count.
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: update },
              {
                Update: {
                  TableName: table,
                  Key: { pk: inFlightKey(tenantId) },
                  UpdateExpression: 'ADD inFlight :minusOne',
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
            ],
          }),
        );
        return 'done';
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return error.Item ? 'not-started' : 'not-found';
        if (
          error instanceof TransactionCanceledException &&
          error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed'
        ) {
          return error.CancellationReasons[0].Item ? 'not-started' : 'not-found';
        }
        throw error;
      }
    },

    async markAnalysisSubmitted(tenantId, jobId, kind, nowMs, audioSeconds) {
      const pk = key(tenantId, jobId);
      if (pk === undefined) return 'not-found';
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk },
            UpdateExpression: `SET analysis = :kind, analysisSubmittedAt = if_not_exists(analysisSubmittedAt, :now)${audioSeconds === undefined ? '' : ', audioSeconds = :seconds'}`,
            ConditionExpression: '#status = :started',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':kind': kind,
              ':now': nowMs,
              ':started': 'started',
              ...(audioSeconds !== undefined && { ':seconds': audioSeconds }),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'done';
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return error.Item ? 'not-started' : 'not-found';
      }
    },

    async openJobs(openedBeforeMs, limit) {
      const found: { tenantId: string; jobId: string }[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: table,
            IndexName: 'byOpenJob',
            KeyConditionExpression: 'openJob = :open AND openedAt < :before',
            ExpressionAttributeValues: { ':open': OPEN, ':before': openedBeforeMs },
            ProjectionExpression: 'tenantId, jobId',
            Limit: limit - found.length,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) found.push({ tenantId: String(item.tenantId), jobId: String(item.jobId) });
        start = page.LastEvaluatedKey;
      } while (start && found.length < limit);
      return found;
    },

    async inFlight(tenantId) {
      const { Item } = await client.send(
        new GetCommand({ TableName: table, Key: { pk: inFlightKey(tenantId) }, ConsistentRead: true }),
      );
      return Number(Item?.inFlight ?? 0);
    },
  };
}
