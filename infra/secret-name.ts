/**
 * The Secrets Manager name of a stage's secret (`cxm-<stage>-cursor-secret`). CDK names the secret;
 * bundle mode (infra/local) recognises it by this name to serve its local value, so the two agree.
 */
import type { SecretId } from '#shared/routes';

export function secretName(stage: string, id: SecretId): string {
  return `cxm-${stage}-${id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}
