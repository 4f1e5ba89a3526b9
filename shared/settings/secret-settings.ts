import { FUNCTION_ENV } from './setting-names.ts';

/**
 * Each stage secret's variables: its value and the value before a local rotation (what npm start
 * passes), and the ARN of its Secrets Manager secret (what CDK sets on a stage).
 */
export const SECRET_ENVS = {
  cursorSecret: {
    value: FUNCTION_ENV.cursorSecret,
    previous: FUNCTION_ENV.cursorSecretPrevious,
    arn: FUNCTION_ENV.cursorSecretArn,
  },
  keyTagSecret: {
    value: FUNCTION_ENV.keyTagSecret,
    previous: FUNCTION_ENV.keyTagSecretPrevious,
    arn: FUNCTION_ENV.keyTagSecretArn,
  },
  webhookSecretKey: {
    value: FUNCTION_ENV.webhookSecretKey,
    previous: FUNCTION_ENV.webhookSecretKeyPrevious,
    arn: FUNCTION_ENV.webhookSecretKeyArn,
  },
} as const;

/** A stage secret, by the name the routes declare it with (`secrets` of a route, shared/api/route-spec.ts). */
export type SecretName = keyof typeof SECRET_ENVS;

/** Where a secret's values are: given in the environment (locally), else in Secrets Manager (`arn`). */
export interface SecretConfiguration {
  value: string | undefined;
  previous: string | undefined;
  arn: string | undefined;
}

/**
 * How `env` configures the secret `name`; an empty variable counts as unset.
 *
 * @example
 * secretConfiguration('cursorSecret', { CXM_CURSOR_SECRET: 'k'.repeat(32) }).value // 'kkk…'
 */
export function secretConfiguration(name: SecretName, env: NodeJS.ProcessEnv = process.env): SecretConfiguration {
  const names = SECRET_ENVS[name];
  return {
    value: env[names.value] || undefined,
    previous: env[names.previous] || undefined,
    arn: env[names.arn] || undefined,
  };
}
