/**
 * The names of the reporting layout on OpenSearch (infra/README.md, OpenSearch layout). Per list
 * kind:
 * - year indexes `<prefix>-<kind>-<yyyy>`: a row lives in the one of its own Datetime's UTC year,
 *   so the writer always knows where a row is (and, from the stream's old image, where it was);
 * - one index template `<prefix>-<kind>` from which OpenSearch creates each year index on its
 *   first write, with the mappings, the shard counts and the read alias;
 * - the read alias `<prefix>-<kind>-read`, which the template puts on every year index: the lists
 *   search it, so a new year is read without any change on the reading side.
 * Rows are mutable by id (re-import overwrites, possibly with another Datetime), which is why the
 * index is chosen by the row's time and not by size behind a rollover alias: after a rollover,
 * the writer could not tell which index holds a row's older version.
 */
import type { ReportKind } from '#shared/domain/reporting/report-cursor';

/**
 * Years that get an index of their own. A Datetime outside them (valid for the lists, which take
 * any instant from 1970, but no conversation of this product) goes to one shared index, so a
 * tenant's stray Datetimes cannot create an index, and shards, per year: the bound is fixed, not
 * relative to now, so a row's index never changes unless its Datetime does.
 */
export const FIRST_INDEXED_YEAR = 2000;
export const LAST_INDEXED_YEAR = 2099;
export const OUTLYING_YEARS_SUFFIX = 'other';

const YEAR_MS = { first: Date.UTC(FIRST_INDEXED_YEAR, 0, 1), end: Date.UTC(LAST_INDEXED_YEAR + 1, 0, 1) };

/**
 * What every index, alias and template of a stage's reporting layout is named after.
 *
 * @example reportingIndexPrefix('dev') // 'cxm-dev-reporting'
 */
export function reportingIndexPrefix(stage: string): string {
  return `cxm-${stage}-reporting`;
}

/** The index a row of `kind` at `datetimeMs` (epoch ms, UTC) is written to. */
export function reportingYearIndex(prefix: string, kind: ReportKind, datetimeMs: number): string {
  if (!(datetimeMs >= YEAR_MS.first && datetimeMs < YEAR_MS.end)) return `${prefix}-${kind}-${OUTLYING_YEARS_SUFFIX}`;
  return `${prefix}-${kind}-${new Date(datetimeMs).getUTCFullYear()}`;
}

/** What the lists search: every year index of the kind. */
export function reportingReadAlias(prefix: string, kind: ReportKind): string {
  return `${prefix}-${kind}-read`;
}

/**
 * The template's pattern: every year index of the kind (and the outlying one). The alias matches
 * it too, harmlessly: an index of the alias's name could never be created, since the template
 * would give it an alias of its own name, which OpenSearch refuses.
 */
export function reportingIndexPattern(prefix: string, kind: ReportKind): string {
  return `${prefix}-${kind}-*`;
}

/** The index template of the kind (templates have their own namespace, apart from indexes). */
export function reportingTemplateName(prefix: string, kind: ReportKind): string {
  return `${prefix}-${kind}`;
}
