/**
 * `cxm smoke`: is this running API alive and correct? One request per operation of the route
 * table plus the gateway's own answers, each response held to the OpenAPI document.
 *
 * Targets: `--stage <name>` (its URL from the stack's ApiUrl output), the local stack when neither
 * `--stage` nor `--url` is given (both with a temporary key and seeded smoke-tenant rows), or
 * `--url --key --tenant` (any running API, with the caller's key and no seeding). The run itself
 * is loaded only when the command runs (run-smoke.ts), so other commands start as fast as before.
 */
import type { Command } from 'commander';
import { isValidTenantId } from '#shared/auth/tenant-id';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { wholeNumberOption } from '../terminal/whole-number-option.ts';
import { formatSmokeReport } from './print-smoke-report.ts';
import type { SmokeMode } from './run-smoke.ts';
import { SMOKE_COLLECTION, SMOKE_DOCUMENT, smokeScopes } from './smoke-checks.ts';
import { SMOKE_TENANT, TEMPORARY_KEY_MINUTES } from './smoke-tenant.ts';

interface SmokeOptions {
  stage?: string;
  url?: string;
  key?: string;
  tenant?: string;
  timeout: string;
  json?: boolean;
}

function timeoutMsOf(value: string): number {
  return wholeNumberOption('timeout', value, 1, 300, 'seconds') * 1000;
}

function checkedTenant(tenant: string): string {
  if (!isValidTenantId(tenant)) {
    throw new CliError(
      `tenant '${tenant}' must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  return tenant;
}

function modeOf(options: SmokeOptions, keyTypedHere: boolean): SmokeMode {
  if (options.url === undefined) {
    // CXM_KEY in the environment is for --url; only a --key typed with --stage is a mistake.
    if (keyTypedHere)
      throw new CliError(
        '--key goes with --url; with --stage or the local stack, cxm smoke makes its own temporary key',
      );
    const tenant = checkedTenant(options.tenant ?? SMOKE_TENANT);
    // It seeds rows (a bot, a job, reporting rows, notes) that the tenant's own users would see.
    if (!tenant.startsWith(SMOKE_TENANT)) {
      throw new CliError(
        `--tenant '${tenant}': with --stage (or the local stack) cxm smoke writes rows to its tenant, so it must be a smoke tenant whose id starts with '${SMOKE_TENANT}'; to check a real tenant, use --url with that tenant's key`,
      );
    }
    return { kind: 'own-key', stage: options.stage, tenant };
  }
  if (options.stage !== undefined) throw new CliError('--url and --stage both name the target: give one of them');
  if (!options.key)
    throw new CliError(
      `--url needs --key <key> (or CXM_KEY): a key holding --tenant and the scopes ${smokeScopes().join(' ')}`,
    );
  if (options.tenant === undefined) throw new CliError('--url needs --tenant <id>: a tenant the key holds');
  return { kind: 'given-key', url: options.url, key: options.key, tenant: checkedTenant(options.tenant) };
}

const HELP_AFTER = [
  '',
  'Without --stage or --url it checks the local stack ($CXM_HOME/local.json) the way --stage does.',
  '',
  'With --stage (or the local stack) it writes to the smoke tenant only, the same rows every run:',
  'conversation smoke-open (reset to open; each run adds one internal note to it), bot smoke-bot,',
  `VOC job smoke-job, reporting rows smoke-assistant and smoke-voc, document ${SMOKE_COLLECTION}/${SMOKE_DOCUMENT}.`,
  "Its temporary key (and the key's API Gateway usage-plan key) is revoked at the end, also after a",
  `failure or Ctrl-C; the revoked key stays in 'cxm keys list', and expires ${TEMPORARY_KEY_MINUTES} minutes after creation anyway.`,
  '',
  `With --url it writes nothing to the tenant but document ${SMOKE_COLLECTION}/${SMOKE_DOCUMENT}: the note and job checks`,
  'ask for a conversation and a job that do not exist (404). The key needs these scopes for --tenant:',
  `  ${smokeScopes().join(' ')}`,
  '',
  'Exit code 0 when every check passes, 1 otherwise.',
].join('\n');

/**
 * Adds `cxm smoke` to the program, for the run `cli`.
 *
 * @example registerSmokeCommand(program, cli) // then: cxm smoke --url <base-url> --key <key> --tenant acme
 */
export function registerSmokeCommand(program: Command, cli: CliContext): void {
  program
    .command('smoke')
    .description(
      'check that a running API is alive and correct: every operation, 401/403/404 and /openapi.json, each answer held to the OpenAPI document',
    )
    .option('--stage <name>', 'the deployed stage: its URL from stack cxm-<name>, a temporary key, the smoke tenant')
    .option('--url <base-url>', 'any running API, with --key and --tenant')
    // CXM_KEY is read from the run's environment below, not by commander (which reads the process's).
    .option('--key <key>', 'with --url: a key holding --tenant and the scopes below (env: CXM_KEY)')
    .option('--tenant <id>', `with --url: a tenant of the key; else the smoke tenant (default ${SMOKE_TENANT})`)
    .option('--timeout <seconds>', 'time allowed for each request', '15')
    .option('--json', 'print one JSON object: {url, tenant, checks: [...], passed, failed}')
    .addHelpText('after', HELP_AFTER)
    .action(async (options: SmokeOptions, command: Command) => {
      const timeoutMs = timeoutMsOf(options.timeout);
      const mode = modeOf(
        { ...options, key: options.key ?? cli.env.CXM_KEY },
        command.getOptionValueSource('key') === 'cli',
      );
      const { runSmoke } = await import('./run-smoke.ts');
      const { report, diagnosis } = await runSmoke(mode, timeoutMs, cli);
      cli.print(options.json ? JSON.stringify(report) : formatSmokeReport(report));
      if (diagnosis) throw new CliError(diagnosis);
      if (report.failed > 0)
        throw new CliError(`${report.failed} of ${report.checks.length} checks failed against ${report.url}`);
    });
}
