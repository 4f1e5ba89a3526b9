/**
 * `webhooks`, two tenants: while a noisy tenant adds notes for endpoints whose receiver holds every
 * request (a slow receiver answering 2xx after seconds, as a tenant's overloaded backend does), a
 * calm tenant adds a few notes a second for one endpoint that answers at once. The figure is the
 * calm tenant's time from a note's commit to its first receipt: what one tenant's load costs
 * another's deliveries, with the queue shared by both (a fair queue: shared/store/delivery-queue.ts).
 */
import { createServer, type Server } from 'node:http';
import { fillPath, routeById } from '#shared/api/route-table';
import type { InternalNote } from '#shared/domain/notes/build-note';
import { atMost, type Goal, round } from './bench-stats.ts';

/** How long the noisy tenant's receiver holds each request: slow, but short of the pause (SLOW_ANSWER_MS). */
const NOISY_HOLD_MS = 2_000;
/** The calm tenant's p99 from commit to first receipt must stay within this under the noisy load. */
const CALM_P99_GOAL_MS = 2_000;

export interface WebhookFairnessFigures {
  noisy: { endpoints: number; notes: number; holdMs: number; firstReceipt: { p50Ms: number; p99Ms: number } };
  calm: { notes: number; received: number; firstReceipt: { p50Ms: number; p99Ms: number } };
  goals: { calmP99: Goal };
}

export interface FairnessTenant {
  tenantId: string;
  key: string;
  conversationId: string;
}

/** A receiver answering 204 after `holdMs`, noting when each note's first attempt arrived. */
async function startReceiver(holdMs: number) {
  const firstMs = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const noteId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { note: InternalNote } }).data.note
        .id;
      if (!firstMs.has(noteId)) firstMs.set(noteId, Date.now());
      setTimeout(() => response.writeHead(204).end(), holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`,
    firstMs,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(url: string, key: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

const register = (url: string, tenant: FairnessTenant, receiverUrl: string) =>
  call(url, tenant.key, fillPath(routeById('createWebhookEndpoint'), { tenantId: tenant.tenantId }), {
    url: receiverUrl,
    events: ['note.created'],
  });

/** Adds a note for `tenant`; answers it with its commit time. */
async function addNote(url: string, tenant: FairnessTenant): Promise<InternalNote> {
  const path = fillPath(routeById('addInternalNote'), {
    tenantId: tenant.tenantId,
    conversationId: tenant.conversationId,
  });
  return ((await call(url, tenant.key, path, { body: 'A fairness note.' })) as { note: InternalNote }).note;
}

/** p50 and p99 of the commit-to-first-receipt times of `notes` that `firstMs` saw. */
function latency(notes: readonly InternalNote[], firstMs: ReadonlyMap<string, number>) {
  const times = notes
    .filter((note) => firstMs.has(note.id))
    .map((note) => firstMs.get(note.id)! - Date.parse(note.createdAt))
    .sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.max(0, Math.ceil((p / 100) * times.length) - 1))];
  return { p50Ms: round(at(50) ?? Number.NaN, 0), p99Ms: round(at(99) ?? Number.NaN, 0) };
}

/**
 * The calm tenant's deliveries under the noisy tenant's load, through the gateway at `url`.
 *
 * @example report.webhooks.fairness = await measureWebhookFairness(gateway.url, noisy, calm, { endpoints: 10, noisyNotes: 100, calmNotes: 40 }, progress);
 */
export async function measureWebhookFairness(
  url: string,
  noisy: FairnessTenant,
  calm: FairnessTenant,
  sizes: { endpoints: number; noisyNotes: number; calmNotes: number },
  progress: (message: string) => void,
): Promise<WebhookFairnessFigures> {
  const slow = await startReceiver(NOISY_HOLD_MS);
  const quick = await startReceiver(0);
  try {
    for (let i = 0; i < sizes.endpoints; i++) await register(url, noisy, slow.url);
    await register(url, calm, quick.url);
    progress(
      `webhooks: ${sizes.noisyNotes} notes to ${sizes.endpoints} endpoints held ${NOISY_HOLD_MS} ms each, beside ${sizes.calmNotes} of a calm tenant`,
    );
    const noisyNotes: InternalNote[] = [];
    const calmNotes: InternalNote[] = [];
    let next = 0;
    const flood = Array.from({ length: 4 }, async () => {
      while (next < sizes.noisyNotes) {
        next++;
        noisyNotes.push(await addNote(url, noisy));
      }
    });
    // The calm tenant's notes a fifth of a second apart, while the flood's deliveries are queued.
    const steady = (async () => {
      for (let i = 0; i < sizes.calmNotes; i++) {
        calmNotes.push(await addNote(url, calm));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    await Promise.all([...flood, steady]);
    const deadline = Date.now() + 120_000;
    while (quick.firstMs.size < calmNotes.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    const calmLatency = latency(calmNotes, quick.firstMs);
    return {
      noisy: {
        endpoints: sizes.endpoints,
        notes: noisyNotes.length,
        holdMs: NOISY_HOLD_MS,
        firstReceipt: latency(noisyNotes, slow.firstMs),
      },
      calm: { notes: calmNotes.length, received: quick.firstMs.size, firstReceipt: calmLatency },
      goals: {
        calmP99: atMost(
          quick.firstMs.size < calmNotes.length ? Number.POSITIVE_INFINITY : calmLatency.p99Ms,
          CALM_P99_GOAL_MS,
        ),
      },
    };
  } finally {
    await Promise.all([slow.close(), quick.close()]);
  }
}
