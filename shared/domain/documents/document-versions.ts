/**
 * A provisioning document's history: every write (a create, a replace, a merge, a restore) makes a
 * version, numbered 1, 2, 3 ... per document without gaps, the current one among them. The stage
 * keeps the last `keep` versions of each document, each for `maxAgeMs` after it was made; the
 * current version is always readable (the document itself holds it). A number past the current one
 * names nothing yet; one below what is kept names a version that existed and is gone.
 */

/** How a version came to be. */
export type VersionChange = 'created' | 'replaced' | 'merged' | 'restored';

/** How much history the stage keeps. */
export interface VersionRetention {
  /** Versions kept per document, the current one included. */
  keep: number;
  /** How long a version is kept after it was made. */
  maxAgeMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The stage's retention unless its config says otherwise: the last 100 versions, a year each. */
export const DEFAULT_VERSION_RETENTION: VersionRetention = { keep: 100, maxAgeMs: 365 * DAY_MS };

/** The most a stage may keep per document: a write prunes one version, never a backlog. */
export const MAX_VERSIONS_KEPT = 10_000;
/** The longest a stage may keep a version, in days (ten years). */
export const MAX_VERSION_AGE_DAYS = 3_650;

/** Days as the retention counts them. */
export const daysToMs = (days: number) => days * DAY_MS;

/**
 * The version a write numbered `written` pushes out of the retention, if any: pruned in the
 * write's own transaction, so a document never holds more than `keep`.
 *
 * @example versionPrunedBy(101, { keep: 100, maxAgeMs }) // 1
 */
export function versionPrunedBy(written: number, retention: VersionRetention): number | undefined {
  const pruned = written - retention.keep;
  return pruned >= 1 ? pruned : undefined;
}

/** What a version number names, given the document's current version. */
export type VersionStanding = 'current' | 'kept' | 'gone' | 'not-yet';

/**
 * Where version `n` stands for a document whose current version is `current` (undefined: no
 * document): `kept` still depends on whether its item survived its age, which the caller reads.
 *
 * @example versionStanding(3, 120, { keep: 100, maxAgeMs }) // 'gone'
 */
export function versionStanding(n: number, current: number | undefined, retention: VersionRetention): VersionStanding {
  if (current === undefined || n > current) return 'not-yet';
  if (n === current) return 'current';
  return n > current - retention.keep ? 'kept' : 'gone';
}

/**
 * Why a version the retention removed is gone, as a 410 says it.
 *
 * @example goneReason(3, { keep: 100, maxAgeMs: daysToMs(365) }) // 'Version 3 is no longer kept: this stage keeps ...'
 */
export function goneReason(n: number, retention: VersionRetention): string {
  const days = Math.round(retention.maxAgeMs / DAY_MS);
  return (
    `Version ${n} is no longer kept: this stage keeps the last ${retention.keep} versions of a document, ` +
    `each for ${days} days after it was made. List the versions kept with GET .../versions.`
  );
}

/**
 * The 404 of a document that does not exist, as every document route says it, with what to do
 * instead where there is something.
 *
 * @example noSuchDocument({ collection: 'bots', docId: 'b-1' }, 'create it with POST') // "No document 'b-1' exists in collection 'bots'; create it with POST."
 */
export function noSuchDocument(document: { collection: string; docId: string }, instead?: string): string {
  return `No document '${document.docId}' exists in collection '${document.collection}'${instead ? `; ${instead}` : ''}.`;
}

/**
 * Why a version number names nothing, as a 404 says it: no document, or a number past its newest.
 *
 * @example missingReason({ collection: 'bots', docId: 'b-1' }, 9, 4) // "Document 'b-1' has no version 9 yet: its newest is 4."
 */
export function missingReason(
  document: { collection: string; docId: string },
  n: number,
  newest: number | undefined,
): string {
  return newest === undefined
    ? noSuchDocument(document)
    : `Document '${document.docId}' has no version ${n} yet: its newest is ${newest}.`;
}
