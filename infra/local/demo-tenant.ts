/**
 * Tenant `demo`, created on a local stack's first start: sample conversations in every state a
 * note can meet, and a key holding every area's scopes, so the README's curl works at once.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateAssistantRows, generateVocRows } from '#infra/tenant-data/generate-report-rows';
import { importData } from '#infra/tenant-data/import-data';
import { scopeAreas } from '#shared/api/route-table';
import { issueKey } from '#shared/auth/issue-key';
import { hashKey, parseKey } from '#shared/auth/key-format';
import type { KeysStore } from '#shared/auth/key-records';
import { verifyKeyTag } from '#shared/auth/key-tag';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import type { ImportFileContent } from '#shared/schemas/import-file';
import { tableName } from '#shared/settings/table-settings';
import { documentClient } from '#shared/store/dynamo-client';
import { bindTableStores } from '#shared/store/table-stores';

export const DEMO_TENANT = 'demo';

export function demoData(now: Date): ImportFileContent {
  const inAnHour = now.getTime() + 3_600_000;
  return {
    conversations: [
      { id: 'conv-1001', status: 'open', assignee: { id: 'agent-1', active: true } },
      { id: 'conv-1002', status: 'open' },
      { id: 'conv-1003', status: 'closed' },
      { id: 'conv-1004', status: 'open', mergedInto: 'conv-1001' },
      { id: 'conv-1005', status: 'open', lockedUntil: inAnHour },
      { id: 'conv-1006', status: 'open', realtimeOwner: 'voice-session-7' },
      { id: 'conv-1007', status: 'open', assignee: { id: 'agent-2', active: false } },
      { id: 'ticket-2001', type: 'internal', status: 'open' },
    ],
    documents: {
      bots: [
        {
          id: 'bot-billing',
          data: {
            name: 'Billing helper',
            language: 'en',
            channels: ['chat', 'email'],
            escalation: { queue: 'billing', afterMinutes: 5 },
          },
        },
        {
          id: 'bot-returns',
          data: {
            name: 'Returns assistant',
            language: 'de',
            channels: ['chat'],
            escalation: { queue: 'returns', afterMinutes: 10 },
          },
        },
      ],
      users: [
        { id: 'agent-1', data: { name: 'Ada Agent', email: 'ada@example.com', roles: ['agent'], active: true } },
        {
          id: 'agent-2',
          data: { name: 'Bob Backup', email: 'bob@example.com', roles: ['agent', 'supervisor'], active: false },
        },
      ],
    },
    // A month of reporting rows, some seventy of each kind in the last day.
    assistantConversations: generateAssistantRows({ count: 2000, days: 30, now: now.getTime() }),
    vocConversations: generateVocRows({ count: 2000, days: 30, now: now.getTime() }),
    vocJobs: [
      {
        id: 'job-0001',
        status: 'completed',
        started: now.getTime() - 3_600_000,
        file: 'recordings/demo/call-0001.wav',
        recordingId: 'rec-0001',
      },
      {
        id: 'job-0002',
        status: 'started',
        started: now.getTime() - 60_000,
        file: 'recordings/demo/call-0002.wav',
        recordingId: 'rec-0002',
      },
      {
        id: 'job-0003',
        status: 'failed',
        started: now.getTime() - 7_200_000,
        file: 'recordings/demo/call-0003.wav',
        recordingId: 'rec-0003',
      },
    ],
  };
}

/** Issues the demo key and keeps it in `keyFile`. */
async function issueDemoKey(keys: KeysStore, tagSecret: string, keyFile: string | undefined): Promise<string> {
  const { key } = await issueKey(
    keys,
    {
      tenants: [DEMO_TENANT],
      scopes: scopeAreas().map((area) => `${area}:*`),
      name: 'demo key (created by npm start)',
    },
    { tagSecret },
  );
  if (keyFile) writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * Seeds the demo tenant with `data` (default: demoData, a month of reporting rows among it) unless
 * this state directory has done so before, and returns the demo key. Unlike every other key, the
 * demo key is kept in plain text in `<home>/demo-key` (mode 600) so later starts can print it
 * again: a local convenience for a local-only tenant. The keys table
 * holds only its hash, as for every key; if that record is gone (the data was deleted), the
 * tenant is seeded again. A saved key not tagged under `tagSecret` (made before key tags, or
 * before the local secret was replaced) is revoked and a new one issued, so the demo key always works.
 *
 * @example
 * const demoKey = await ensureDemoTenant(home, keyTagSecret); // 'cxm_<keyId>_<secret>_<tag>'
 */
export async function ensureDemoTenant(
  home: string | undefined,
  tagSecret: string,
  data: ImportFileContent = demoData(new Date()),
): Promise<string> {
  const keyFile = home ? join(home, 'demo-key') : undefined;
  const { keys, reportingRows, ...stores } = bindTableStores(documentClient(), tableName);
  if (keyFile && existsSync(keyFile)) {
    const saved = readFileSync(keyFile, 'utf8').trim();
    const stored = await keys.findByHash(hashKey(saved));
    if (stored) {
      const parsed = parseKey(saved);
      if (parsed?.tag !== undefined && verifyKeyTag([tagSecret], parsed.body, parsed.tag)) return saved;
      await keys.revoke(stored.keyId, new Date());
      return issueDemoKey(keys, tagSecret, keyFile);
    }
  }
  const { assistantConversations = [], vocConversations = [], ...rest } = data;
  await importData(DEMO_TENANT, rest, { ...stores, reportingRows });
  // Each list in one call: the store sorts its rows by time and packs some sixty with their
  // buckets per transaction, against one per 25 rows in file order (on disk, each commit syncs:
  // about 3 s for the demo's rows instead of 7-10).
  await Promise.all([
    reportingRows.putRows(
      DEMO_TENANT,
      'assistant',
      assistantConversations.map((row) => shapeRow('assistant', DEMO_TENANT, row)),
    ),
    reportingRows.putRows(
      DEMO_TENANT,
      'voc',
      vocConversations.map((row) => shapeRow('voc', DEMO_TENANT, row)),
    ),
  ]);
  return issueDemoKey(keys, tagSecret, keyFile);
}
