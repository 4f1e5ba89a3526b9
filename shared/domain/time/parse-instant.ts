/**
 * The project's one reader of ISO 8601 instants, strict where `Date.parse` is lax: `Date.parse`
 * would roll 2026-02-30 over to March, and take a time without a zone as the machine's local time.
 * Reporting bounds read it with epoch milliseconds besides (parseInstant); the CLI's key
 * expiry and the import file's lock times read the ISO form alone (parseIsoDateTime).
 */
const ISO_WITH_ZONE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;
const EPOCH_MS = /^\d{1,15}$/;

function daysInMonth(year: number, month: number): number {
  // The day before the next month's first; setUTCFullYear, as below, so year 0000 is a leap year.
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

/**
 * An ISO 8601 date-time with a zone (`Z` or `±hh:mm`), as epoch milliseconds. Undefined for
 * anything else, including calendar dates and times that do not exist.
 */
export function parseIsoDateTime(text: string): number | undefined {
  const match = ISO_WITH_ZONE.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zone, sign, zh = '0', zm = '0'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(zh) > 23 || Number(zm) > 59) return undefined;
  const offsetMinutes = zone === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes the year as written.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  return date.getTime() - offsetMinutes * 60_000;
}

/**
 * A reporting time bound: an ISO 8601 date-time with a zone, or epoch milliseconds written in
 * digits only. Undefined for anything else.
 */
export function parseInstant(text: string): number | undefined {
  return EPOCH_MS.test(text) ? Number(text) : parseIsoDateTime(text);
}
