/**
 * The policy statements of a template are found wherever a template can hold them: the kinds this
 * stack does not synthesize today (managed policies, a role's inline policies, a domain's access
 * policy, a policy as JSON text) included, so that a construct that adds one is checked too.
 */
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '#test/support/stage-templates';
import { policyStatements } from '#test/support/template-policy-documents';

const statement = (action: string) => ({ Effect: 'Allow', Action: action, Resource: '*' });
const document = (...actions: string[]) => ({ Version: '2012-10-17', Statement: actions.map(statement) });

const template: CfnTemplate = {
  Resources: {
    Managed: {
      Type: 'AWS::IAM::ManagedPolicy',
      Properties: { PolicyDocument: document('s3:GetObject', 's3:PutObject') },
    },
    Role: {
      Type: 'AWS::IAM::Role',
      Properties: {
        AssumeRolePolicyDocument: {
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
        Policies: [{ PolicyName: 'inline', PolicyDocument: document('sqs:SendMessage') }],
        ManagedPolicyArns: [{ Ref: 'Managed' }],
      },
    },
    Domain: { Type: 'AWS::OpenSearchService::Domain', Properties: { AccessPolicies: document('es:ESHttpGet') } },
    LogPolicy: {
      Type: 'AWS::Logs::ResourcePolicy',
      Properties: { PolicyName: 'p', PolicyDocument: JSON.stringify(document('logs:PutLogEvents')) },
    },
    BusPolicy: {
      Type: 'AWS::Events::EventBusPolicy',
      Properties: {
        StatementId: 's',
        Statement: { Effect: 'Allow', Principal: '*', Action: 'events:PutEvents', Resource: '*' },
      },
    },
    Custom: {
      Type: 'Custom::Anything',
      Properties: {
        Create: {
          'Fn::Join': [
            '',
            [
              '{"parameters":{"policyDocument":"{\\"Statement\\":[{\\"Effect\\":\\"Allow\\",\\"Action\\":\\"logs:CreateLogStream\\",\\"Resource\\":\\"',
              { 'Fn::GetAtt': ['Group', 'Arn'] },
              '\\"}]}"}}',
            ],
          ],
        },
      },
    },
    Permission: {
      Type: 'AWS::Lambda::Permission',
      Properties: { Action: 'lambda:InvokeFunction', FunctionName: 'f', Principal: 'apigateway.amazonaws.com' },
    },
    Table: {
      Type: 'AWS::DynamoDB::Table',
      Properties: { TableName: 't', KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }] },
    },
    Dashboard: {
      Type: 'AWS::CloudWatch::Dashboard',
      Properties: {
        DashboardBody: {
          'Fn::Join': ['', ['{"widgets":[{"type":"metric","properties":{"region":"', { Ref: 'AWS::Region' }, '"}}]}']],
        },
      },
    },
  },
};

describe('policyStatements', () => {
  it('finds every statement with its location, wherever the template holds it, and nothing else', () => {
    const found = policyStatements(template).map(({ location, resourceType, statement }) => [
      location,
      resourceType,
      statement.Action,
    ]);
    expect(found).toEqual([
      ['Resources/Managed/Properties/PolicyDocument/Statement/0', 'AWS::IAM::ManagedPolicy', 's3:GetObject'],
      ['Resources/Managed/Properties/PolicyDocument/Statement/1', 'AWS::IAM::ManagedPolicy', 's3:PutObject'],
      ['Resources/Role/Properties/AssumeRolePolicyDocument/Statement/0', 'AWS::IAM::Role', 'sts:AssumeRole'],
      ['Resources/Role/Properties/Policies/0/PolicyDocument/Statement/0', 'AWS::IAM::Role', 'sqs:SendMessage'],
      ['Resources/Domain/Properties/AccessPolicies/Statement/0', 'AWS::OpenSearchService::Domain', 'es:ESHttpGet'],
      [
        'Resources/LogPolicy/Properties/PolicyDocument (JSON)/Statement/0',
        'AWS::Logs::ResourcePolicy',
        'logs:PutLogEvents',
      ],
      ['Resources/BusPolicy/Properties/Statement', 'AWS::Events::EventBusPolicy', 'events:PutEvents'],
      [
        'Resources/Custom/Properties/Create (JSON)/parameters/policyDocument (JSON)/Statement/0',
        'Custom::Anything',
        'logs:CreateLogStream',
      ],
      ['Resources/Permission/Properties/Action', 'AWS::Lambda::Permission', 'lambda:InvokeFunction'],
    ]);
  });

  it('keeps the statement as written, an intrinsic inside JSON text standing as <intrinsic>', () => {
    const custom = policyStatements(template).find((found) => found.logicalId === 'Custom')!;
    expect(custom.statement).toEqual({ Effect: 'Allow', Action: 'logs:CreateLogStream', Resource: '<intrinsic>' });
  });
});
