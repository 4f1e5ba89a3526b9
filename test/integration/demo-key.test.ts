/**
 * The demo key `npm start` prints is tagged like every key, and stays one that works: a key saved
 * by a stack from before key tags, or tagged under a local secret since replaced, is revoked and a
 * new one issued at the next start, without seeding the tenant again. Against the run's DynamoDB
 * Local (tenant `demo` is this file's alone); npm-start.test.ts starts the whole stack.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT, demoData, ensureDemoTenant } from '#infra/local/demo-tenant';
import { pointAtLocalDynamo } from '#infra/local/emulators/point-at-local-dynamo';
import { hashKey, parseKey } from '#shared/auth/key-format';
import type { KeysStore } from '#shared/auth/key-records';
import { keyStatus } from '#shared/auth/key-status';
import { verifyKeyTag } from '#shared/auth/key-tag';
import { createConversationsStore } from '#shared/store/conversations-store';
import { documentClient } from '#shared/store/dynamo-client';
import { createKeysStore } from '#shared/store/keys-store';
import { storeUntaggedKey } from '#test/support/untagged-key';
import { workerDynamo } from '#test/support/worker-dynamo';

const SECRET = 'the-local-key-tag-secret-of-this-home-0123456789';
/**
 * The demo's conversations and documents without its 4 000 reporting rows: the key is what this
 * file tests, and the rows cost its first start some 30 s on the run's shared store. npm-start.test.ts
 * seeds the whole demo.
 */
const DATA = { ...demoData(new Date()), assistantConversations: [], vocConversations: [] };
const home = mkdtempSync(join(tmpdir(), 'cxm-demo-key-'));
const saved = () => readFileSync(join(home, 'demo-key'), 'utf8').trim();
let keys: KeysStore;

const taggedUnder = (secret: string, key: string) => {
  const parsed = parseKey(key);
  return parsed?.tag !== undefined && verifyKeyTag([secret], parsed.body, parsed.tag);
};
const statusOf = async (key: string) => {
  const stored = await keys.findByHash(hashKey(key));
  return stored && keyStatus(stored, Date.now());
};

beforeAll(() => {
  const { endpoint, credentials, tables } = workerDynamo();
  pointAtLocalDynamo({ endpoint, credentials }, tables);
  keys = createKeysStore(documentClient(), tables.keys);
});

describe('the demo key', () => {
  it('is tagged under the local secret, saved, and the same at the next start', async () => {
    const first = await ensureDemoTenant(home, SECRET, DATA);
    expect(first).toMatch(/^cxm_[a-z0-9]{12}_[A-Za-z0-9]{40}_[A-Za-z0-9]{8}$/);
    expect(taggedUnder(SECRET, first)).toBe(true);
    expect(saved()).toBe(first);
    expect(await ensureDemoTenant(home, SECRET, DATA)).toBe(first);
    expect(await keys.findByHash(hashKey(first))).toMatchObject({ tenants: [DEMO_TENANT], tagged: true });
  });

  it('saved from before key tags: revoked, and a tagged one issued without seeding the tenant again', async () => {
    const conversations = createConversationsStore(documentClient(), workerDynamo().tables.conversations);
    // Locked for an hour from the seeding: a second seeding would lock it from a later instant.
    const before = await conversations.getConversation(DEMO_TENANT, 'conv-1005');
    expect(before?.lockedUntil).toBeDefined();
    const old = await storeUntaggedKey(keys, [DEMO_TENANT], ['cxm:*']);
    writeFileSync(join(home, 'demo-key'), `${old.key}\n`);
    const replaced = await ensureDemoTenant(home, SECRET, DATA);
    expect(replaced).not.toBe(old.key);
    expect(taggedUnder(SECRET, replaced)).toBe(true);
    expect(saved()).toBe(replaced);
    expect(await statusOf(old.key)).toBe('revoked');
    expect(await statusOf(replaced)).toBe('active');
    expect(await conversations.getConversation(DEMO_TENANT, 'conv-1005')).toEqual(before);
  });

  it('tagged under a local secret since replaced: revoked, and one tagged under the new secret issued', async () => {
    const previous = saved();
    const replaced = await ensureDemoTenant(home, `${SECRET}-replaced`, DATA);
    expect(replaced).not.toBe(previous);
    expect(taggedUnder(`${SECRET}-replaced`, replaced)).toBe(true);
    expect(await statusOf(previous)).toBe('revoked');
  });
});
