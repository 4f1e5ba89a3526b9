/**
 * One row of `cxm preflight`: a check, what it found, and what to do about it; and the row of a
 * check AWS would not answer, which says why (the IAM action refused, credentials not accepted, no
 * endpoint) so that one refused call costs one row, never the whole run.
 */

/** `blocked`: the deploy (or the stage once deployed) fails on it; `warn`: it may, or could not be checked. */
export type Finding = 'ok' | 'warn' | 'blocked';

/** A check's row, in the table and in `--json`. */
export interface PreflightCheck {
  /** A stable name for pipelines (`lambda-concurrency`). */
  id: string;
  /** What the table shows. */
  name: string;
  finding: Finding;
  /** What was found, in one line. */
  detail: string;
  /** What to do, in one line; null when the finding is ok. */
  fix: string | null;
  /** Commands that carry out the fix, to paste as they are. */
  commands: string[];
  /** The IAM action the caller's credentials lacked, when AWS refused a call. */
  needs: string | null;
  /** The numbers read and derived, by name (quota, used, left...). */
  figures: Record<string, number>;
  /** False when AWS did not answer the check's call, so nothing was learnt. */
  checked: boolean;
}

/** What a check is called, in JSON and in the table. */
export interface CheckName {
  id: string;
  name: string;
}

/** An AWS call a check makes: its operation, and the IAM permission it takes. */
export interface AwsCall {
  operation: string;
  /** As a policy grants it: `lambda:GetAccountSettings`, or for API Gateway `apigateway:GET on <arn>`. */
  action: string;
}

/**
 * A row with what was found.
 *
 * @example checkRow({ id: 'api-keys', name: 'API Gateway API keys' }, 'ok', '12 of 10000 used, 9988 left', { figures: { used: 12 } })
 */
export function checkRow(
  check: CheckName,
  finding: Finding,
  detail: string,
  more: {
    fix?: string | null;
    commands?: string[];
    needs?: string | null;
    figures?: Record<string, number>;
    checked?: boolean;
  } = {},
): PreflightCheck {
  return {
    ...check,
    finding,
    detail,
    fix: more.fix ?? null,
    commands: more.commands ?? [],
    needs: more.needs ?? null,
    figures: more.figures ?? {},
    checked: more.checked ?? true,
  };
}

/** AWS's answers to credentials it does not take: unknown, expired, or for a region not enabled. */
const CREDENTIALS_REFUSED = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredTokenException',
  'ExpiredToken',
  'InvalidSignatureException',
]);
const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied']);

/**
 * The host a network error could not reach, and its code, when the error is one.
 *
 * @example networkFailure(error) // { code: 'ENOTFOUND', host: 'transcribe.eu-west-1.amazonaws.com' }
 */
export function networkFailure(error: unknown): { code: string; host: string } | undefined {
  const { code, hostname } = (error ?? {}) as { code?: unknown; hostname?: unknown };
  return typeof code === 'string' && /^E[A-Z_]+$/.test(code)
    ? { code, host: typeof hostname === 'string' ? hostname : 'its endpoint' }
    : undefined;
}

/** Whether AWS refused the credentials themselves, rather than one action. */
function credentialsRefused(error: unknown): boolean {
  return error instanceof Error && CREDENTIALS_REFUSED.has(error.name);
}

/**
 * The row of a check whose call failed: `warn`, since nothing was learnt, saying what AWS answered
 * and, when it refused the action, which action to grant.
 *
 * @example notChecked({ id: 'logs-resource-policies', name: 'CloudWatch Logs resource policies' }, { operation: 'DescribeResourcePolicies', action: 'logs:DescribeResourcePolicies' }, error)
 */
export function notChecked(check: CheckName, call: AwsCall, error: unknown): PreflightCheck {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (ACCESS_DENIED.has(name)) {
    return checkRow(check, 'warn', `not checked: AWS refused ${call.operation} (${name})`, {
      fix: `grant your credentials ${call.action}, then run cxm preflight again`,
      needs: call.action,
      checked: false,
    });
  }
  if (credentialsRefused(error)) {
    return checkRow(
      check,
      'warn',
      `not checked: AWS did not accept your credentials for ${call.operation} (${name}: ${message})`,
      {
        fix: 'sign in again (aws sso login, AWS_PROFILE or fresh keys); in an opt-in region, enable the region for the account first',
        checked: false,
      },
    );
  }
  const network = networkFailure(error);
  if (network) {
    return checkRow(
      check,
      'warn',
      `not checked: ${call.operation} found no answer at ${network.host} (${network.code})`,
      {
        fix: 'check the network and the region (AWS_REGION, --region), then run cxm preflight again',
        checked: false,
      },
    );
  }
  return checkRow(check, 'warn', `not checked: ${call.operation} failed (${name}: ${message})`, {
    fix: 'run cxm preflight again; if it fails the same way, look into the error above',
    checked: false,
  });
}
