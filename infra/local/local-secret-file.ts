/**
 * The local stack's own secrets (the cursor signing key, the key-tag secret): each generated once
 * into `<home>/<name>` (mode 600) so what it signed survives a restart (open cursors, issued keys),
 * or per run when nothing is kept (in memory).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The files of $CXM_HOME that hold the local secrets. */
export const LOCAL_SECRET_FILES = {
  cursorSecret: 'cursor-secret',
  keyTagSecret: 'key-tag-secret',
  webhookSecretKey: 'webhook-secret-key',
} as const;

/**
 * The secret kept in `<home>/<file>`, generated (32 random bytes, base64url) the first time.
 *
 * @example
 * process.env.CXM_KEY_TAG_SECRET = localSecret(home, LOCAL_SECRET_FILES.keyTagSecret);
 * localSecret(undefined, 'cursor-secret'); // a new secret for this run only
 */
export function localSecret(home: string | undefined, file: string): string {
  const path = home ? join(home, file) : undefined;
  if (path && existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  if (path) writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
