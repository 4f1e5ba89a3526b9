/**
 * With DynamoDB unreachable the authorizer cannot check a key: the gateway answers 503
 * ServiceUnavailable with Retry-After (AUTHORIZER_FAILURE), never a hang or a crash, and keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '#infra/local/emulators/dynamodb-local';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { type BoundGateway, bindGateway } from '#infra/local/serve-gateway';
import { documentedFetch } from '#test/support/test-api';
import { workerDynamo } from '#test/support/worker-dynamo';

let gateway: BoundGateway;

beforeAll(async () => {
  // A port nothing listens on: every store call is refused.
  pointAtLocalDynamo(
    { endpoint: `http://127.0.0.1:${await freePort()}`, credentials: workerDynamo().credentials },
    workerDynamo().tables,
  );
  gateway = await bindGateway(0);
  await gateway.serve({ authCacheTtlSeconds: 0 });
});
afterAll(() => gateway.close());

describe('store unreachable', () => {
  it('answers 503 ServiceUnavailable with Retry-After, twice in a row', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await documentedFetch(`${gateway.url}/api/v1/cxm/tenants/t/conversations/c/internal-notes`, {
        method: 'POST',
        headers: { Authorization: `Bearer cxm_aaaaaaaaaaaa_${'A'.repeat(40)}`, 'Content-Type': 'application/json' },
        body: '{"body":"x"}',
      });
      expect(response.status).toBe(503);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('x-request-id')).toBeTruthy();
      expect(await response.json()).toEqual({ code: 'ServiceUnavailable', message: expect.any(String) });
    }
  });
});
