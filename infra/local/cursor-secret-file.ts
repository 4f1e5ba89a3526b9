/**
 * The local stack's cursor signing key: generated once into `<home>/cursor-secret` (mode 600) so
 * cursors survive a restart, or per run when nothing is kept (in memory).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function localCursorSecret(home: string | undefined): string {
  const file = home ? join(home, 'cursor-secret') : undefined;
  if (file && existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  if (file) writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
