/**
 * A stage whose keys are all tagged turns `edge.acceptUntaggedKeys` off: then a key issued before
 * tags (`cxm_<keyId>_<secret>`) is refused as cheaply as a wrong tag, 401 without a read, even one
 * the keys table holds. The authorizer reads the setting at cold start (CXM_ACCEPT_UNTAGGED_KEYS),
 * so this file sets it before its gateway starts; it runs in a process of its own, and in bundle
 * mode the local runtime hands the variable to the authorizer's bundle in place of the template's.
 * key-tags.test.ts covers the stage that still accepts them.
 *
 * @group sources bundles
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNAUTHENTICATED_MESSAGE } from '#shared/api/api-error';
import { type KeyReadCounting, startKeyReadCounting } from '#test/support/count-key-reads';
import { uniqueTenant } from '#test/support/test-api';

// Hoisted above the imports: nothing may read the variable before it is set.
vi.hoisted(() => {
  process.env.CXM_ACCEPT_UNTAGGED_KEYS = 'false';
});

const tenant = uniqueTenant('untagged');
const SCOPES = ['provisioning:*'];
let counting: KeyReadCounting;

beforeAll(async () => {
  counting = await startKeyReadCounting();
});
afterAll(() => counting?.close());

describe('with edge.acceptUntaggedKeys off', () => {
  it('a key issued before tags is 401 with the usual body, without a read, though the keys table holds it', async () => {
    const old = await counting.direct.createUntaggedKey([tenant], SCOPES);
    expect(await counting.direct.keys.findByHash(old.keyHash)).toMatchObject({ keyId: old.keyId, tenants: [tenant] });
    const { answer, keyReads } = await counting.getWith(tenant, old.key);
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ code: 'Unauthenticated', message: UNAUTHENTICATED_MESSAGE });
    expect(keyReads).toBe(0);
  });

  it('a tagged key still works, with its one read', async () => {
    const { key } = await counting.direct.createKey([tenant], SCOPES);
    expect(await counting.getWith(tenant, key)).toMatchObject({ answer: { status: 404 }, keyReads: 1 });
  });
});
