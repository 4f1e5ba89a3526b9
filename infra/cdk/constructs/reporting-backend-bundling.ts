/**
 * One bundle per reporting backend: a reporting list's bundle has its stage's backend compiled in
 * (esbuild `define` of `process.env.CXM_REPORTING_BACKEND`), so esbuild drops the other backend's
 * branch of shared/store/function-stores.ts (`reportingIndex`), and with it that backend's modules. A
 * DynamoDB stage's list then carries no OpenSearch client (264 KB) to parse at every cold start.
 * The environment variable stays set too: it is what source mode and the indexer read.
 */

import { FUNCTION_ENV } from '#shared/function-env';
import type { StageConfig } from '../config.ts';

export type ReportingBackend = StageConfig['reportingBackend'];

export function reportingBackendDefine(backend: ReportingBackend): Record<string, string> {
  return { [`process.env.${FUNCTION_ENV.reportingBackend}`]: JSON.stringify(backend) };
}
