/**
 * Rotating the cursor secret of a stage, on the path a deployed function takes:
 * Powertools Parameters and the Secrets Manager client against the local stand-in that bundle mode
 * uses, whose secret is rotated here as `aws secretsmanager put-secret-value` would (the new value
 * becomes AWSCURRENT, the replaced one AWSPREVIOUS).
 */
import { describe, expect, it } from 'vitest';
import { cursorKey, encodeReportCursor, type ReportKind } from '#shared/domain/reporting/report-cursor';
import type { ApiRequest } from '#shared/http/api-types';
import { serveReportList } from '#shared/reporting/serve-report-list';
import { cursorKeysSource } from '#shared/secrets/cursor-keys';
import { useStageSecretInSecretsManager } from '#test/support/counted-secrets-manager';

const KEY_1 = 'the-first-cursor-secret-of-this-stage-0123456789';
const KEY_2 = 'the-second-cursor-secret-after-rotation-0123456789';
const KEY_3 = 'the-third-cursor-secret-after-another-rotation-0123';
const stage = useStageSecretInSecretsManager('cursorSecret', KEY_1);
/** The GetSecretValue calls the functions' code made so far. */
const calls = () => stage.manager.calls();
const rotate = (next: string) => stage.rotate(next);

const ids = (keys: readonly { id: string }[]) => keys.map((key) => key.id);
const NOW = Date.now();
const request = (cursor: string): ApiRequest => ({
  tenantId: 'acme',
  caller: { keyId: 'k1abcdefghij', tenants: ['acme'], scopes: ['reporting:*'] },
  path: { tenantId: 'acme' },
  query: { cursor },
  body: undefined,
  requestId: 'r1',
  signal: new AbortController().signal,
  http: { method: 'GET', headers: {}, multiValueHeaders: {}, rawBody: Buffer.alloc(0), selfUrl: 'http://127.0.0.1/x' },
});
const cursorOf = (secretValue: string) =>
  encodeReportCursor(
    {
      tenantId: 'acme',
      kind: 'assistant',
      window: { from: NOW - 3_600_000, to: NOW },
      after: [NOW - 1000, 'row-1'],
      total: 3,
    },
    cursorKey(secretValue),
    NOW,
  );
const lastPage = {
  kind: 'assistant' as ReportKind,
  index: { page: async () => ({ total: undefined, rows: ['{"ID":"row-2"}'], more: false }) },
};

describe('the cursor keys of a stage (Secrets Manager)', () => {
  it('accepts only the current key while the secret has never been rotated', async () => {
    expect(ids(await cursorKeysSource()())).toEqual(ids([cursorKey(KEY_1)]));
  });

  it('reads the current version once per five minutes, and once for concurrent requests', async () => {
    const keys = cursorKeysSource();
    const before = stage.manager.stages().length;
    await Promise.all(Array.from({ length: 20 }, () => keys()));
    for (let i = 0; i < 20; i++) await keys();
    // No cursor named another key, so the previous version is never asked for.
    expect(stage.manager.stages().slice(before)).toEqual(['AWSCURRENT']);
  });

  it('after a rotation, reads the previous version once a cursor of it arrives, and keeps accepting it', async () => {
    rotate(KEY_2);
    const keys = cursorKeysSource();
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_2)]));
    const before = stage.manager.stages().length;
    for (let i = 0; i < 3; i++)
      expect((await serveReportList({ ...lastPage, keys }, request(cursorOf(KEY_1)))).status).toBe(200);
    expect(stage.manager.stages().slice(before).sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_2), cursorKey(KEY_1)]));
  });

  it('a container whose cache predates a rotation continues a cursor of the new key, reading the secret again', async () => {
    const keys = cursorKeysSource();
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_1)]));
    rotate(KEY_2);
    // Still cached (five minutes): what this container signs with has not changed yet...
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_1)]));
    // ...but another container already signs with the new key, and its cursor is served here.
    const served = await serveReportList({ ...lastPage, keys }, request(cursorOf(KEY_2)));
    expect(served.status).toBe(200);
    expect(JSON.parse(served.bodyText!)).toEqual({ total: 3, cursor: {}, data: [{ ID: 'row-2' }] });
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_2), cursorKey(KEY_1)]));
  });

  it('a forced read that fails (Secrets Manager down, say) keeps the keys read before, for that request and the next', async () => {
    const keys = cursorKeysSource();
    expect(ids(await keys())).toEqual(ids([cursorKey(KEY_1)]));
    const { secret } = stage;
    const name = secret.name;
    secret.name = 'gone';
    secret.arn = 'gone';
    try {
      expect(ids(await keys({ fresh: true }))).toEqual(ids([cursorKey(KEY_1)]));
      expect(ids(await keys())).toEqual(ids([cursorKey(KEY_1)]));
      const served = await serveReportList({ ...lastPage, keys }, request(cursorOf(KEY_1)));
      expect(served.status).toBe(200);
    } finally {
      secret.name = name;
    }
  });

  it('reads the secret again at most every few seconds, however many unknown key ids arrive', async () => {
    const keys = cursorKeysSource();
    await keys({ fresh: true });
    rotate(KEY_2);
    const before = calls();
    expect(ids(await keys({ fresh: true }))).toEqual(ids([cursorKey(KEY_1)]));
    expect(calls()).toBe(before);
    await expect(serveReportList({ ...lastPage, keys }, request(cursorOf(KEY_3)))).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/no longer accepts/),
    });
  });
});
