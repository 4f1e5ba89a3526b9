/**
 * `cxm preflight --stage <name>`: what in the AWS account and region would stop a deploy of the
 * stage, and how to fix it, read with the operator's credentials before `cdk deploy` finds out
 * (Lambda concurrency, API Gateway's CloudWatch role, Logs resource policies, Transcribe in the
 * region, API keys left). The run itself is loaded only when the command runs (run-preflight.ts),
 * so other commands start as fast as before.
 */
import type { Command } from 'commander';
import { STAGE_NAME_PATTERN } from '#shared/store/table-specs';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';

interface PreflightOptions {
  stage: string;
  region?: string;
  json?: boolean;
}

const HELP_AFTER = [
  '',
  'Reads, never writes: lambda:GetAccountSettings, lambda:GetFunctionConcurrency (the stage functions),',
  'apigateway:GET on /account and /apikeys, logs:DescribeResourcePolicies, transcribe:ListCallAnalyticsCategories.',
  'A call AWS refuses is reported on its row (warn, with the action to grant); the other checks still run.',
  '',
  'Each check is ok, warn or blocked; for each that is not ok, one line of what to do.',
  'Exit code 1 when any check is blocked (or none could read the account), 0 otherwise.',
].join('\n');

/**
 * Adds `cxm preflight` to the program, for the run `cli`.
 *
 * @example registerPreflightCommand(new Command('cxm'), cli) // then: cxm preflight --stage dev [--region eu-west-1] [--json]
 */
export function registerPreflightCommand(program: Command, cli: CliContext): void {
  program
    .command('preflight')
    .description(
      'before deploying a stage: what in the AWS account and region would block the deploy, and how to fix it',
    )
    .requiredOption(
      '--stage <name>',
      'the stage to deploy (its settings from infra/cdk/stage/config.ts, as cdk deploy -c stage=<name> reads them)',
    )
    .option('--region <region>', 'the region to deploy to (default: AWS_REGION or the profile)')
    .option(
      '--json',
      'print one JSON object: {stage, region, checks: [{id, name, finding, detail, fix, commands, needs, figures, checked}], ok, warn, blocked}',
    )
    .addHelpText('after', HELP_AFTER)
    .action(async (options: PreflightOptions) => {
      if (!STAGE_NAME_PATTERN.test(options.stage)) {
        throw new CliError(
          `stage '${options.stage}' is not a stage name: 1-20 lowercase letters, digits or '-', starting with a letter`,
        );
      }
      const [{ runPreflight }, { formatPreflightReport }] = await Promise.all([
        import('./run-preflight.ts'),
        import('./print-preflight-report.ts'),
      ]);
      const { report, diagnosis } = await runPreflight(cli, options.stage, options.region);
      cli.print(options.json ? JSON.stringify(report) : formatPreflightReport(report));
      if (diagnosis) throw new CliError(diagnosis);
      if (report.blocked > 0) {
        throw new CliError(
          `${report.blocked} of ${report.checks.length} checks block the deploy of stage ${report.stage} in ${report.region}; fix them and run cxm preflight again`,
        );
      }
    });
}
