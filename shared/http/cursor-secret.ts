/**
 * The keys that sign reporting cursors: configuration, never a constant in code. Locally
 * `CXM_CURSOR_SECRET` (generated into CXM_HOME), and `CXM_CURSOR_SECRET_PREVIOUS` while a rotated
 * key's cursors are still open; in the cloud `CXM_CURSOR_SECRET_ARN`, a Secrets Manager secret
 * whose AWSCURRENT version signs and whose AWSPREVIOUS version (the one a rotation replaced) is
 * still accepted, read through Powertools Parameters and cached here for five minutes. Checked when the
 * function starts, so a function without either fails at cold start, not on the first request.
 *
 * Rotation without a broken export: a cursor names its key. A container whose cache predates a
 * rotation meets a cursor of the new key it does not know yet, and reads the secret again at once
 * (at most every few seconds, so forged key ids cannot turn every request into a Secrets Manager
 * call) instead of refusing it for up to five minutes.
 */
import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { type CursorKey, cursorKey } from '#shared/domain/reporting/report-cursor';
import { FUNCTION_ENV } from '#shared/function-env';
import { logger } from './logger.ts';

const MIN_LENGTH = 32;
const MAX_AGE_MS = 300_000;
/** The least time between two reads forced by a cursor of a key this container does not know. */
const FORCED_READ_INTERVAL_MS = 5_000;

/** The accepted keys, the current first; `fresh` reads them again unless that was done just now. */
export type CursorKeysSource = (options?: { fresh?: boolean }) => Promise<readonly CursorKey[]>;

function checked(secret: unknown, what: string): string {
  if (typeof secret !== 'string' || secret.length < MIN_LENGTH) throw new Error(`${what} is missing or shorter than ${MIN_LENGTH} characters`);
  return secret;
}

function isNotFound(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } } | null)?.cause;
  return (error as { name?: string } | null)?.name === 'ResourceNotFoundException' || cause?.name === 'ResourceNotFoundException';
}

export function cursorKeysSource(): CursorKeysSource {
  const direct = process.env[FUNCTION_ENV.cursorSecret];
  if (direct !== undefined && direct !== '') {
    const keys = [cursorKey(checked(direct, FUNCTION_ENV.cursorSecret))];
    const previous = process.env[FUNCTION_ENV.cursorSecretPrevious];
    if (previous) keys.push(cursorKey(checked(previous, FUNCTION_ENV.cursorSecretPrevious)));
    return async () => keys;
  }
  const arn = process.env[FUNCTION_ENV.cursorSecretArn];
  if (!arn) throw new Error(`neither ${FUNCTION_ENV.cursorSecret} nor ${FUNCTION_ENV.cursorSecretArn} is set: reporting cursors cannot be signed`);
  // The two versions are read together and cached together, the absence of a previous one
  // included (a never-rotated secret must not cost a Secrets Manager call per request).
  let cached: { readAt: number; keys: Promise<readonly CursorKey[]> } | undefined;
  let lastForcedAt = -Infinity;
  return ({ fresh = false } = {}) => {
    const now = Date.now();
    const forced = fresh && now - lastForcedAt >= FORCED_READ_INTERVAL_MS;
    if (forced) lastForcedAt = now;
    if (!cached || forced || now - cached.readAt >= MAX_AGE_MS) {
      const before = cached;
      const entry = { readAt: now, keys: readKeys(arn) };
      cached = entry;
      entry.keys.catch(() => {
        if (cached !== entry) return;
        // A read forced by an unknown key id (a forged one, maybe) that fails must not cost the
        // keys read before: they stay until their own time is up. A failed expiry read is not
        // kept either: the next request tries again.
        cached = forced && before && now - before.readAt < MAX_AGE_MS ? before : undefined;
      });
      // This request, though, sees what the forced read found, or the keys it had.
      if (forced && before) return entry.keys.catch(() => before.keys);
    }
    return cached.keys;
  };
}

async function readKeys(arn: string): Promise<readonly CursorKey[]> {
  // Loaded on first use: the Secrets Manager client is not part of every cold start's work.
  const secrets = await secretsProvider();
  // forceFetch: this module keeps the cache (Powertools keys its own by name alone, so the two
  // version stages of one secret would share an entry).
  const [current, previous] = await Promise.all([
    secrets.get(arn, { forceFetch: true }),
    secrets.get(arn, { forceFetch: true, sdkOptions: { VersionStage: 'AWSPREVIOUS' } }).catch((error: unknown) => {
      // A secret never rotated has no AWSPREVIOUS version: only the current key is accepted.
      if (isNotFound(error)) return undefined;
      throw error;
    }),
  ]);
  const keys = [cursorKey(checked(current, 'the cursor secret'))];
  if (typeof previous === 'string' && previous.length >= MIN_LENGTH) keys.push(cursorKey(previous));
  // Only the cursors of a too-short (hand-set) previous version are lost, not every list.
  else if (previous !== undefined) logger.warn('the AWSPREVIOUS version of the cursor secret is not a key (missing or too short); only AWSCURRENT is accepted');
  return keys;
}

let provider: Promise<SecretsProvider> | undefined;
function secretsProvider(): Promise<SecretsProvider> {
  provider ??= import('@aws-lambda-powertools/parameters/secrets').then(({ SecretsProvider }) => new SecretsProvider());
  return provider;
}
