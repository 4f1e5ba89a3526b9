/**
 * Whether the authorizer accepts keys issued before tags (`cxm_<keyId>_<secret>`, no `_<tag>`): the
 * stage setting `edge.acceptUntaggedKeys`, handed to the authorizer as `CXM_ACCEPT_UNTAGGED_KEYS`.
 * While it is on, an untagged token costs the read the tag saves; once a stage's keys are all
 * tagged (`cxm keys list` shows which are not), turning it off makes an untagged token as cheap to
 * refuse as a forged tag.
 */
import { FUNCTION_ENV } from './setting-names.ts';

/** On where nothing says otherwise: stages deployed before tags hold keys without one. */
export const ACCEPT_UNTAGGED_KEYS_BY_DEFAULT = true;

/**
 * The setting from its variable (`true` or `false`; unset: the default). Anything else throws, so a
 * mistyped setting fails the authorizer's cold start instead of turning keys away or letting them in.
 *
 * @example
 * acceptsUntaggedKeys('false'); // false
 * acceptsUntaggedKeys(undefined); // true
 */
export function acceptsUntaggedKeys(value: string | undefined = process.env[FUNCTION_ENV.acceptUntaggedKeys]): boolean {
  if (value === undefined || value === '') return ACCEPT_UNTAGGED_KEYS_BY_DEFAULT;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`${FUNCTION_ENV.acceptUntaggedKeys} must be true or false, not ${JSON.stringify(value)}`);
}
