/**
 * Every IAM policy statement of every stage variant's template (test/support/stage-templates.ts):
 * identity, trust and resource policies, wherever the template holds them
 * (test/support/template-policy-documents.ts), held to the Service Authorization Reference
 * (test/support/iam-reference-check.ts): every action exists, every condition key exists, and
 * every service condition key is one its actions support. IAM accepts a statement that breaks
 * these and it then grants, denies or restricts nothing, which no deploy would show. A failure
 * lists each problem with its statement's location, the action, the key and why.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeProblem, referenceProblems } from '#test/support/iam-reference-check';
import {
  type CfnTemplate,
  loadStageTemplates,
  STAGE_VARIANT_NAMES,
  stageTemplate,
} from '#test/support/stage-templates';
import { type PolicyStatement, policyStatements } from '#test/support/template-policy-documents';

const problemsOf = async (template: CfnTemplate) =>
  (await referenceProblems(policyStatements(template))).map(describeProblem);

// Every variant up front (synthesized once per run, by this file or another): on a busy machine
// more than a test's time.
beforeAll(() => loadStageTemplates(), 180_000);

describe.each(STAGE_VARIANT_NAMES)('%s stage template', (name) => {
  it('every action exists, and every condition key exists and is supported by the actions it is used with', async () => {
    const problems = await problemsOf(stageTemplate(name).template);
    expect(
      problems,
      'statements the Service Authorization Reference refuses: fix them in their construct (infra/cdk/constructs/*)\n',
    ).toEqual([]);
  });
});

describe('the statements it reads', () => {
  /** A statement's resource type and the property of the resource that holds it. */
  const holder = (location: string, resourceType: string) => `${resourceType} ${location.split('/')[3]}`;

  it('are every kind the dev template has: identity, trust and resource policies, JSON text in a custom resource, Lambda permissions', () => {
    const statements = policyStatements(stageTemplate('dev').template);
    expect([...new Set(statements.map(({ location, resourceType }) => holder(location, resourceType)))].sort()).toEqual(
      [
        'AWS::IAM::Policy PolicyDocument',
        'AWS::IAM::Role AssumeRolePolicyDocument',
        'AWS::KMS::Key KeyPolicy',
        'AWS::Lambda::Permission Action',
        'AWS::S3::BucketPolicy PolicyDocument',
        'AWS::SNS::TopicPolicy PolicyDocument',
        'AWS::SQS::QueuePolicy PolicyDocument',
        'AWS::SecretsManager::ResourcePolicy ResourcePolicy',
        'Custom::CloudwatchLogResourcePolicy Create (JSON)',
        'Custom::CloudwatchLogResourcePolicy Update (JSON)',
      ],
    );
  });

  it('include a statement of every resource that holds a policy', () => {
    const { template } = stageTemplate('dev');
    const read = new Set(policyStatements(template).map((found) => found.logicalId));
    const holders = [
      'AWS::IAM::Role',
      'AWS::IAM::Policy',
      'AWS::KMS::Key',
      'AWS::Lambda::Permission',
      'AWS::S3::BucketPolicy',
      'AWS::SNS::TopicPolicy',
      'AWS::SecretsManager::ResourcePolicy',
      'AWS::SQS::QueuePolicy',
    ];
    const unread = Object.entries(template.Resources)
      .filter(([logicalId, resource]) => holders.includes(resource.Type) && !read.has(logicalId))
      .map(([logicalId, resource]) => `${logicalId} (${resource.Type})`);
    expect(unread).toEqual([]);
  });
});

describe('a copy of the dev template with mistakes', () => {
  it('reports each mistake at its statement, and nothing else beyond what the template has', async () => {
    const { template } = stageTemplate('dev');
    const copy = structuredClone(template);
    const policyId = Object.keys(copy.Resources).find((logicalId) =>
      logicalId.startsWith('ApiAuthorizerRoleDefaultPolicy'),
    )!;
    const bucketPolicyId = Object.keys(copy.Resources).find(
      (logicalId) => copy.Resources[logicalId]!.Type === 'AWS::S3::BucketPolicy',
    )!;
    const statementsOf = (logicalId: string) =>
      (copy.Resources[logicalId]!.Properties!.PolicyDocument as { Statement: PolicyStatement[] }).Statement;
    const policyIndex = statementsOf(policyId).length;
    statementsOf(policyId).push(
      { Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:GetItemz'], Resource: '*' },
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: '*',
        Condition: { StringEquals: { 's3:RequestObjectTag/team': 'a', 'aws:SourceAcount': '1' } },
      },
    );
    const bucketIndex = statementsOf(bucketPolicyId).length;
    statementsOf(bucketPolicyId).push({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 's3:Frobnicate*',
      Resource: '*',
    });

    const at = (logicalId: string, property: string, index: number) =>
      `Resources/${logicalId}/Properties/${property}/Statement/${index}`;
    const added = [
      `${at(policyId, 'PolicyDocument', policyIndex)}: dynamodb:GetItemz: no action GetItemz in dynamodb`,
      expect.stringMatching(
        new RegExp(
          `^${at(policyId, 'PolicyDocument', policyIndex + 1)}: s3:GetObject with s3:RequestObjectTag/team: s3:GetObject does not support this key \\(it supports .*\\): the key is never in its requests`,
        ),
      ),
      `${at(policyId, 'PolicyDocument', policyIndex + 1)}: aws:SourceAcount: no such global condition key (aws:...) in the Service Authorization Reference`,
      `${at(bucketPolicyId, 'PolicyDocument', bucketIndex)}: s3:Frobnicate*: matches no action of s3`,
    ];
    const before = await problemsOf(template);
    const after = await problemsOf(copy);
    const problemsAdded = after.filter((problem) => !before.includes(problem));
    expect(problemsAdded).toEqual(expect.arrayContaining(added));
    expect(problemsAdded).toHaveLength(added.length);
    expect(after).toEqual(expect.arrayContaining(before));
  });
});
