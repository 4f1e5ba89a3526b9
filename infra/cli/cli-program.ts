/**
 * The `cxm` program: its commands, each bound to one run of the CLI, and commander's own output
 * (help, usage errors) on the run's outputs. Built anew for every run, so nothing of one run's
 * parsing (option values, their sources) is left for the next.
 */
import { Command } from 'commander';
import { registerImportCommand } from './import/import-command.ts';
import { registerKeysCommands } from './keys/keys-commands.ts';
import { registerPreflightCommand } from './preflight/preflight-command.ts';
import { registerSampleRecordingCommand } from './recordings/sample-recording-command.ts';
import { registerRecountCommand } from './reporting/recount-command.ts';
import { registerSeedCommand } from './seed/seed-command.ts';
import { registerSmokeCommand } from './smoke/smoke-command.ts';
import type { CliContext } from './terminal/cli-context.ts';

/**
 * The program for the run `cli`; it throws a CommanderError where commander would exit.
 *
 * @example await cliProgram(cli).parseAsync(['keys', 'list'], { from: 'user' });
 */
export function cliProgram(cli: CliContext): Command {
  const { stdout, stderr } = cli;
  const program = new Command('cxm')
    .description('CXM API operator CLI. Targets the local stack ($CXM_HOME/local.json) unless --stage is given.')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => stdout.write(text),
      writeErr: (text) => stderr.write(text),
      // A terminal's width, else commander's own 80.
      getOutHelpWidth: () => (stdout.isTTY && stdout.columns ? stdout.columns : 80),
      getErrHelpWidth: () => (stderr.isTTY && stderr.columns ? stderr.columns : 80),
      getOutHasColors: () => stdout.isTTY === true,
      getErrHasColors: () => stderr.isTTY === true,
    });
  registerKeysCommands(program, cli);
  registerImportCommand(program, cli);
  registerSeedCommand(program, cli);
  registerRecountCommand(program, cli);
  registerSmokeCommand(program, cli);
  registerPreflightCommand(program, cli);
  registerSampleRecordingCommand(program, cli);
  return program;
}
