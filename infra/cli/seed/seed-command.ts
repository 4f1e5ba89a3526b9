/**
 * `cxm seed --tenant <id> [--assistant N] [--voc N] [--jobs N] [--days D] [--seed S]`: realistic
 * demo data, fast enough for 100 000 rows. What is written, and why a re-run overwrites instead of
 * adding, is seed-writes.ts; here the writes run, at most CONCURRENCY requests in flight, taken one
 * at a time so memory stays flat whatever the count.
 */
import type { Command } from 'commander';
import { isValidTenantId } from '#shared/auth/tenant-id';
import { connectStores } from '../stage/connect-stores.ts';
import {
  DEFAULT_WAIT_SECONDS,
  recordWrittenRows,
  WrittenRows,
  waitUntilSearchable,
} from '../stage/wait-until-searchable.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import type { CliOutput } from '../terminal/cli-io.ts';
import { countProgress, progressOn } from '../terminal/count-progress.ts';
import { wholeNumberOption } from '../terminal/whole-number-option.ts';
import { runBounded } from './run-bounded.ts';
// Type only: the writes module itself is imported when seeding (below).
import type { SeedPlan, SeedStores } from './seed-writes.ts';

/** Write requests in flight at once. */
const CONCURRENCY = 16;

interface SeedOptions {
  tenant: string;
  assistant: string;
  voc: string;
  jobs: string;
  days: string;
  seed: string;
  stage?: string;
  wait: boolean;
  waitTimeout: string;
}

/**
 * Writes the plan's items and answers the seconds it took. `progress`: where to show it, as import
 * does (redrawn on a terminal; elsewhere a plain line every 5 s of a long run, nothing for a short
 * one); undefined shows none (the bench's seeding).
 *
 * @example const seconds = await seed(plan, stores, cli.stderr);
 */
export async function seed(plan: SeedPlan, stores: SeedStores, progress: CliOutput | undefined): Promise<number> {
  // Imported when seeding, not at every `cxm` start: the row generators serve this command only.
  const { seedWrites } = await import('./seed-writes.ts');
  const total = plan.assistant + plan.voc + plan.jobs;
  const started = performance.now();
  const counter = progress
    ? countProgress({ label: 'seeding', unit: 'items', total, ...progressOn(progress) })
    : undefined;
  let done = 0;
  try {
    await runBounded(seedWrites(plan, stores), CONCURRENCY, (n) => {
      done += n;
      counter?.update(done);
    });
  } finally {
    counter?.finish();
  }
  return (performance.now() - started) / 1000;
}

/**
 * Adds `cxm seed` to the program, for the run `cli`.
 *
 * @example registerSeedCommand(program, cli) // then: cxm seed --tenant acme --assistant 1000
 */
export function registerSeedCommand(program: Command, cli: CliContext): void {
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
    .option('--no-wait', 'on OpenSearch, report success once the rows are stored, not once the lists show them')
    .option(
      '--wait-timeout <seconds>',
      'on OpenSearch, fail once the rows stop becoming searchable for this long',
      String(DEFAULT_WAIT_SECONDS),
    )
    .action(async (options: SeedOptions) => {
      if (!isValidTenantId(options.tenant)) {
        throw new CliError(
          `tenant '${options.tenant}' must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`,
        );
      }
      const plan: SeedPlan = {
        tenant: options.tenant,
        assistant: wholeNumberOption('assistant', options.assistant, 0, 1_000_000),
        voc: wholeNumberOption('voc', options.voc, 0, 1_000_000),
        jobs: wholeNumberOption('jobs', options.jobs, 0, 1_000_000),
        days: wholeNumberOption('days', options.days, 1, 3650),
        seed: wholeNumberOption('seed', options.seed, 0, 4_294_967_295),
        now: Date.now(),
      };
      const waitTimeout = wholeNumberOption('wait-timeout', options.waitTimeout, 1, 86_400);
      const stores = await connectStores(cli, options.stage);
      const search = options.wait ? await stores.reportingSearch() : undefined;
      const written = new WrittenRows();
      const seconds = await seed(plan, search ? recordWrittenRows(stores, written) : stores, cli.stderr);
      const rate = seconds > 0 ? Math.round((plan.assistant + plan.voc) / seconds) : 0;
      const searchable = search ? await waitUntilSearchable(cli, search, written, waitTimeout) : undefined;
      cli.print(
        `Seeded ${plan.assistant} assistant rows, ${plan.voc} VOC rows and ${plan.jobs} VOC jobs into tenant ${plan.tenant} ` +
          `in ${seconds.toFixed(1)} s (${rate} rows/s) on the ${stores.target}` +
          `${searchable === undefined ? '' : `, searchable ${searchable.toFixed(1)} s later`}.`,
      );
    });
}
