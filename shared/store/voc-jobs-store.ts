/**
 * VOC recording jobs, one item each at pk `<tenant>#<jobId>`. Status changes are conditional
 * updates, so a job leaves `started` once and for all, whatever races it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { JOB_STATUSES, type FinalJobStatus, type JobStatus, type VocJob } from '#shared/domain/voc/job-status';
import { tenantKey } from './composite-key.ts';

export type TransitionOutcome = 'done' | 'not-found' | 'not-started';

export interface VocJobsStore {
  get(tenantId: string, jobId: string): Promise<VocJob | undefined>;
  put(tenantId: string, job: VocJob): Promise<void>;
  /** started -> completed | failed, or why not. */
  finish(tenantId: string, jobId: string, status: FinalJobStatus): Promise<TransitionOutcome>;
}

function toJob(item: Record<string, unknown>): VocJob {
  const status = JOB_STATUSES.includes(item.status as JobStatus) ? (item.status as JobStatus) : 'started';
  return { id: String(item.jobId), status, started: Number(item.started), file: String(item.file), recordingId: String(item.recordingId) };
}

export function createVocJobsStore(client: DynamoDBDocumentClient, table: string): VocJobsStore {
  return {
    async get(tenantId, jobId) {
      const pk = tenantKey(tenantId, jobId);
      if (pk === undefined) return undefined;
      const { Item } = await client.send(new GetCommand({ TableName: table, Key: { pk } }));
      return Item ? toJob(Item) : undefined;
    },

    async put(tenantId, job) {
      const pk = tenantKey(tenantId, job.id);
      if (pk === undefined) throw new RangeError('job id too long to store');
      const { id, ...fields } = job;
      await client.send(new PutCommand({ TableName: table, Item: { pk, tenantId, jobId: id, ...fields } }));
    },

    async finish(tenantId, jobId, status) {
      const pk = tenantKey(tenantId, jobId);
      if (pk === undefined) return 'not-found';
      try {
        await client.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk },
            UpdateExpression: 'SET #status = :to, finishedAt = :now',
            ConditionExpression: '#status = :started',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':to': status, ':started': 'started', ':now': Date.now() },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'done';
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return error.Item ? 'not-started' : 'not-found';
      }
    },
  };
}
