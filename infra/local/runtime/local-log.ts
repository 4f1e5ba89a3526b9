/**
 * The local runtime's own lines (not the functions' logs): `CXM_LOG_LEVEL` = error, warn, info
 * (default) or debug. At debug, bundle mode prints Lambda's REPORT line for every invocation, with
 * the init duration of each cold start.
 */
const LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LocalLogLevel = (typeof LEVELS)[number];

export interface LocalLog {
  enabled(level: LocalLogLevel): boolean;
  line(level: LocalLogLevel, text: string): void;
}

export function parseLocalLogLevel(raw: string | undefined): LocalLogLevel | undefined {
  const value = (raw || 'info').toLowerCase();
  return (LEVELS as readonly string[]).includes(value) ? (value as LocalLogLevel) : undefined;
}

export function localLog(
  level: LocalLogLevel,
  write: (text: string) => void = (text) => console.error(text),
): LocalLog {
  const rank = LEVELS.indexOf(level);
  const enabled = (wanted: LocalLogLevel) => LEVELS.indexOf(wanted) <= rank;
  return {
    enabled,
    line(wanted, text) {
      if (enabled(wanted)) write(text);
    },
  };
}
