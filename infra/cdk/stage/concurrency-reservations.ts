/**
 * The Lambda concurrency a stage reserves, in one place: the constructs take each function's
 * reservation from here (api.ts, api-docs.ts, recordings.ts), and `cxm preflight` adds them up to tell whether
 * the account can hold them before a deploy finds out. test/infra/stack.test.ts holds the
 * synthesized template's sum of ReservedConcurrentExecutions to `stageReservedConcurrency`, so a
 * function that reserves concurrency some other way fails there instead of at a deploy.
 *
 * A module of its own, free of aws-cdk-lib, so the CLI can read it without loading the constructs.
 */
import { functionName } from '#infra/stage-names';
import type { StageConfig } from './config.ts';

/**
 * Every function that may reserve concurrency, by the id its name ends with (`cxm-<stage>-<id>`),
 * and the stage setting its reservation comes from (a number of executions, or undefined for
 * none). A function reserving concurrency belongs here.
 */
const RESERVING_FUNCTIONS = {
  authorizer: {
    setting: 'edge.authorizerReservedConcurrency',
    executions: (config) => config.edge.authorizerReservedConcurrency,
  },
  getOpenApiDocument: {
    setting: 'edge.documentReservedConcurrency',
    executions: (config) => config.edge.documentReservedConcurrency,
  },
  processRecording: {
    setting: 'recordings.processorReservedConcurrency',
    executions: (config) => config.recordings.processorReservedConcurrency,
  },
} as const satisfies Record<string, { setting: string; executions: (config: StageConfig) => number | undefined }>;

/** The id of a function that may reserve concurrency: `authorizer`, `getOpenApiDocument`, `processRecording`. */
export type ReservingFunctionId = keyof typeof RESERVING_FUNCTIONS;

/**
 * What Lambda keeps unreserved in an account and region: a reservation that would leave less is
 * refused (`PutFunctionConcurrency`, AWS Lambda API reference). Accounts whose quota is 100 or
 * less cannot reserve at all: there Lambda keeps the whole quota unreserved.
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/** One function's reservation in a stage. */
export interface ConcurrencyReservation {
  functionId: ReservingFunctionId;
  /** The deployed function's name, `cxm-<stage>-<id>`. */
  functionName: string;
  /** Where to change it, as infra/cdk/stage/config.ts spells it. */
  setting: (typeof RESERVING_FUNCTIONS)[ReservingFunctionId]['setting'];
  /** Reserved executions; undefined: the function shares the account's unreserved pool. */
  executions: number | undefined;
}

/**
 * Each function of the stage that may reserve concurrency, with what the stage reserves for it
 * (undefined where it reserves nothing, so a redeploy can tell what it frees).
 *
 * @example
 * concurrencyReservations(stageConfig('dev'))
 * // [{ functionId: 'authorizer', functionName: 'cxm-dev-authorizer', setting: 'edge.authorizerReservedConcurrency', executions: 50 },
 * //  { functionId: 'getOpenApiDocument', ..., executions: 2 }, { functionId: 'processRecording', ..., executions: 10 }]
 */
export function concurrencyReservations(config: StageConfig): ConcurrencyReservation[] {
  return Object.entries(RESERVING_FUNCTIONS).map(([functionId, { setting, executions }]) => ({
    functionId: functionId as ReservingFunctionId,
    functionName: functionName(config.stage, functionId),
    setting,
    executions: executions(config),
  }));
}

/**
 * The executions the whole stage reserves: what a deploy takes from the account's unreserved pool.
 *
 * @example stageReservedConcurrency(stageConfig('dev')) // 62
 */
export function stageReservedConcurrency(config: StageConfig): number {
  return concurrencyReservations(config).reduce((total, reservation) => total + (reservation.executions ?? 0), 0);
}

/**
 * The function props that reserve its concurrency, or none: spread into the function's props.
 *
 * @example new ApiFunction(this, 'Authorizer', { ...props, ...reservedConcurrency(config, 'authorizer') })
 */
export function reservedConcurrency(
  config: StageConfig,
  functionId: ReservingFunctionId,
): { reservedConcurrentExecutions?: number } {
  const executions = concurrencyReservations(config).find(
    (reservation) => reservation.functionId === functionId,
  )?.executions;
  return executions === undefined ? {} : { reservedConcurrentExecutions: executions };
}
