/**
 * A stage secret that rotates without breaking what its previous value made (reporting cursors,
 * key tags): the values a function accepts, the current one first. Configuration, never a constant
 * in code. Locally two environment variables hold the value and, after a local rotation, the one
 * before; in the cloud a third holds the ARN of a Secrets Manager secret whose AWSCURRENT version
 * is the value and whose AWSPREVIOUS version (the one a rotation replaced) is still accepted, read
 * together through Powertools Parameters and cached here for five minutes. Checked when the
 * function starts, so a function without either fails at cold start, not on the first request.
 *
 * A caller that meets something made with a value it has not read yet (a cursor naming a key id it
 * does not know) may ask for a fresh read, which happens at most every few seconds, so forged input
 * cannot turn every request into a Secrets Manager call.
 *
 * Where what a value made names it (cursors, sealed webhook secrets), the AWSPREVIOUS version is
 * read only once a caller has met a name the current value does not have (`previous: 'onDemand'`):
 * a container that never meets one makes one Secrets Manager call a read, not two.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { logger } from '#shared/http/logger';
import { SECRET_ENVS, type SecretName, secretConfiguration } from '#shared/settings/secret-settings';
import { SDK_CLIENT_OPTIONS } from '#shared/store/sdk-client-options';

const MIN_LENGTH = 32;
const MAX_AGE_MS = 300_000;
/** The least time between two reads forced by a caller. */
const FORCED_READ_INTERVAL_MS = 5_000;

/** Where a secret is configured, and what to say when it is not. */
export interface SecretSetting {
  /** The secret, for messages: `the cursor secret`. */
  what: string;
  /** What fails without it, for the message at cold start: `reporting cursors cannot be signed`. */
  without: string;
  /** Which secret: its variables are in shared/settings/secret-settings.ts. */
  secret: SecretName;
}

/** The accepted values, the current first; `fresh` reads them again unless that was done just now. */
export type SecretVersionsSource<T> = (options?: { fresh?: boolean }) => Promise<readonly T[]>;

/**
 * `secret`, when it is a stage secret's value: a string of at least 32 characters; else throws,
 * naming `what`.
 *
 * @example checkedSecret(await read(arn), 'the cursor secret')
 */
export function checkedSecret(secret: unknown, what: string): string {
  if (!isStageSecret(secret)) throw new Error(`${what} is missing or shorter than ${MIN_LENGTH} characters`);
  return secret;
}

/** Whether `secret` can be a stage secret's value: a string of at least MIN_LENGTH characters. */
function isStageSecret(secret: unknown): secret is string {
  return typeof secret === 'string' && secret.length >= MIN_LENGTH;
}

function isNotFound(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } } | null)?.cause;
  return (
    (error as { name?: string } | null)?.name === 'ResourceNotFoundException' ||
    cause?.name === 'ResourceNotFoundException'
  );
}

/** When a source in the cloud reads the secret's AWSPREVIOUS version. */
export interface SecretVersionsOptions {
  /**
   * `always` (the default): with every read, for values whose products do not name them (a key
   * tag), where a caller cannot tell a retired value from forged input. `onDemand`: from the first
   * fresh read on, for values whose products name them.
   */
  previous?: 'always' | 'onDemand';
}

/**
 * The accepted values of `setting`, each turned by `toValue` once per read (a derived key, say).
 *
 * @example
 * const keys = secretVersionsSource({ what: 'the cursor secret', without: 'reporting cursors cannot be signed', secret: 'cursorSecret' }, cursorKey, { previous: 'onDemand' });
 * const [current] = await keys();
 * const [, previous] = await keys({ fresh: true }); // previous: undefined until the secret is rotated
 */
export function secretVersionsSource<T>(
  setting: SecretSetting,
  toValue: (secret: string) => T,
  { previous: readsPrevious = 'always' }: SecretVersionsOptions = {},
): SecretVersionsSource<T> {
  const env = SECRET_ENVS[setting.secret];
  const { value, previous, arn } = secretConfiguration(setting.secret);
  if (value) {
    const values = [toValue(checkedSecret(value, env.value))];
    if (previous) values.push(toValue(checkedSecret(previous, env.previous)));
    return async () => values;
  }
  if (!arn) throw new Error(`neither ${env.value} nor ${env.arn} is set: ${setting.without}`);
  // The versions are read together and cached together, the absence of a previous one included
  // (a never-rotated secret must not cost a Secrets Manager call per request).
  let cached: { readAt: number; values: Promise<readonly T[]> } | undefined;
  let lastForcedAt = -Infinity;
  let withPrevious = readsPrevious === 'always';
  return ({ fresh = false } = {}) => {
    const now = Date.now();
    const forced = fresh && now - lastForcedAt >= FORCED_READ_INTERVAL_MS;
    if (forced) {
      lastForcedAt = now;
      withPrevious = true;
    }
    if (!cached || forced || now - cached.readAt >= MAX_AGE_MS) {
      const before = cached;
      const entry = { readAt: now, values: readVersions(arn, setting.what, toValue, withPrevious) };
      cached = entry;
      entry.values.catch(() => {
        if (cached !== entry) return;
        // A forced read that fails (forged input may have asked for it) must not cost the values
        // read before: they stay until their own time is up. A failed expiry read is not kept
        // either: the next request tries again.
        cached = forced && before && now - before.readAt < MAX_AGE_MS ? before : undefined;
      });
      // This request, though, sees what the forced read found, or the values it had.
      if (forced && before) return entry.values.catch(() => before.values);
    }
    return cached.values;
  };
}

async function readVersions<T>(
  arn: string,
  what: string,
  toValue: (secret: string) => T,
  withPrevious: boolean,
): Promise<readonly T[]> {
  const secrets = secretsProvider();
  // forceFetch: this module keeps the cache (Powertools keys its own by name alone, so the two
  // version stages of one secret would share an entry).
  const [current, previous] = await Promise.all([
    secrets.get(arn, { forceFetch: true }),
    withPrevious
      ? secrets.get(arn, { forceFetch: true, sdkOptions: { VersionStage: 'AWSPREVIOUS' } }).catch((error: unknown) => {
          // A secret never rotated has no AWSPREVIOUS version: only the current value is accepted.
          if (isNotFound(error)) return undefined;
          throw error;
        })
      : undefined,
  ]);
  const values = [toValue(checkedSecret(current, what))];
  if (isStageSecret(previous)) values.push(toValue(previous));
  // Only what a too-short (hand-set) previous version made is lost, not everything.
  else if (previous !== undefined)
    logger.warn(`the AWSPREVIOUS version of ${what} is missing or too short; only AWSCURRENT is accepted`);
  return values;
}

/**
 * Made on the first read, so a function that reads no secret makes no client. Imported statically:
 * a dynamic import makes esbuild wrap the client's package for loading on demand, and a wrapped
 * package keeps every command it exports, all evaluated at the first read.
 */
let provider: SecretsProvider | undefined;
function secretsProvider(): SecretsProvider {
  provider ??= new SecretsProvider({ clientConfig: { ...SDK_CLIENT_OPTIONS } });
  return provider;
}
