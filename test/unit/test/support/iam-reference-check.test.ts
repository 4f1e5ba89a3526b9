/**
 * The checker of test/infra/iam-reference.test.ts, rule by rule, on single statements: what the
 * Service Authorization Reference refuses is reported with why, and what it accepts (keys with a
 * variable part, keys of an action's resource types, wildcards that match) is not.
 */
import { describe, expect, it } from 'vitest';
import { describeProblem, keyMatches, referenceProblems } from '#test/support/iam-reference-check';
import type { PolicyStatement } from '#test/support/template-policy-documents';

const problemsOf = async (statement: PolicyStatement) =>
  (
    await referenceProblems([
      {
        location: 'Resources/P/Properties/PolicyDocument/Statement/0',
        logicalId: 'P',
        resourceType: 'AWS::IAM::Policy',
        statement,
      },
    ])
  ).map(describeProblem);
const allow = (Action: unknown, Condition?: Record<string, Record<string, unknown>>): PolicyStatement => ({
  Effect: 'Allow',
  Action,
  Resource: '*',
  ...(Condition && { Condition }),
});
const at = 'Resources/P/Properties/PolicyDocument/Statement/0';

describe('referenceProblems', () => {
  it.each([
    ['an action of a service', allow('dynamodb:GetItem')],
    ['actions written in any case', allow(['DynamoDB:getitem', 's3:getObject'])],
    ['a wildcard that matches', allow('s3:Get*')],
    ['a single-character wildcard that matches', allow('s3:GetObjec?')],
    ['every action', allow('*')],
    ['a NotAction of real actions', { Effect: 'Deny', NotAction: ['iam:*', 'sts:AssumeRole'], Resource: '*' }],
    ['a global key', allow('s3:GetObject', { Bool: { 'aws:SecureTransport': 'true' } })],
    [
      'a global key with a variable part',
      allow('s3:PutObject', { StringEquals: { 'aws:RequestTag/team': 'a', 'aws:PrincipalTag/dept': 'b' } }),
    ],
    [
      'a key the action supports',
      allow('iam:PassRole', { StringEquals: { 'iam:PassedToService': 'transcribe.amazonaws.com' } }),
    ],
    [
      'a key of the action with a variable part',
      allow('s3:PutObject', { StringEquals: { 's3:RequestObjectTag/team': 'a' } }),
    ],
    [
      'a key of the action with a variable part after a colon',
      allow('kms:Decrypt', { StringEquals: { 'kms:EncryptionContext:tenant': 'a' } }),
    ],
    ['a key of one of its resource types', allow('s3:GetObject', { StringEquals: { 's3:BucketTag/team': 'a' } })],
    [
      'a key of a resource type written `tag-key`',
      allow('secretsmanager:GetSecretValue', { StringEquals: { 'secretsmanager:ResourceTag/team': 'a' } }),
    ],
    [
      'a key that one action of a wildcard supports',
      allow('s3:Get*', { StringEquals: { 's3:ExistingObjectTag/team': 'a' } }),
    ],
    [
      'the key StartCallAnalyticsJob holds its output to',
      allow('transcribe:StartCallAnalyticsJob', {
        StringLikeIfExists: { 'transcribe:OutputLocation': 's3://bucket/analysis/*' },
      }),
    ],
  ])('accepts %s', async (_, statement) => {
    expect(await problemsOf(statement)).toEqual([]);
  });

  it.each([
    [
      'an action that does not exist',
      allow(['s3:GetObject', 's3:GetObjectz']),
      [`${at}: s3:GetObjectz: no action GetObjectz in s3`],
    ],
    ['a wildcard that matches nothing', allow('s3:Frobnicate*'), [`${at}: s3:Frobnicate*: matches no action of s3`]],
    [
      'a service that does not exist',
      allow('nosuchservice:Get'),
      [`${at}: nosuchservice:Get: no service "nosuchservice" in the Service Authorization Reference`],
    ],
    [
      'a NotAction that does not exist',
      { Effect: 'Deny', NotAction: 'iam:PassRoles', Resource: '*' },
      [`${at}: iam:PassRoles: no action PassRoles in iam`],
    ],
    [
      'an action that is no name',
      allow('GetObject'),
      [`${at}: GetObject: not an action name: "<service>:<action>" is expected`],
    ],
    [
      'an action that is not text',
      allow([{ Ref: 'Action' }]),
      [
        `${at}: {"Ref":"Action"}: Action holds a value that is not an action name ("<service>:<action>"), which no reference can check`,
      ],
    ],
    [
      'a global key that does not exist',
      allow('s3:GetObject', { StringEquals: { 'aws:SourceAcount': '1' } }),
      [`${at}: aws:SourceAcount: no such global condition key (aws:...) in the Service Authorization Reference`],
    ],
    [
      'a service key that does not exist',
      allow('s3:GetObject', { StringEquals: { 's3:bogus': '1' } }),
      [`${at}: s3:bogus: s3 has no such condition key`],
    ],
    [
      'a variable key with nothing in its variable part',
      allow('s3:PutObject', { StringEquals: { 's3:RequestObjectTag/': 'a' } }),
      [`${at}: s3:RequestObjectTag/: s3 has no such condition key`],
    ],
  ])('reports %s', async (_, statement, expected) => {
    expect(await problemsOf(statement)).toEqual(expected);
  });

  it('reports a key the action does not support, with the keys it does and what the statement then does', async () => {
    expect(
      await problemsOf(
        allow('transcribe:StartCallAnalyticsJob', {
          StringEqualsIfExists: { 'transcribe:OutputBucketName': 'bucket' },
        }),
      ),
    ).toEqual([
      `${at}: transcribe:StartCallAnalyticsJob with transcribe:OutputBucketName: transcribe:StartCallAnalyticsJob does not support this key (it supports aws:RequestTag/\${TagKey}, aws:TagKeys, transcribe:OutputEncryptionKMSKeyId, transcribe:OutputLocation): with StringEqualsIfExists, the condition holds whenever the key is absent, so it restricts nothing for this action`,
    ]);
    expect(
      await problemsOf(allow(['s3:GetObject', 's3:PutObject'], { StringEquals: { 's3:RequestObjectTag/team': 'a' } })),
    ).toEqual([
      expect.stringMatching(
        /: s3:GetObject with s3:RequestObjectTag\/team: s3:GetObject does not support this key \(it supports .*s3:ExistingObjectTag\/<key>.*\): the key is never in its requests, so the condition never holds/,
      ),
    ]);
  });

  it('reports a key no action of a wildcard supports, once per action and key', async () => {
    const statement = allow('s3:List*', {
      StringEquals: { 's3:RequestObjectTag/team': 'a' },
      StringLike: { 's3:RequestObjectTag/team': 'b*' },
    });
    expect(await problemsOf(statement)).toEqual([
      expect.stringMatching(
        /: s3:List\* with s3:RequestObjectTag\/team: none of the \d+ actions it matches supports this key/,
      ),
    ]);
  });

  it('names the statement by its Sid when it has one', async () => {
    expect(await problemsOf({ ...allow('s3:GetObjectz'), Sid: 'Reads' })).toEqual([
      `${at} (Sid Reads): s3:GetObjectz: no action GetObjectz in s3`,
    ]);
  });
});

describe('keyMatches', () => {
  it.each([
    ['aws:RequestTag/team', `aws:RequestTag/\${TagKey}`, true],
    ['AWS:requesttag/Team/Sub', `aws:RequestTag/\${TagKey}`, true],
    ['aws:RequestTag/', `aws:RequestTag/\${TagKey}`, false],
    ['s3:RequestObjectTag/team', 's3:RequestObjectTag/<key>', true],
    ['aws:PrincipalTag/dept', 'aws:PrincipalTag/tag-key', true],
    ['kms:EncryptionContext:tenant', `kms:EncryptionContext:\${EncryptionContextKey}`, true],
    ['s3:prefix', 's3:prefix', true],
    ['s3:prefixes', 's3:prefix', false],
    ['s3:x-amz-acl', 's3:x-amz-acl', true],
    ['s3:x-amz.acl', 's3:x-amz-acl', false],
  ])('%s against %s: %s', (written, reference, matches) => {
    expect(keyMatches(written, reference)).toBe(matches);
  });
});
