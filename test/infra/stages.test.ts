/**
 * Stage settings and what they do to the stateful resources. Only the data construct is built (no
 * function bundling), one stack per stage, all in one synthesis.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { Data } from '#infra/cdk/constructs/data';
import { DEFAULT_STAGE, stageConfig } from '#infra/cdk/stage/config';
import { allTableSpecs, physicalTableName } from '#shared/store/table-specs';
import { WITHOUT_BUILTIN_VALIDATION } from '#test/support/cdk-json-context';

const stages = ['dev', 'prod', 'staging'] as const;
const templates = new Map<string, Template>();

beforeAll(() => {
  const app = new App(WITHOUT_BUILTIN_VALIDATION);
  const stacks = stages.map((stage) => {
    const stack = new Stack(app, `data-${stage}`);
    new Data(stack, 'Data', stageConfig(stage));
    return [stage, stack] as const;
  });
  app.synth();
  for (const [stage, stack] of stacks) templates.set(stage, Template.fromStack(stack));
});

describe('stage config', () => {
  it('defaults to dev with a 60 s authorizer cache', () => {
    expect(DEFAULT_STAGE).toBe('dev');
    expect(stageConfig().stage).toBe('dev');
    for (const stage of stages) expect(stageConfig(stage).authorizerCacheTtl.toSeconds()).toBe(60);
  });

  it('an unknown stage gets the protective defaults', () => {
    expect(stageConfig('staging')).toMatchObject({ stage: 'staging', deletionProtection: true });
  });

  it.each(['Prod', 'my_stage', '1dev', '', 'a-very-long-stage-name-indeed'])('refuses the stage name %j', (stage) => {
    expect(() => stageConfig(stage)).toThrow(/invalid stage/);
  });
});

describe('tables per stage', () => {
  it.each([
    ['dev', false, 'Delete'],
    ['prod', true, 'Retain'],
    ['staging', true, 'Retain'],
  ] as const)('%s: deletion protection %s, deletion policy %s', (stage, protectedTable, policy) => {
    const template = templates.get(stage)!;
    for (const spec of allTableSpecs) {
      template.hasResource('AWS::DynamoDB::Table', {
        Properties: { TableName: physicalTableName(stage, spec.id), DeletionProtectionEnabled: protectedTable },
        DeletionPolicy: policy,
        UpdateReplacePolicy: policy,
      });
    }
  });
});
