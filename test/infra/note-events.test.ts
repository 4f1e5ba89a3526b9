/**
 * NoteCreated in the synthesized stack: the conversations stream feeds one pipe that filters note
 * inserts, shapes the detail and puts it on the stage bus, with a role that can do nothing else.
 * The templates are the run's syntheses of the stages (test/support/stage-templates.ts).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { physicalTableName } from '#shared/store/table-specs';
import { loadStageTemplates } from '#test/support/stage-templates';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  DependsOn?: string[];
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Principal?: unknown;
  Condition?: unknown;
}

const templates = new Map<string, Template>();

beforeAll(async () => {
  for (const { name, template } of await loadStageTemplates(['dev', 'lite']))
    templates.set(name, Template.fromJSON(template));
});

const dev = () => templates.get('dev')!;

function only(template: Template, type: string): [string, CfnResource] {
  const found = Object.entries(template.findResources(type)) as [string, CfnResource][];
  expect(found, type).toHaveLength(1);
  return found[0]!;
}

function logicalIdOfTable(template: Template, stage: string): string {
  const [id] = Object.entries(template.findResources('AWS::DynamoDB::Table')).find(
    ([, table]) => (table as CfnResource).Properties.TableName === physicalTableName(stage, 'conversations'),
  )!;
  return id;
}

describe('the NoteCreated pipe', () => {
  it('reads the conversations table stream (new images) and targets the stage bus', () => {
    const tableId = logicalIdOfTable(dev(), 'dev');
    const [busId, bus] = only(dev(), 'AWS::Events::EventBus');
    expect(bus.Properties).toEqual({ Name: 'cxm-dev' });
    expect(dev().toJSON().Resources[tableId].Properties.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    const [, pipe] = only(dev(), 'AWS::Pipes::Pipe');
    expect(pipe.Properties).toMatchObject({
      Name: 'cxm-dev-note-created',
      Source: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      Target: { 'Fn::GetAtt': [busId, 'Arn'] },
      SourceParameters: { DynamoDBStreamParameters: { StartingPosition: 'LATEST', BatchSize: 10 } },
    });
  });

  it('filters note inserts: eventName INSERT and a sort key beginning NOTE#', () => {
    const [, pipe] = only(dev(), 'AWS::Pipes::Pipe');
    const { Filters } = (
      pipe.Properties.SourceParameters as { FilterCriteria: { Filters: Array<{ Pattern: string }> } }
    ).FilterCriteria;
    expect(Filters.map((filter) => JSON.parse(filter.Pattern) as unknown)).toEqual([
      { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'NOTE#' }] } } } },
    ]);
  });

  it('sends source cxm.conversations, detail-type NoteCreated, and the detail template', () => {
    const [, pipe] = only(dev(), 'AWS::Pipes::Pipe');
    expect(pipe.Properties.TargetParameters).toEqual({
      EventBridgeEventBusParameters: { Source: 'cxm.conversations', DetailType: 'NoteCreated' },
      InputTemplate:
        '{"tenantId":"<$.dynamodb.NewImage.tenantId.S>","conversationId":"<$.dynamodb.NewImage.conversationId.S>",' +
        '"noteId":"<$.dynamodb.NewImage.id.S>","createdAt":"<$.dynamodb.NewImage.createdAt.S>"}',
    });
  });

  it('its role: assumable by this pipe only, reads this stream, puts events on this bus, nothing more', () => {
    const template = dev().toJSON().Resources as Record<string, CfnResource>;
    const [pipeId, pipe] = only(dev(), 'AWS::Pipes::Pipe');
    const roleId = (pipe.Properties.RoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const trust = (template[roleId]!.Properties.AssumeRolePolicyDocument as { Statement: Statement[] }).Statement;
    expect(trust).toHaveLength(1);
    expect(trust[0]).toMatchObject({
      Effect: 'Allow',
      Action: 'sts:AssumeRole',
      Principal: { Service: 'pipes.amazonaws.com' },
    });
    expect(JSON.stringify(trust[0]!.Condition)).toContain(':pipe/cxm-dev-note-created');

    const policies = Object.entries(template).filter(
      ([, resource]) =>
        resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties.Roles).includes(roleId),
    );
    expect(policies).toHaveLength(1);
    const [policyId, policy] = policies[0]!;
    const statements = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
    const [busId] = only(dev(), 'AWS::Events::EventBus');
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        Resource: { 'Fn::GetAtt': [logicalIdOfTable(dev(), 'dev'), 'StreamArn'] },
      },
      { Effect: 'Allow', Action: 'events:PutEvents', Resource: { 'Fn::GetAtt': [busId, 'Arn'] } },
    ]);
    // The pipe reads from the moment it exists: the policy comes first.
    expect(template[pipeId]!.DependsOn).toContain(policyId);
  });

  it('outputs the bus name', () => {
    const [busId] = only(dev(), 'AWS::Events::EventBus');
    expect(dev().toJSON().Outputs.EventBusName.Value).toEqual({ Ref: busId });
  });

  it('exists on a stage without the search domain too (lite)', () => {
    const lite = templates.get('lite')!;
    const [, pipe] = only(lite, 'AWS::Pipes::Pipe');
    expect(pipe.Properties.Source).toEqual({ 'Fn::GetAtt': [logicalIdOfTable(lite, 'lite'), 'StreamArn'] });
    lite.hasResourceProperties('AWS::Events::EventBus', { Name: 'cxm-lite' });
  });
});
