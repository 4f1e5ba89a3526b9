/** The `cxm` operator CLI: keys, data and smoke checks for a local stack or a deployed stage, and the preflight of a deploy. */
import { Command, CommanderError } from 'commander';
import { ImportError } from '#infra/tenant-data/import-error';
import { CliError } from './cli-error.ts';
import { registerImportCommand } from './import-command.ts';
import { registerKeysCommands } from './keys-commands.ts';
import { registerPreflightCommand } from './preflight-command.ts';
import { registerRecountCommand } from './recount-command.ts';
import { registerSampleRecordingCommand } from './sample-recording-command.ts';
import { registerSeedCommand } from './seed-command.ts';
import { registerSmokeCommand } from './smoke-command.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const program = new Command('cxm').description('CXM API operator CLI. Targets the local stack ($CXM_HOME/local.json) unless --stage is given.').showHelpAfterError().exitOverride();
registerKeysCommands(program);
registerImportCommand(program);
registerSeedCommand(program);
registerRecountCommand(program);
registerSmokeCommand(program);
registerPreflightCommand(program);
registerSampleRecordingCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof CliError || error instanceof ImportError) {
    console.error(`cxm: ${error.message}`);
    process.exit(1);
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') {
    console.error('cxm: cannot reach DynamoDB of the local stack; is `npm start` running (with the same CXM_HOME)?');
    process.exit(1);
  }
  console.error(`cxm: ${(error as Error).message ?? String(error)}`);
  process.exit(1);
}
