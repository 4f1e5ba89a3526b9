/**
 * The keys that sign reporting cursors: `CXM_CURSOR_SECRET` locally (generated into CXM_HOME), and
 * `CXM_CURSOR_SECRET_PREVIOUS` while a rotated key's cursors are still open; in the cloud
 * `CXM_CURSOR_SECRET_ARN`, whose AWSCURRENT version signs and whose AWSPREVIOUS version is still
 * accepted (secret-versions.ts reads and caches them; the previous one once a cursor names a key
 * the current version is not).
 *
 * Rotation without a broken export: a cursor names its key. A container whose cache predates a
 * rotation meets a cursor of the new key it does not know yet, and asks for a fresh read
 * (serve-report-list.ts) instead of refusing it for up to five minutes.
 */
import { type CursorKey, cursorKey } from '#shared/domain/reporting/report-cursor';
import { type SecretVersionsSource, secretVersionsSource } from './secret-versions.ts';

/** The accepted keys, the current first; `fresh` reads them again unless that was done just now. */
export type CursorKeysSource = SecretVersionsSource<CursorKey>;

/**
 * The cursor keys of this function's stage.
 *
 * @example
 * const keys = cursorKeysSource(); // at module scope: a function without the secret fails at cold start
 * const [signing] = await keys();
 */
export function cursorKeysSource(): CursorKeysSource {
  return secretVersionsSource(
    {
      what: 'the cursor secret',
      without: 'reporting cursors cannot be signed',
      secret: 'cursorSecret',
    },
    cursorKey,
    { previous: 'onDemand' },
  );
}
