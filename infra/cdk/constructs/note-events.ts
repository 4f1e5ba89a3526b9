/**
 * NoteCreated: every committed internal note becomes an event on the stage's bus `cxm-<stage>`,
 * carried from the conversations table's stream by an EventBridge Pipe (filter + input template, no
 * code). The note function publishes nothing itself, so a 201 never waits for the event nor fails
 * on it. Delivery is at least once (a retried batch is sent again): subscribers deduplicate on noteId.
 */
import { Aws } from 'aws-cdk-lib';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import { Construct } from 'constructs';
import { NOTE_SK_PREFIX } from '#shared/store/conversations-store';
import { tableSpecs } from '#shared/store/table-specs';
import type { StageConfig } from '../stage/config.ts';
import type { SpecTable } from './data.ts';

export const NOTE_EVENT_SOURCE = 'cxm.conversations';
export const NOTE_CREATED_DETAIL_TYPE = 'NoteCreated';

const sortKey = tableSpecs.conversations.sortKey!.name;

/**
 * The stream records of new notes: INSERTs whose sort key starts `NOTE#`. The conversation item
 * (sk `CONVERSATION`) and every MODIFY or REMOVE stop here. Notes are only ever inserted (the store
 * puts them under `attribute_not_exists`), so an INSERT is exactly one committed note.
 */
export const NOTE_INSERT_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { Keys: { [sortKey]: { S: [{ prefix: NOTE_SK_PREFIX }] } } },
};

/** Detail field -> the note item's attribute it comes from (all strings, as the store writes them). */
const DETAIL_SOURCES = {
  tenantId: 'tenantId',
  conversationId: 'conversationId',
  noteId: 'id',
  createdAt: 'createdAt',
} as const;

/**
 * The event detail `{tenantId, conversationId, noteId, createdAt}`. Every placeholder stands alone
 * inside JSON quotes, the form the Pipes documentation prescribes for string values ("to ensure a
 * valid JSON output"). That escaping matters: a conversationId may hold `"` or control characters
 * (the identifier rules only forbid `/` and `\`), while tenant ids cannot (TENANT_ID_PATTERN) and
 * note ids and timestamps are ours. test/support/render-pipe-template.ts renders it the same way.
 */
export const NOTE_CREATED_TEMPLATE = `{${Object.entries(DETAIL_SOURCES)
  .map(([field, attribute]) => `"${field}":"<$.dynamodb.NewImage.${attribute}.S>"`)
  .join(',')}}`;

export class NoteEvents extends Construct {
  readonly bus: EventBus;
  readonly pipe: CfnPipe;

  constructor(scope: Construct, id: string, props: { config: StageConfig; conversations: SpecTable }) {
    super(scope, id);
    const { config, conversations } = props;
    const streamArn = conversations.tableStreamArn;
    if (!streamArn) throw new Error('the conversations table has no stream: NoteCreated needs one (table-specs)');

    this.bus = new EventBus(this, 'Bus', { eventBusName: `cxm-${config.stage}` });

    const pipeName = `cxm-${config.stage}-note-created`;
    const role = new Role(this, 'PipeRole', {
      description: 'NoteCreated pipe: reads the conversations stream, puts events on the stage bus',
      // Only this pipe of this account may assume it (confused deputy).
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': Aws.ACCOUNT_ID,
            'aws:SourceArn': `arn:${Aws.PARTITION}:pipes:${Aws.REGION}:${Aws.ACCOUNT_ID}:pipe/${pipeName}`,
          },
        },
      }),
    });
    // The four actions the Pipes documentation lists for a DynamoDB source, on this stream only
    // (CDK's grantStreamRead would add ListStreams on `*`).
    role.addToPolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:DescribeStream',
          'dynamodb:GetRecords',
          'dynamodb:GetShardIterator',
          'dynamodb:ListStreams',
        ],
        resources: [streamArn],
      }),
    );
    this.bus.grantPutEventsTo(role);

    this.pipe = new CfnPipe(this, 'Pipe', {
      name: pipeName,
      description: 'Conversations stream (note inserts) -> NoteCreated on the stage bus',
      roleArn: role.roleArn,
      source: streamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          // Not TRIM_HORIZON: a replaced pipe must not announce a day of old notes again.
          startingPosition: 'LATEST',
          // PutEvents takes at most 10 entries. Failed batches are retried until their records
          // leave the stream (24 h): an event is late rather than lost.
          batchSize: 10,
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(NOTE_INSERT_PATTERN) }] },
      },
      target: this.bus.eventBusArn,
      targetParameters: {
        eventBridgeEventBusParameters: { source: NOTE_EVENT_SOURCE, detailType: NOTE_CREATED_DETAIL_TYPE },
        inputTemplate: NOTE_CREATED_TEMPLATE,
      },
    });
    // The pipe starts reading as soon as it exists: its role's policy must be in place by then.
    this.pipe.node.addDependency(role);
  }
}
