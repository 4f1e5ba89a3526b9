/**
 * `cxm import --tenant <id> <file.json> [--resume] [--no-wait]` (infra/README.md, the operator CLI):
 * streams the file, checks it whole before writing, writes with progress on stderr, after an
 * interruption continues where it stopped with `--resume` (import-file.ts), and on a target that
 * searches OpenSearch reports success once its rows are searchable (wait-until-searchable.ts).
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
import { wholeNumberOption } from '../terminal/whole-number-option.ts';

interface ImportOptions {
  tenant: string;
  stage?: string;
  resume?: boolean;
  wait: boolean;
  waitTimeout: string;
}

/**
 * Adds `cxm import` to the program, for the run `cli`.
 *
 * @example registerImportCommand(program, cli) // then: cxm import --tenant acme data.json [--resume]
 */
export function registerImportCommand(program: Command, cli: CliContext): void {
  program
    .command('import')
    .description('load an import file into a tenant (idempotent by id: re-import overwrites)')
    .requiredOption('--tenant <id>', 'tenant to load the data into')
    .argument('<file>', 'JSON import file')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .option('--resume', 'continue an interrupted import of the same file into the same tenant and target')
    .option('--no-wait', 'on OpenSearch, report success once the rows are stored, not once the lists show them')
    .option(
      '--wait-timeout <seconds>',
      'on OpenSearch, fail once the rows stop becoming searchable for this long',
      String(DEFAULT_WAIT_SECONDS),
    )
    .action(async (file: string, options: ImportOptions) => {
      if (!isValidTenantId(options.tenant)) throw new CliError(`tenant '${options.tenant}' is not a valid tenant id`);
      const waitTimeout = wholeNumberOption('wait-timeout', options.waitTimeout, 1, 86_400);
      // A long import meets throttling (a stage at its capacity): the SDK's adaptive mode slows the
      // client down when it does, with more attempts than its default 3. The operator's own
      // AWS_RETRY_MODE / AWS_MAX_ATTEMPTS win.
      const { AWS_RETRY_MODE = 'adaptive', AWS_MAX_ATTEMPTS = '10' } = cli.env;
      const stores = await connectStores(cli, options.stage, { ...cli.env, AWS_RETRY_MODE, AWS_MAX_ATTEMPTS });
      // Imported only when this command runs: the import path brings ajv, the generated validators
      // and the streaming parser.
      const { runImport } = await import('./run-import.ts');
      const search = options.wait ? await stores.reportingSearch() : undefined;
      const written = new WrittenRows();
      const { summary } = await runImport(cli, {
        file: cli.resolvePath(file),
        shownAs: file,
        tenant: options.tenant,
        target: stores.target,
        targetKey: options.stage === undefined ? 'local stack' : `stage ${options.stage}`,
        stores: search ? recordWrittenRows(stores, written) : stores,
        resume: options.resume === true,
      });
      // Rows stored by an earlier, interrupted run of a resumed import are not waited for.
      const searchable = search ? await waitUntilSearchable(cli, search, written, waitTimeout) : undefined;
      const counts = Object.entries(summary).filter(([, n]) => n > 0);
      const what = counts.length === 0 ? 'nothing' : counts.map(([member, n]) => `${n} ${member}`).join(', ');
      cli.print(
        `Imported ${what} into tenant ${options.tenant} on the ${stores.target}` +
          `${searchable === undefined ? '' : `, searchable ${searchable.toFixed(1)} s later`}.`,
      );
    });
}
