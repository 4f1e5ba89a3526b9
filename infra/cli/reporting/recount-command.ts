/**
 * `cxm reporting recount [--stage <name>]`: recomputes the reporting lists' maintained counts from
 * the rows. Once when a stage first gets its counts table (rows written before it are not counted
 * yet), and after rows were written around the reporting rows store. It replaces the counts, so
 * run it while nothing imports rows.
 */
import type { Command } from 'commander';
import { isValidTenantId } from '#shared/auth/tenant-id';
import { connectStores } from '../stage/connect-stores.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { countProgress, progressOn } from '../terminal/count-progress.ts';

/**
 * Adds `cxm reporting recount` to the program, for the run `cli`.
 *
 * @example registerRecountCommand(program, cli) // then: cxm reporting recount --tenant acme
 */
export function registerRecountCommand(program: Command, cli: CliContext): void {
  program
    .command('reporting')
    .description('reporting list maintenance')
    .command('recount')
    .description(
      "recompute the reporting lists' counts (the `total` of a window) from the rows; run while nothing imports",
    )
    .option('--tenant <id>', 'only this tenant (its lists are read through the window index)')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (options: { tenant?: string; stage?: string }) => {
      if (options.tenant !== undefined && !isValidTenantId(options.tenant))
        throw new CliError(`tenant '${options.tenant}' is not a valid tenant id`);
      const stores = await connectStores(cli, options.stage);
      const started = Date.now();
      // The rows are not known in advance: a count and a rate, without a total or an ETA.
      const progress = countProgress({ label: 'counting rows', unit: 'items', ...progressOn(cli.stderr) });
      const { lists, rows } = await stores.reportingRows.rebuildCounts({
        ...(options.tenant !== undefined && { tenantId: options.tenant }),
        onProgress: (scanned) => progress.update(scanned),
      });
      progress.finish();
      cli.print(
        `Recounted ${rows} reporting rows in ${lists} lists on the ${stores.target} (${((Date.now() - started) / 1000).toFixed(1)} s).`,
      );
    });
}
