/**
 * A `cxm smoke` run against its target, start to end: the target proves it is this API
 * (GET /openapi.json), then, for a stage or the local stack, the smoke tenant is seeded and a
 * temporary key issued (and revoked at the end), then every check runs with progress on a
 * terminal. Loaded only when `cxm smoke` runs: it brings ajv, the OpenAPI document and, for
 * --stage, the CloudFormation client, which no other command needs.
 */
import { randomBytes } from 'node:crypto';
import { localStatePath } from '#infra/local/local-state';
import { API_URL_OUTPUT, stackName } from '#infra/stage-names';
import { connectStores } from '../stage/connect-stores.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { progressLine, type SmokeReport, smokeReport } from './print-smoke-report.ts';
import { runRecordingJourney, SMOKE_RECORDINGS } from './run-recording-journey.ts';
import {
  type CheckResult,
  checkOpenApiDocument,
  diagnoseKey,
  requestOf,
  runCheck,
  type SmokeTarget,
} from './run-smoke-checks.ts';
import { type SmokeCheck, type SmokePlan, smokeChecks, smokeScopes } from './smoke-checks.ts';
import { seedSmokeTenant, TEMPORARY_KEY_MINUTES } from './smoke-tenant.ts';
import { withTemporaryKey } from './with-temporary-key.ts';

export type SmokeMode =
  /** --url: the caller's key and tenant; nothing is seeded. */
  | { kind: 'given-key'; url: string; key: string; tenant: string }
  /** --stage, or the local stack when `stage` is undefined: a temporary key in a seeded tenant. */
  | { kind: 'own-key'; stage: string | undefined; tenant: string };

export interface SmokeOutcome {
  report: SmokeReport;
  /** What is wrong with the key, when every keyed check was refused alike. */
  diagnosis?: string | undefined;
}

/**
 * How long a recording journey waits for its job: locally the stand-in answers at once; on a stage
 * Amazon Transcribe takes its minutes.
 */
const RECORDING_SETTLE_MS = { local: 30_000, stage: 600_000 };

/** How long a stage may take to accept a new key (API Gateway learns a new usage-plan key with a delay). */
const KEY_ACCEPTANCE_MS = 60_000;

function baseUrlOf(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new CliError(
      `--url '${raw}' is not a base URL: give the stage's ApiUrl (e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/dev/) or the local http://127.0.0.1:3000`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

const newRunId = () => randomBytes(4).toString('hex');

/** Every check after the document, in order, showing progress on a terminal. */
async function runChecks(
  cli: CliContext,
  target: SmokeTarget,
  checks: readonly SmokeCheck[],
  document: CheckResult,
  howToGetAKey: string,
): Promise<{ results: CheckResult[]; diagnosis?: string | undefined }> {
  const progress = progressLine(cli.stderr);
  const results: CheckResult[] = [];
  const earlier = new Map<string, unknown>();
  try {
    for (const [i, check] of checks.entries()) {
      const request = requestOf(check, earlier);
      const what = typeof request === 'string' ? '' : `: ${request.method} ${request.path}`;
      progress.show(`[${i + 2}/${checks.length + 1}] ${check.name}${what}`);
      results.push(await runCheck(check, target, earlier));
    }
  } finally {
    progress.clear();
  }
  return { results: [document, ...results], diagnosis: diagnoseKey(checks, results, target, howToGetAKey) };
}

/** A new usage-plan key can take a moment to reach every API Gateway node: wait while the stage refuses it. */
async function waitUntilKeyAccepted(
  cli: CliContext,
  target: SmokeTarget,
  checks: readonly SmokeCheck[],
): Promise<void> {
  const probe = checks.find((check) => check.route === 'getVocJobStatus')!;
  const deadline = Date.now() + KEY_ACCEPTANCE_MS;
  for (let waited = false; ; waited = true) {
    const { status } = await runCheck(probe, target);
    if ((status !== 401 && status !== 403) || Date.now() > deadline) return;
    if (!waited) cli.warn(`Waiting up to ${KEY_ACCEPTANCE_MS / 1000} s for the stage to accept the new key...`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function smokeWithOwnKey(
  cli: CliContext,
  stage: string | undefined,
  tenant: string,
  timeoutMs: number,
): Promise<SmokeOutcome> {
  const stores = await connectStores(cli, stage);
  // The CloudFormation client is loaded only for a stage.
  const url =
    stage !== undefined
      ? await (await import('../stage/find-stage-outputs.ts')).findStageApiUrl(cli, stage)
      : stores.apiUrl!;
  const whatToDo =
    stage !== undefined
      ? `That is the ${API_URL_OUTPUT} output of stack ${stackName(stage)}: is its deployment complete, and is the API reachable from this network?`
      : `That is the apiUrl of ${localStatePath(cli.home)}: is npm start running with the same CXM_HOME?`;
  const target: SmokeTarget = { baseUrl: baseUrlOf(url), key: '', tenant, timeoutMs };
  // Nothing is written before the URL has proved to be this API.
  const document = await checkOpenApiDocument(target, whatToDo);
  const plan: SmokePlan = { tenant, seed: await seedSmokeTenant(stores, tenant), runId: newRunId() };
  const checks = smokeChecks(plan);
  const expiresAt = new Date(Date.now() + TEMPORARY_KEY_MINUTES * 60_000).toISOString();
  const run = await withTemporaryKey(
    cli,
    stores,
    { tenants: [tenant], scopes: smokeScopes(), name: 'cxm smoke', expiresAt },
    async (key) => {
      const keyed = { ...target, key };
      if (stage !== undefined) await waitUntilKeyAccepted(cli, keyed, checks);
      const run = await runChecks(
        cli,
        keyed,
        checks,
        document,
        `The temporary key was stored in the keys table of the ${stores.target}: does the API at ${target.baseUrl} read another one?`,
      );
      // Only in the smoke tenant: each writes a VOC row, which a customer's reports should not show.
      const settleMs = stage === undefined ? RECORDING_SETTLE_MS.local : RECORDING_SETTLE_MS.stage;
      for (const recording of SMOKE_RECORDINGS)
        run.results.push(await runRecordingJourney(keyed, plan.runId, settleMs, recording));
      return run;
    },
  );
  return { report: smokeReport(url, tenant, run.results), diagnosis: run.diagnosis };
}

async function smokeWithGivenKey(
  cli: CliContext,
  url: string,
  key: string,
  tenant: string,
  timeoutMs: number,
): Promise<SmokeOutcome> {
  const target: SmokeTarget = { baseUrl: baseUrlOf(url), key, tenant, timeoutMs };
  const document = await checkOpenApiDocument(
    target,
    'Check --url: it is the base URL of a deployed stage (the ApiUrl output of cdk deploy, e.g. https://abc123.execute-api.eu-west-1.amazonaws.com/dev/) or of npm start (http://127.0.0.1:3000).',
  );
  const keysCreate = `npx cxm keys create [--stage <name>] --tenant ${tenant} ${smokeScopes()
    .map((scope) => `--scope ${scope}`)
    .join(' ')}`;
  const run = await runChecks(
    cli,
    target,
    smokeChecks({ tenant, runId: newRunId() }),
    document,
    `Create a key for the checks with: ${keysCreate}; or let 'cxm smoke --stage <name>' make its own.`,
  );
  return { report: smokeReport(url, tenant, run.results), diagnosis: run.diagnosis };
}

/**
 * A smoke run in `mode` for the CLI run `cli` (its progress and notes on the run's stderr), each
 * request allowed `timeoutMs`.
 *
 * @example const { report, diagnosis } = await runSmoke({ kind: 'given-key', url, key, tenant: 'acme' }, 15_000, cli);
 */
export function runSmoke(mode: SmokeMode, timeoutMs: number, cli: CliContext): Promise<SmokeOutcome> {
  return mode.kind === 'given-key'
    ? smokeWithGivenKey(cli, mode.url, mode.key, mode.tenant, timeoutMs)
    : smokeWithOwnKey(cli, mode.stage, mode.tenant, timeoutMs);
}
