/** `cxm import --tenant <id> <file.json>` (DESIGN section 5). */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { isValidTenantId } from '#shared/auth/tenant-id';
import { CliError } from './cli-error.ts';
import { connectStores } from './connect-stores.ts';

export function registerImportCommand(program: Command): void {
  program
    .command('import')
    .description('load an import file into a tenant (idempotent by id: re-import overwrites)')
    .requiredOption('--tenant <id>', 'tenant to load the data into')
    .argument('<file>', 'JSON import file')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (file: string, options: { tenant: string; stage?: string }) => {
      if (!isValidTenantId(options.tenant)) throw new CliError(`tenant '${options.tenant}' is not a valid tenant id`);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
      let content: unknown;
      try {
        content = JSON.parse(text);
      } catch (error) {
        throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
      }
      // Imported only when this command runs: the import path brings ajv and the generated validators.
      const { importData, parseImportFile } = await import('./import-data.ts');
      const parsed = parseImportFile(options.tenant, content);
      const stores = await connectStores(options.stage);
      const summary = await importData(options.tenant, parsed, stores, (done, total) => {
        if (process.stderr.isTTY && total >= 100) process.stderr.write(`\rimporting ${done}/${total}`);
      });
      const counts = Object.entries(summary).filter(([, n]) => n > 0);
      if (process.stderr.isTTY && counts.reduce((sum, [, n]) => sum + n, 0) >= 100) process.stderr.write('\n');
      const what = counts.length === 0 ? 'nothing' : counts.map(([member, n]) => `${n} ${member}`).join(', ');
      console.log(`Imported ${what} into tenant ${options.tenant} on the ${stores.target}.`);
    });
}
