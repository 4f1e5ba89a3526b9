/**
 * Which runtime serves the functions in this test file's project (test/vitest.config.ts). A test
 * that reaches into the functions' process (middleware on their DynamoDB client) can only run with
 * the sources; everything over HTTP runs with both.
 */
import { functionRuntimeKind } from '#infra/local/runtime/function-runtime';

export const inBundleRuntime = functionRuntimeKind() === 'bundles';
