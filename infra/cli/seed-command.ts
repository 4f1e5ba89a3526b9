/**
 * `cxm seed --tenant <id> [--assistant N] [--voc N] [--jobs N] [--days D] [--seed S]` (DESIGN
 * section 5): realistic demo data, fast enough for 100 000 rows.
 *
 * Rows are generated a chunk at a time and written as BatchWrite requests of 25, at most
 * CONCURRENCY requests in flight, so memory stays flat whatever the count. Ids are numbered
 * (`asst-000001`, `voc-000001`, `job-000001`), so a re-run overwrites the same items instead of
 * adding more; the same --seed gives the same content (times relative to now).
 */
import type { Command } from 'commander';
import { isValidTenantId } from '#shared/auth/tenant-id';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { shapeRow, type ReportRow, type ShapedRow } from '#shared/domain/reporting/report-rows';
import type { JobStatus, VocJob } from '#shared/domain/voc/job-status';
import { CliError } from './cli-error.ts';
import { connectStores, type CliStores } from './connect-stores.ts';
import { generateAssistantRows, generateVocRows } from './generate-report-rows.ts';

/** Rows per generator call. Fixed: the rows of a seed depend on it. */
const CHUNK = 1000;
/** Rows per BatchWrite request (DynamoDB's maximum). */
const BATCH = 25;
/** Write requests in flight at once. */
const CONCURRENCY = 16;
const DAY_MS = 86_400_000;

interface SeedOptions {
  tenant: string;
  assistant: string;
  voc: string;
  jobs: string;
  days: string;
  seed: string;
  stage?: string;
}

export interface SeedPlan {
  tenant: string;
  assistant: number;
  voc: number;
  jobs: number;
  days: number;
  seed: number;
  now: number;
}

function wholeNumber(option: string, value: string, min: number, max: number): number {
  const n = /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) throw new CliError(`--${option} '${value}' must be a whole number from ${min} to ${max}`);
  return n;
}

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
    if (typeof value === 'string') shifted[field] = value.replace(/T-(\d+)/, (_, n: string) => `T-${Number(n) + offset}`);
  }
  return shifted;
}

const KIND_SALT: Record<ReportKind, number> = { assistant: 1, voc: 2 };

/** The rows of one kind in batches of 25, generated a chunk at a time. */
function* rowBatches(plan: SeedPlan, kind: ReportKind): Generator<ShapedRow[]> {
  const count = kind === 'assistant' ? plan.assistant : plan.voc;
  const generate = kind === 'assistant' ? generateAssistantRows : generateVocRows;
  for (let start = 0; start < count; start += CHUNK) {
    const rows = generate({ count: Math.min(CHUNK, count - start), days: plan.days, now: plan.now, seed: hash32(plan.seed, KIND_SALT[kind], start / CHUNK) });
    const shaped = rows.map((row) => shapeRow(kind, plan.tenant, renumber(row, start)));
    for (let i = 0; i < shaped.length; i += BATCH) yield shaped.slice(i, i + BATCH);
  }
}

/** VOC job `n` (1-based): mostly completed, some failed, the ones still started recent. */
export function seedJob(plan: SeedPlan, n: number): VocJob {
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
function* writes(plan: SeedPlan, stores: CliStores): Generator<() => Promise<number>> {
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

/** Runs the tasks with at most `concurrency` in flight; stops taking new ones after a failure. */
async function runBounded(tasks: Iterator<() => Promise<number>>, concurrency: number, onDone: (n: number) => void): Promise<void> {
  let failed = false;
  const worker = async () => {
    for (let next = tasks.next(); !failed && !next.done; next = tasks.next()) {
      try {
        onDone(await next.value());
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function progressLine(done: number, total: number, seconds: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const rate = seconds > 0 ? done / seconds : 0;
  const eta = rate > 0 && done < total ? `, ${Math.ceil((total - done) / rate)} s left` : '';
  return `\rseeding [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${Math.round(rate)}/s${eta})   `;
}

export async function seed(plan: SeedPlan, stores: CliStores, progress: boolean): Promise<number> {
  const total = plan.assistant + plan.voc + plan.jobs;
  const started = performance.now();
  let done = 0;
  let drawnAt = 0;
  const draw = () => process.stderr.write(progressLine(done, total, (performance.now() - started) / 1000));
  try {
    await runBounded(writes(plan, stores), CONCURRENCY, (n) => {
      done += n;
      if (progress && performance.now() - drawnAt >= 200) {
        drawnAt = performance.now();
        draw();
      }
    });
  } finally {
    if (progress) {
      draw();
      process.stderr.write('\n');
    }
  }
  return (performance.now() - started) / 1000;
}

export function registerSeedCommand(program: Command): void {
  program
    .command('seed')
    .description('generate realistic reporting rows and VOC jobs for a tenant (re-running overwrites the same ids)')
    .requiredOption('--tenant <id>', 'tenant to fill')
    .option('--assistant <n>', 'assistant conversation rows', '1000')
    .option('--voc <n>', 'VOC conversation rows', '1000')
    .option('--jobs <n>', 'VOC recording jobs', '20')
    .option('--days <d>', 'spread rows over the last D days', '30')
    .option('--seed <s>', 'random seed: the same seed gives the same data', '1')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (options: SeedOptions) => {
      if (!isValidTenantId(options.tenant)) {
        throw new CliError(`tenant '${options.tenant}' must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`);
      }
      const plan: SeedPlan = {
        tenant: options.tenant,
        assistant: wholeNumber('assistant', options.assistant, 0, 1_000_000),
        voc: wholeNumber('voc', options.voc, 0, 1_000_000),
        jobs: wholeNumber('jobs', options.jobs, 0, 1_000_000),
        days: wholeNumber('days', options.days, 1, 3650),
        seed: wholeNumber('seed', options.seed, 0, 4_294_967_295),
        now: Date.now(),
      };
      const stores = connectStores(options.stage);
      const total = plan.assistant + plan.voc + plan.jobs;
      const seconds = await seed(plan, stores, process.stderr.isTTY === true && total >= 100);
      const rate = seconds > 0 ? Math.round((plan.assistant + plan.voc) / seconds) : 0;
      console.log(
        `Seeded ${plan.assistant} assistant rows, ${plan.voc} VOC rows and ${plan.jobs} VOC jobs into tenant ${plan.tenant} ` +
          `in ${seconds.toFixed(1)} s (${rate} rows/s) on the ${stores.target}.`,
      );
    });
}
