/**
 * npm start's settings (infra/local/README.md, Configuration), read and checked before anything
 * starts, so that a mistyped one stops the start with one line that names the variable and says what
 * to write. Pure: the environment and the working directory in, the settings or that line out.
 */
import { DEFAULT_RATE_LIMIT, DEFAULT_STAGE_RATE_LIMIT, type RateLimit } from '#infra/cdk/stage/default-rate-limits';
import { idempotencyTtlMs } from '#shared/settings/idempotency-settings';
import { acceptsUntaggedKeys } from '#shared/settings/key-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { wholeNumberSetting } from '#shared/settings/whole-number-setting';
import { javaCommand } from './emulators/local-programs.ts';
import { formatRateLimit, parseRateLimit } from './gateway/token-buckets.ts';
import { cxmHome } from './local-state.ts';
import { type FunctionRuntimeKind, functionRuntimeKind, maxEnvironments } from './runtime/function-runtime.ts';
import { type LocalLogLevel, parseLocalLogLevel } from './runtime/local-log.ts';

/** What npm start runs with, each setting checked. */
export interface StartSettings {
  /** PORT: the gateway's port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** CXM_HOME, resolved against the working directory. */
  home: string;
  /** CXM_IN_MEMORY=1: the store in memory, the secrets per run. */
  inMemory: boolean;
  /** CXM_AUTH_CACHE_TTL; undefined: the deployed authorizer's (bundle mode reads it from the template), else 60. */
  authCacheTtlSeconds: number | undefined;
  /** CXM_SCHEDULE_SECONDS; undefined: each scheduled rule at its own rate. */
  scheduleEverySeconds: number | undefined;
  /** CXM_LOG_LEVEL: the local runtime's own lines. */
  logLevel: LocalLogLevel;
  /** CXM_RUNTIME: what serves the functions. */
  runtime: FunctionRuntimeKind;
  /** CXM_FUNCTION_CONCURRENCY: bundle mode's environments per function at most. */
  functionConcurrency: number;
  /** CXM_IDEMPOTENCY_TTL_HOURS, in milliseconds (the functions read the variable themselves). */
  idempotencyTtlMs: number;
  /** CXM_ACCEPT_UNTAGGED_KEYS (the authorizer reads the variable itself). */
  acceptUntaggedKeys: boolean;
  /** CXM_RATE_LIMIT: the per-tenant token bucket. */
  rateLimit: RateLimit;
  /** CXM_STAGE_RATE_LIMIT: the per-method token bucket before the authorizer. */
  stageRateLimit: RateLimit;
  /** The Java that runs DynamoDB Local and the OpenSearch engine: JAVA_HOME's, else `java` on PATH. */
  java: string;
  /** CXM_REPORTING_BACKEND: where the reporting lists search (the functions read the variable themselves). */
  reportingBackend: 'dynamodb' | 'opensearch';
  /** CXM_OPENSEARCH_HEAP: the local engine's heap, as `-Xmx` takes it. */
  opensearchHeap: string;
}

/** The settings, or the one line that says which is wrong and what to write. */
export type StartSettingsReading = { ok: true; settings: StartSettings } | { ok: false; message: string };

function rateLimitSetting(env: NodeJS.ProcessEnv, name: string, fallback: RateLimit): RateLimit {
  const limit = parseRateLimit(env[name] || formatRateLimit(fallback));
  if (!limit)
    throw new Error(
      `${name}=${env[name]} is not valid; give <rate per second>/<burst>, e.g. ${formatRateLimit(fallback)}.`,
    );
  return limit;
}

function reportingBackendSetting(raw: string): StartSettings['reportingBackend'] {
  if (raw === '' || raw === 'dynamodb') return 'dynamodb';
  if (raw === 'opensearch') return 'opensearch';
  throw new Error(
    `${FUNCTION_ENV.reportingBackend}=${raw} is not valid; use dynamodb (the default) or opensearch (the local OpenSearch engine, as a stage).`,
  );
}

function heapSetting(raw: string): string {
  if (raw === '') return '512m';
  if (/^[1-9]\d{0,5}[mg]$/.test(raw)) return raw;
  throw new Error(
    `CXM_OPENSEARCH_HEAP=${raw} is not valid; give megabytes or gigabytes as Java takes them, e.g. 512m or 2g.`,
  );
}

function settingsFrom(env: NodeJS.ProcessEnv, cwd: string): StartSettings {
  // Unset reads as empty, which every check takes as unset: an undefined argument would make a
  // check fall back to its default, process.env, and this reader would not be pure.
  const given = (name: string): string => env[name] ?? '';
  // In this order: the first setting that is wrong is the one reported.
  const port = wholeNumberSetting('PORT', 3000, 0, 65535, env);
  const authCacheTtlSeconds = wholeNumberSetting('CXM_AUTH_CACHE_TTL', undefined, 0, 3600, env);
  const scheduleEverySeconds = wholeNumberSetting('CXM_SCHEDULE_SECONDS', undefined, 1, 86_400, env);
  const logLevel = parseLocalLogLevel(given('CXM_LOG_LEVEL'));
  if (!logLevel) throw new Error(`CXM_LOG_LEVEL=${env.CXM_LOG_LEVEL} is not valid; use error, warn, info or debug.`);
  return {
    port,
    home: cxmHome(env, cwd),
    inMemory: env.CXM_IN_MEMORY === '1',
    authCacheTtlSeconds,
    scheduleEverySeconds,
    logLevel,
    runtime: functionRuntimeKind(given('CXM_RUNTIME')),
    functionConcurrency: maxEnvironments(env),
    idempotencyTtlMs: idempotencyTtlMs(given(FUNCTION_ENV.idempotencyTtlHours)),
    acceptUntaggedKeys: acceptsUntaggedKeys(given(FUNCTION_ENV.acceptUntaggedKeys)),
    rateLimit: rateLimitSetting(env, 'CXM_RATE_LIMIT', DEFAULT_RATE_LIMIT),
    stageRateLimit: rateLimitSetting(env, 'CXM_STAGE_RATE_LIMIT', DEFAULT_STAGE_RATE_LIMIT),
    java: javaCommand(given('JAVA_HOME')),
    reportingBackend: reportingBackendSetting(given(FUNCTION_ENV.reportingBackend)),
    opensearchHeap: heapSetting(given('CXM_OPENSEARCH_HEAP')),
  };
}

/**
 * npm start's settings from `env`, every one checked, or the message of the first that is wrong.
 *
 * @example
 * readStartSettings({ PORT: 'abc' }, '/work/app');
 * // { ok: false, message: 'PORT=abc is not valid; give a whole number from 0 to 65535.' }
 */
export function readStartSettings(env: NodeJS.ProcessEnv, cwd: string): StartSettingsReading {
  try {
    return { ok: true, settings: settingsFrom(env, cwd) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
