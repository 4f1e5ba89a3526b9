/**
 * `cxm preflight`'s Lambda check: can the account reserve the concurrency the stage reserves?
 * Lambda refuses a reservation that leaves fewer than 100 executions unreserved, and new accounts
 * often have a quota of 10 or 50, so the first deploy of a stage is where it fails. A stage already
 * deployed holds its reservations, which the account's unreserved count has already lost: they are
 * read back (`GetFunctionConcurrency` of each reserving function) so that a redeploy, which gives
 * them back before taking them again, is not reported as blocked.
 */
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  type LambdaClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-lambda';
import {
  concurrencyReservations,
  LAMBDA_UNRESERVED_MINIMUM,
  stageReservedConcurrency,
} from '#infra/cdk/stage/concurrency-reservations';
import type { StageConfig } from '#infra/cdk/stage/config';
import { type AwsCall, checkRow, notChecked, type PreflightCheck } from './preflight-finding.ts';

const CHECK = { id: 'lambda-concurrency', name: 'Lambda concurrency' };
const GET_ACCOUNT_SETTINGS: AwsCall = { operation: 'GetAccountSettings', action: 'lambda:GetAccountSettings' };
const GET_FUNCTION_CONCURRENCY: AwsCall = {
  operation: 'GetFunctionConcurrency',
  action: 'lambda:GetFunctionConcurrency',
};

/** What a function reserves now: nothing when it does not exist (the stage is not deployed) or reserves nothing. */
async function reservedNow(lambda: LambdaClient, functionName: string): Promise<number> {
  try {
    return (
      (await lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName })))
        .ReservedConcurrentExecutions ?? 0
    );
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return 0;
    throw error;
  }
}

/**
 * The row: ok when the stage's reservations leave Lambda its 100 unreserved, blocked with the quota
 * to ask for (or the settings to drop) when they do not.
 *
 * @example await checkLambdaConcurrency(new LambdaClient({}), stageConfig('dev')) // { id: 'lambda-concurrency', finding: 'ok', ... }
 */
export async function checkLambdaConcurrency(lambda: LambdaClient, config: StageConfig): Promise<PreflightCheck> {
  let quota: number;
  let unreserved: number;
  try {
    const { AccountLimit } = await lambda.send(new GetAccountSettingsCommand({}));
    quota = AccountLimit?.ConcurrentExecutions ?? 0;
    unreserved = AccountLimit?.UnreservedConcurrentExecutions ?? 0;
  } catch (error) {
    return notChecked(CHECK, GET_ACCOUNT_SETTINGS, error);
  }
  const reserves = stageReservedConcurrency(config);
  const account = `quota ${quota}, ${unreserved} unreserved`;
  if (reserves === 0)
    return checkRow(CHECK, 'ok', `${account}; the stage reserves none`, {
      figures: { quota, unreserved, stageReserves: 0 },
    });

  const reservations = concurrencyReservations(config);
  let heldNow = 0;
  let unread: unknown;
  try {
    for (const held of await Promise.all(
      reservations.map((reservation) => reservedNow(lambda, reservation.functionName)),
    ))
      heldNow += held;
  } catch (error) {
    // Reading nothing back is the worst case (a first deploy): if that fits, so does a redeploy.
    unread = error;
  }
  const left = unreserved + heldNow - reserves;
  const figures = { quota, unreserved, stageReserves: reserves, stageHoldsNow: heldNow, unreservedAfter: left };
  const reserving = reservations.filter((reservation) => reservation.executions !== undefined);
  const found =
    `${account}; the stage reserves ${reserves} (${reserving.map((reservation) => `${reservation.functionId} ${reservation.executions}`).join(', ')})` +
    `${heldNow > 0 ? `, ${heldNow} of them already (deployed)` : ''}, leaving ${left} unreserved (Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM})`;
  // A quota of 100 or less cannot reserve anything: Lambda keeps all of it unreserved.
  if (left >= Math.min(LAMBDA_UNRESERVED_MINIMUM, quota)) return checkRow(CHECK, 'ok', found, { figures });

  const neededQuota = quota - unreserved - heldNow + reserves + LAMBDA_UNRESERVED_MINIMUM;
  const fix =
    `ask for a Lambda "Concurrent executions" quota of at least ${neededQuota} in Service Quotas (now ${quota}${quota <= LAMBDA_UNRESERVED_MINIMUM ? ': new accounts often start at 10 or 50' : ''}), ` +
    `or set ${new Intl.ListFormat('en', { type: 'conjunction' }).format(reserving.map((reservation) => reservation.setting))} of stage ${config.stage} to undefined in infra/cdk/stage/config.ts`;
  if (unread !== undefined) {
    const refused = notChecked(CHECK, GET_FUNCTION_CONCURRENCY, unread);
    return checkRow(CHECK, 'warn', `${found}, unless the stage holds them already (${refused.detail})`, {
      fix: `if stage ${config.stage} is deployed, ${refused.fix}; if it is not, ${fix}`,
      needs: refused.needs,
      figures,
    });
  }
  return checkRow(CHECK, 'blocked', found, { fix, figures });
}
