/**
 * `webhooks`: notes added through the local gateway (as `npm start` runs it: DynamoDB Local's
 * stream read as the event source mapping reads it, the fan-out function, the queue of tasks, the
 * delivery function) to one loopback receiver that verifies every attempt with `standardwebhooks`
 * (the specification's reference library) and fails a fifth of them at random with a 500. The
 * figures: distinct `webhook-id`s received and acknowledged against the notes committed (none may
 * be lost), every body the note its 201 answered, and the time from the note's `createdAt` (stamped
 * just before its commit) to the first attempt that reached the receiver and to the first it
 * acknowledged. The gateway runs in a process of its own, so the receiver's clock is not held up by
 * the gateway's work.
 */
import { randomInt } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { fillPath, routeById } from '#shared/api/route-table';
import type { InternalNote } from '#shared/domain/notes/build-note';
import { BENCH_NOTE_BODY, BENCH_TENANT } from './bench-requests.ts';
import { atMost, type Goal, round } from './bench-stats.ts';
import type { WebhookFairnessFigures } from './measure-webhook-fairness.ts';

/**
 * The retry schedule the bench's gateway runs (CXM_WEBHOOK_RETRY_SCHEDULE_MS): the stage's eight
 * attempts in seconds rather than hours. A note's eight attempts all failing at a fifth each is a
 * chance of 2.6 in a million.
 */
export const BENCH_WEBHOOK_SCHEDULE_MS: readonly number[] = [0, 1000, 1000, 2000, 2000, 5000, 5000, 10000];
const FAILURE_RATE = 0.2;
const CONVERSATIONS = 20;

export interface WebhooksFigures {
  notes: number;
  /** Requests in flight at once while the notes were added. */
  concurrency: number;
  /** The share of attempts the receiver answered with a 500. */
  failureRate: number;
  scheduleMs: readonly number[];
  /** Seconds the notes took to add, and from the first note to the last acknowledgement. */
  addSeconds: number;
  totalSeconds: number;
  attempts: number;
  failedOnPurpose: number;
  /** Distinct `webhook-id`s acknowledged, each with a body naming one of the notes added. */
  acknowledgedIds: number;
  /** Notes without an acknowledged delivery when the schedule had run out. */
  lost: number;
  /** Attempts whose signature did not verify, whose body was not the note its 201 answered, or whose id named no note. */
  wrong: number;
  /** Attempts of an id the receiver had already acknowledged (at-least-once allows them). */
  afterAcknowledged: number;
  firstReceipt: { p50Ms: number; p99Ms: number };
  acknowledged: { p50Ms: number; p99Ms: number };
  goals: { noneLost: Goal; allRight: Goal };
  /** Two tenants on the same stack: the calm one's deliveries under the noisy one's load. */
  fairness?: WebhookFairnessFigures;
}

interface Receipt {
  firstMs: number;
  acknowledgedMs?: number;
  attempts: number;
}

/** The percentile `p` (0-100) of `values`, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The receiver: every attempt verified, a fifth answered 500 at random, the rest 204. */
async function startReceiver(expected: Map<string, InternalNote>) {
  let verifier: Webhook | undefined;
  const byId = new Map<string, Receipt>();
  const noteOfId = new Map<string, string>();
  const state = { attempts: 0, failedOnPurpose: 0, wrong: 0, afterAcknowledged: 0 };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = Date.now();
      state.attempts++;
      const body = Buffer.concat(chunks).toString('utf8');
      let note: InternalNote | undefined;
      try {
        const payload = verifier!.verify(body, request.headers as IncomingHttpHeaders & Record<string, string>) as {
          data?: { note?: InternalNote };
        };
        note = payload.data?.note;
      } catch {
        state.wrong++;
        response.writeHead(400).end();
        return;
      }
      const id = String(request.headers['webhook-id']);
      const answered = note === undefined ? undefined : expected.get(note.id);
      const seenFor = noteOfId.get(id);
      // An id is one note's: the body must be the note its 201 answered, and the same on every attempt.
      if (!answered || !isDeepStrictEqual(answered, note) || (seenFor !== undefined && seenFor !== note!.id)) {
        state.wrong++;
        response.writeHead(400).end();
        return;
      }
      noteOfId.set(id, note!.id);
      const receipt = byId.get(id) ?? { firstMs: at, attempts: 0 };
      byId.set(id, receipt);
      receipt.attempts++;
      if (receipt.acknowledgedMs !== undefined) state.afterAcknowledged++;
      if (Math.random() < FAILURE_RATE) {
        state.failedOnPurpose++;
        response.writeHead(500).end();
        return;
      }
      receipt.acknowledgedMs ??= at;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
  return {
    url,
    state,
    byId,
    noteOfId,
    verifyWith(secret: string) {
      verifier = new Webhook(secret);
    },
    acknowledgedNotes: () => [...byId.entries()].filter(([, receipt]) => receipt.acknowledgedMs !== undefined).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(url: string, key: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as unknown };
}

/**
 * Adds `notes` notes through the gateway at `gatewayUrl` (whose schedule is BENCH_WEBHOOK_SCHEDULE_MS)
 * with `key` (scopes `cxm:conversations.write` and `webhooks:endpoints.write` on the bench tenant),
 * and follows their deliveries until each is acknowledged or the schedule has run out.
 *
 * @example report.webhooks = await measureWebhooks(gateway.url, key, { notes: 1000, concurrency: 10 }, progress);
 */
export async function measureWebhooks(
  gatewayUrl: string,
  key: string,
  options: { notes: number; concurrency: number },
  progress: (message: string) => void,
  addConversation: (id: string) => Promise<void>,
): Promise<WebhooksFigures> {
  const expected = new Map<string, InternalNote>();
  const receiver = await startReceiver(expected);
  try {
    const conversations = Array.from({ length: CONVERSATIONS }, (_, i) => `bench-webhooks-${i}`);
    for (const id of conversations) await addConversation(id);
    const registered = await call(
      gatewayUrl,
      key,
      'POST',
      fillPath(routeById('createWebhookEndpoint'), { tenantId: BENCH_TENANT }),
      { url: receiver.url, events: ['note.created'], description: 'bench receiver' },
    );
    if (registered.status !== 201) throw new Error(`registering the receiver: ${JSON.stringify(registered)}`);
    receiver.verifyWith((registered.json as { secret: string }).secret);

    progress(`webhooks: adding ${options.notes} notes, ${options.concurrency} at a time`);
    const startedMs = Date.now();
    let next = 0;
    const { body } = JSON.parse(BENCH_NOTE_BODY) as { body: string };
    const worker = async () => {
      while (next < options.notes) {
        const index = next++;
        const conversationId = conversations[randomInt(conversations.length)]!;
        const path = fillPath(routeById('addInternalNote'), { tenantId: BENCH_TENANT, conversationId });
        const answer = await call(gatewayUrl, key, 'POST', path, { body: `${body} (${index})` });
        if (answer.status !== 201) throw new Error(`note ${index}: ${JSON.stringify(answer)}`);
        const { note } = answer.json as { note: InternalNote };
        expected.set(note.id, note);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const addSeconds = (Date.now() - startedMs) / 1000;

    // Every note's attempts fit in the schedule's span; the rest is slack for a busy machine.
    const scheduleSpanMs = BENCH_WEBHOOK_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    const deadline = Date.now() + scheduleSpanMs + 60_000;
    let shownMs = 0;
    while (receiver.acknowledgedNotes() < expected.size && Date.now() < deadline) {
      if (Date.now() - shownMs >= 5000) {
        progress(`webhooks: ${receiver.acknowledgedNotes()} of ${expected.size} acknowledged`);
        shownMs = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A last look for deliveries after an acknowledgement, which at-least-once allows.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const totalSeconds = (Date.now() - startedMs) / 1000;

    const firstReceipt: number[] = [];
    const acknowledged: number[] = [];
    for (const [id, receipt] of receiver.byId) {
      const createdMs = Date.parse(expected.get(receiver.noteOfId.get(id)!)!.createdAt);
      firstReceipt.push(receipt.firstMs - createdMs);
      if (receipt.acknowledgedMs !== undefined) acknowledged.push(receipt.acknowledgedMs - createdMs);
    }
    const acknowledgedNotes = new Set(
      [...receiver.byId.entries()]
        .filter(([, receipt]) => receipt.acknowledgedMs !== undefined)
        .map(([id]) => receiver.noteOfId.get(id)),
    );
    const lost = [...expected.keys()].filter((noteId) => !acknowledgedNotes.has(noteId)).length;
    // Two ids for one note would be a second delivery of one event.
    const wrong = receiver.state.wrong + (receiver.byId.size - new Set(receiver.noteOfId.values()).size);
    return {
      notes: expected.size,
      concurrency: options.concurrency,
      failureRate: FAILURE_RATE,
      scheduleMs: BENCH_WEBHOOK_SCHEDULE_MS,
      addSeconds: round(addSeconds, 1),
      totalSeconds: round(totalSeconds, 1),
      attempts: receiver.state.attempts,
      failedOnPurpose: receiver.state.failedOnPurpose,
      acknowledgedIds: acknowledged.length,
      lost,
      wrong,
      afterAcknowledged: receiver.state.afterAcknowledged,
      firstReceipt: { p50Ms: round(percentile(firstReceipt, 50), 0), p99Ms: round(percentile(firstReceipt, 99), 0) },
      acknowledged: { p50Ms: round(percentile(acknowledged, 50), 0), p99Ms: round(percentile(acknowledged, 99), 0) },
      goals: { noneLost: atMost(lost, 0), allRight: atMost(wrong, 0) },
    };
  } finally {
    await receiver.close();
  }
}
