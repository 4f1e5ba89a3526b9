/** The stage a function runs in, as CDK names it to the function (`local` under npm start and in tests). */
import { FUNCTION_ENV } from './setting-names.ts';

/**
 * The stage's name: the metrics' dimension, the names of usage-plan keys and Transcribe jobs.
 *
 * @example stageName() // 'prod' on the prod stage, 'local' where nothing says
 */
export function stageName(env: NodeJS.ProcessEnv = process.env): string {
  return env[FUNCTION_ENV.stage] || 'local';
}
