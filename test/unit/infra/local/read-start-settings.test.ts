/**
 * npm start's settings, read before anything starts: the defaults, each setting given, and for
 * every setting a wrong value refused in one line that names the variable and says what to write,
 * the first wrong one in the documented order being the one reported. test/integration/npm-start
 * keeps one real start that such a line stops.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkJava, StartupError } from '#infra/local/emulators/local-programs';
import { readStartSettings, type StartSettings } from '#infra/local/read-start-settings';

const CWD = '/work/app';

function settings(env: NodeJS.ProcessEnv, cwd = CWD): StartSettings {
  const reading = readStartSettings(env, cwd);
  if (!reading.ok) throw new Error(`expected settings, got: ${reading.message}`);
  return reading.settings;
}

function refusal(env: NodeJS.ProcessEnv): string {
  const reading = readStartSettings(env, CWD);
  if (reading.ok) throw new Error(`expected a refusal, got settings: ${JSON.stringify(reading.settings)}`);
  return reading.message;
}

const DEFAULTS: StartSettings = {
  port: 3000,
  home: `${CWD}/.cxm`,
  inMemory: false,
  authCacheTtlSeconds: undefined,
  scheduleEverySeconds: undefined,
  logLevel: 'info',
  runtime: 'sources',
  functionConcurrency: 8,
  idempotencyTtlMs: 24 * 3_600_000,
  acceptUntaggedKeys: true,
  rateLimit: { rate: 50, burst: 100 },
  stageRateLimit: { rate: 2000, burst: 4000 },
  java: 'java',
  reportingBackend: 'dynamodb',
  opensearchHeap: '512m',
};

/** A wrong value of every setting that can be wrong, in the order they are checked, with its line. */
const WRONG: ReadonlyArray<readonly [name: string, value: string, message: string]> = [
  ['PORT', 'abc', 'PORT=abc is not valid; give a whole number from 0 to 65535.'],
  ['CXM_AUTH_CACHE_TTL', '3601', 'CXM_AUTH_CACHE_TTL=3601 is not valid; give a whole number from 0 to 3600.'],
  ['CXM_SCHEDULE_SECONDS', '0', 'CXM_SCHEDULE_SECONDS=0 is not valid; give a whole number from 1 to 86400.'],
  ['CXM_LOG_LEVEL', 'verbose', 'CXM_LOG_LEVEL=verbose is not valid; use error, warn, info or debug.'],
  ['CXM_RUNTIME', 'lambda', 'CXM_RUNTIME=lambda is not valid; use sources (the default) or bundles.'],
  ['CXM_FUNCTION_CONCURRENCY', '0', 'CXM_FUNCTION_CONCURRENCY=0 is not valid; give a whole number from 1 to 100.'],
  [
    'CXM_IDEMPOTENCY_TTL_HOURS',
    '0',
    'CXM_IDEMPOTENCY_TTL_HOURS=0 is not valid; give a number of hours above 0, at most 8784 (fractions allowed).',
  ],
  ['CXM_ACCEPT_UNTAGGED_KEYS', 'no', 'CXM_ACCEPT_UNTAGGED_KEYS must be true or false, not "no"'],
  ['CXM_RATE_LIMIT', 'fast', 'CXM_RATE_LIMIT=fast is not valid; give <rate per second>/<burst>, e.g. 50/100.'],
  [
    'CXM_STAGE_RATE_LIMIT',
    '2000',
    'CXM_STAGE_RATE_LIMIT=2000 is not valid; give <rate per second>/<burst>, e.g. 2000/4000.',
  ],
  [
    'CXM_REPORTING_BACKEND',
    'elastic',
    'CXM_REPORTING_BACKEND=elastic is not valid; use dynamodb (the default) or opensearch (the local OpenSearch engine, as a stage).',
  ],
  [
    'CXM_OPENSEARCH_HEAP',
    '512',
    'CXM_OPENSEARCH_HEAP=512 is not valid; give megabytes or gigabytes as Java takes them, e.g. 512m or 2g.',
  ],
];

describe("npm start's settings", () => {
  afterEach(() => vi.unstubAllEnvs());

  it('default to what infra/local/README.md documents, unset or empty alike', () => {
    expect(settings({})).toEqual(DEFAULTS);
    expect(
      settings(
        Object.fromEntries([...WRONG.map(([name]) => name), 'CXM_IN_MEMORY', 'JAVA_HOME'].map((name) => [name, ''])),
      ),
    ).toEqual(DEFAULTS);
  });

  it('read the environment they are given and the directory, never the process', () => {
    for (const [name, value] of WRONG) vi.stubEnv(name, value);
    vi.stubEnv('CXM_HOME', '/elsewhere');
    vi.stubEnv('JAVA_HOME', '/opt/elsewhere');
    vi.stubEnv('CXM_IN_MEMORY', '1');
    expect(settings({})).toEqual(DEFAULTS);
  });

  it('take each setting given', () => {
    expect(
      settings({
        PORT: '0',
        CXM_HOME: 'state',
        CXM_IN_MEMORY: '1',
        CXM_AUTH_CACHE_TTL: '0',
        CXM_SCHEDULE_SECONDS: '5',
        CXM_LOG_LEVEL: 'DEBUG',
        CXM_RUNTIME: 'bundles',
        CXM_FUNCTION_CONCURRENCY: '2',
        CXM_IDEMPOTENCY_TTL_HOURS: '0.5',
        CXM_ACCEPT_UNTAGGED_KEYS: 'false',
        CXM_RATE_LIMIT: '5/10',
        CXM_STAGE_RATE_LIMIT: '0.5/1',
        JAVA_HOME: '/opt/jdk-21',
        CXM_REPORTING_BACKEND: 'opensearch',
        CXM_OPENSEARCH_HEAP: '2g',
      }),
    ).toEqual({
      port: 0,
      home: `${CWD}/state`,
      inMemory: true,
      authCacheTtlSeconds: 0,
      scheduleEverySeconds: 5,
      logLevel: 'debug',
      runtime: 'bundles',
      functionConcurrency: 2,
      idempotencyTtlMs: 1_800_000,
      acceptUntaggedKeys: false,
      rateLimit: { rate: 5, burst: 10 },
      stageRateLimit: { rate: 0.5, burst: 1 },
      java: '/opt/jdk-21/bin/java',
      reportingBackend: 'opensearch',
      opensearchHeap: '2g',
    });
  });

  it('keep their state in CXM_HOME against the working directory they are given, or where it points absolutely', () => {
    expect(settings({}, '/srv/cxm').home).toBe('/srv/cxm/.cxm');
    expect(settings({ CXM_HOME: '../shared-state' }, '/srv/cxm/app').home).toBe('/srv/cxm/shared-state');
    expect(settings({ CXM_HOME: '/var/lib/cxm' }, '/srv/cxm').home).toBe('/var/lib/cxm');
  });

  it("run DynamoDB Local on JAVA_HOME's Java, else the one on PATH; a JAVA_HOME without it stops the start in one line that says what to install", () => {
    expect(settings({ JAVA_HOME: '/usr/lib/jvm/java-17' }).java).toBe('/usr/lib/jvm/java-17/bin/java');
    expect(settings({}).java).toBe('java');
    const java = settings({ JAVA_HOME: '/nonexistent-java' }).java;
    expect(() => checkJava(java)).toThrow(StartupError);
    expect(() => checkJava(java)).toThrow(
      /^Java 17 or newer is needed to run DynamoDB Local, but '\/nonexistent-java\/bin\/java' could not be run \(ENOENT\)\. Install .*JAVA_HOME, then try again\.$/,
    );
  });

  it.each(WRONG)('refuse a wrong %s=%s in one line that names it and says what to write', (name, value, message) => {
    const line = refusal({ [name]: value });
    expect(line).toBe(message);
    expect(line.startsWith(name)).toBe(true);
    expect(line).toMatch(/; (give|use) .+|must be .+/);
    expect(line).not.toContain('\n');
  });

  it('report the first wrong setting, in the order they are checked', () => {
    for (let first = 0; first < WRONG.length; first++) {
      const env = Object.fromEntries(WRONG.slice(first).map(([name, value]) => [name, value]));
      expect(refusal(env), WRONG[first]![0]).toBe(WRONG[first]![2]);
    }
  });
});
