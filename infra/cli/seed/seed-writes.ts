/**
 * What `cxm seed` writes: reporting rows generated a chunk at a time and shaped for the lists, in
 * BatchWrite requests of 25, then the VOC jobs. Ids are numbered (`asst-000001`, `voc-000001`,
 * `job-000001`), so a re-run overwrites the same items instead of adding more; the same --seed
 * gives the same content (times relative to now).
 */

import { generateAssistantRows, generateVocRows } from '#infra/tenant-data/generate-report-rows';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { type ReportRow, type ShapedRow, shapeRow } from '#shared/domain/reporting/report-rows';
import type { JobStatus, VocJob } from '#shared/domain/voc/job-status';
import type { CliStores } from '../stage/connect-stores.ts';

/** What seeding writes with: the stores, never a key (so no key-tag secret). */
export type SeedStores = Omit<CliStores, 'keyTagSecret' | 'reportingSearch'>;

/** What to seed, from `cxm seed`'s options; `now` is the instant the rows' times count back from. */
export interface SeedPlan {
  tenant: string;
  assistant: number;
  voc: number;
  jobs: number;
  days: number;
  seed: number;
  now: number;
}

/** Rows per generator call. Fixed: the rows of a seed depend on it. */
const CHUNK = 1000;
/** Rows per BatchWrite request (DynamoDB's maximum). */
const BATCH = 25;
const DAY_MS = 86_400_000;

/** A 32-bit hash of small integers (murmur3's finalizer over a running mix). */
function hash32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) {
    h = Math.imul(h ^ (value >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

const unit = (...values: number[]) => hash32(...values) / 4294967296;

/**
 * A chunk's rows come from the generator with their own seed, numbered from 1; give them their
 * place in the whole run: ID and ticket numbers shifted by the chunk's first index.
 */
function renumber(row: ReportRow, offset: number): ReportRow {
  if (offset === 0) return row;
  const shifted: ReportRow = { ...row };
  shifted.ID = String(row.ID).replace(/\d+$/, (digits) => String(Number(digits) + offset).padStart(digits.length, '0'));
  for (const field of ['ticketId', 'ticketUrl', 'TicketId', 'TicketUrl']) {
    const value = row[field];
    if (typeof value === 'string')
      shifted[field] = value.replace(/T-(\d+)/, (_, n: string) => `T-${Number(n) + offset}`);
  }
  return shifted;
}

const KIND_SALT: Record<ReportKind, number> = { assistant: 1, voc: 2 };

/** The rows of one kind in batches of 25, generated a chunk at a time. */
function* rowBatches(plan: SeedPlan, kind: ReportKind): Generator<ShapedRow[]> {
  const count = kind === 'assistant' ? plan.assistant : plan.voc;
  const generate = kind === 'assistant' ? generateAssistantRows : generateVocRows;
  for (let start = 0; start < count; start += CHUNK) {
    const rows = generate({
      count: Math.min(CHUNK, count - start),
      days: plan.days,
      now: plan.now,
      seed: hash32(plan.seed, KIND_SALT[kind], start / CHUNK),
    });
    const shaped = rows.map((row) => shapeRow(kind, plan.tenant, renumber(row, start)));
    for (let i = 0; i < shaped.length; i += BATCH) yield shaped.slice(i, i + BATCH);
  }
}

/** VOC job `n` (1-based): mostly completed, some failed, the ones still started recent. */
function seedJob(plan: SeedPlan, n: number): VocJob {
  const number = String(n).padStart(6, '0');
  const roll = unit(plan.seed, 3, n, 0);
  const status: JobStatus = roll < 0.8 ? 'completed' : roll < 0.9 ? 'failed' : 'started';
  const window = status === 'started' ? Math.min(plan.days * DAY_MS, 2 * 3_600_000) : plan.days * DAY_MS;
  const recordingId = `rec-${number}`;
  return {
    id: `job-${number}`,
    status,
    started: Math.floor(plan.now - unit(plan.seed, 3, n, 1) * window),
    file: `recordings/${plan.tenant}/${recordingId}.wav`,
    recordingId,
  };
}

/** Every write of the plan, lazily; each resolves to the number of items it wrote. */
export function* seedWrites(plan: SeedPlan, stores: SeedStores): Generator<() => Promise<number>> {
  for (const kind of ['assistant', 'voc'] as const) {
    for (const batch of rowBatches(plan, kind)) {
      yield () => stores.reportingRows.putRows(plan.tenant, kind, batch).then(() => batch.length);
    }
  }
  for (let n = 1; n <= plan.jobs; n++) {
    const job = seedJob(plan, n);
    yield () => stores.vocJobs.put(plan.tenant, job).then(() => 1);
  }
}
