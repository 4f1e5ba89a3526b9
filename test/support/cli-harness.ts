/**
 * The `cxm` CLI pointed at a test gateway: a state directory whose local.json names the gateway
 * and the run's DynamoDB Local, and a function that runs the CLI there as a child process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLocalState } from '#infra/local/local-state';
import { run } from './run-process.ts';
import type { TestApi } from './test-api.ts';
import { TEST_KEY_TAG_SECRET } from './test-env.ts';

export function cliFor(api: TestApi, prefix: string) {
  const home = mkdtempSync(join(tmpdir(), `${prefix}-`));
  writeLocalState(
    {
      apiUrl: api.url,
      dynamodbEndpoint: api.dynamo.endpoint,
      dynamodbCredentials: api.dynamo.credentials,
      region: 'us-east-1',
      stage: 'test',
      tables: api.tables,
      demo: null,
      keyTagSecret: TEST_KEY_TAG_SECRET,
      pid: process.pid,
    },
    home,
  );
  return { home, cxm: (...args: string[]) => run('node', ['infra/cli/cxm.mjs', ...args], { CXM_HOME: home }) };
}
