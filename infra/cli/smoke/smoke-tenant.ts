/**
 * What `cxm smoke` writes to the smoke tenant. Its rows, written through the import path (the same stores and validation as
 * `cxm import`) before the checks run, by id, so every run overwrites the same rows instead of
 * adding more: an open customer conversation (reset to open), a bot, a completed VOC job, one
 * assistant and one VOC reporting row dated a minute ago, and a disabled webhook endpoint (so
 * nothing is ever delivered to it). The checks add a note to the conversation, overwrite the
 * `cxm-smoke/smoke-check` document, change the endpoint's description and rotate its secret;
 * nothing else is written but the temporary key, which stays listed once revoked.
 */
import { conversationWithDefaults } from '#shared/domain/notes/conversation';
import { MAX_ENDPOINTS_PER_TENANT_LIMIT } from '#shared/domain/webhooks/webhook-endpoint';
import { newWebhookSecret } from '#shared/domain/webhooks/webhook-secret';
import type { ImportFileContent } from '#shared/schemas/import-file';
import type { CliStores } from '../stage/connect-stores.ts';
import type { SmokeSeed } from './smoke-checks.ts';

/** The tenant `cxm smoke` uses on a stage or the local stack unless told another. */
export const SMOKE_TENANT = 'cxm-smoke';

/** The smoke endpoint's URL: a public name (IANA's example domain), never sent anything (the endpoint is disabled). */
export const SMOKE_ENDPOINT_URL = 'https://example.com/cxm-smoke';

/** Lifetime of the temporary key: far beyond a run, so only a killed run leaves it working, and not for long. */
export const TEMPORARY_KEY_MINUTES = 15;

function smokeTenantRows(tenant: string, now: number): { file: ImportFileContent; seed: SmokeSeed } {
  const minuteAgo = now - 60_000;
  const seed: SmokeSeed = {
    conversationId: 'smoke-open',
    botId: 'smoke-bot',
    endpointId: 'smoke-endpoint',
    job: {
      id: 'smoke-job',
      status: 'completed',
      started: minuteAgo,
      file: `recordings/${tenant}/smoke.wav`,
      recordingId: 'smoke-recording',
    },
  };
  const file: ImportFileContent = {
    // An open customer conversation that accepts notes, every field written so a rerun resets it.
    conversations: [conversationWithDefaults({ id: seed.conversationId })],
    documents: { bots: [{ id: seed.botId, data: { name: 'Smoke bot', writtenBy: 'cxm smoke' } }] },
    vocJobs: [seed.job],
    assistantConversations: [
      {
        ID: 'smoke-assistant',
        BotID: seed.botId,
        BotName: 'Smoke bot',
        Datetime: minuteAgo,
        EndDatetime: now,
        Duration: 60,
        Summary: 'Written by cxm smoke.',
      },
    ],
    vocConversations: [
      { ID: 'smoke-voc', Datetime: new Date(minuteAgo).toISOString(), Duration: 60, Summary: 'Written by cxm smoke.' },
    ],
  };
  return { file, seed };
}

export async function seedSmokeTenant(stores: CliStores, tenant: string, now = Date.now()): Promise<SmokeSeed> {
  const { file, seed } = smokeTenantRows(tenant, now);
  // Imported only when a run seeds: smoke-command.ts reads this module's names at every `cxm`
  // start, and the import path brings ajv and the generated validators.
  const { importData, parseImportFile } = await import('#infra/tenant-data/import-data');
  await importData(tenant, parseImportFile(tenant, file), stores);
  // Made once and kept: a rerun finds it (and its place under the tenant's limit) already there.
  const at = new Date(now).toISOString();
  await stores.webhookEndpoints.create(
    tenant,
    {
      id: seed.endpointId,
      url: SMOKE_ENDPOINT_URL,
      events: ['provisioning.document.changed'],
      description: 'Written by cxm smoke.',
      status: 'disabled',
      disabledReason: 'the smoke endpoint receives nothing',
      createdAt: at,
      updatedAt: at,
      secrets: { current: newWebhookSecret() },
    },
    { limit: MAX_ENDPOINTS_PER_TENANT_LIMIT },
  );
  return seed;
}
