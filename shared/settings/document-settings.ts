/** How much of each provisioning document's history the stage keeps, as the functions read it. */
import {
  DEFAULT_VERSION_RETENTION,
  daysToMs,
  MAX_VERSION_AGE_DAYS,
  MAX_VERSIONS_KEPT,
  type VersionRetention,
} from '#shared/domain/documents/document-versions';
import { FUNCTION_ENV } from './setting-names.ts';
import { wholeNumberSetting } from './whole-number-setting.ts';

/**
 * How much of each document's history the stage keeps, from `env` (the function's own by default).
 *
 * @example documentVersionRetention() // { keep: 100, maxAgeMs: 365 days } unless the stage says otherwise
 */
export function documentVersionRetention(env: NodeJS.ProcessEnv = process.env): VersionRetention {
  const days = DEFAULT_VERSION_RETENTION.maxAgeMs / daysToMs(1);
  return {
    keep: wholeNumberSetting(
      FUNCTION_ENV.documentVersionsKeep,
      DEFAULT_VERSION_RETENTION.keep,
      1,
      MAX_VERSIONS_KEPT,
      env,
    ),
    maxAgeMs: daysToMs(wholeNumberSetting(FUNCTION_ENV.documentVersionsMaxAgeDays, days, 1, MAX_VERSION_AGE_DAYS, env)),
  };
}
