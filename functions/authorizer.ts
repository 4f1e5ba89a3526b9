/**
 * REQUEST authorizer. Identity source: the Authorization header alone, so a cached
 * result belongs to one key and serves every path: its answer depends on the key only. The usage
 * key it names is the key's usage owner's (usage-identity.ts). Every failure is the gateway's 401
 * (thrown 'Unauthorized'); a store failure is any other error, which API Gateway answers as
 * AUTHORIZER_FAILURE (503). The Allow covers the whole stage (see allow-whole-stage.ts); tenant and
 * scope are each function's.
 *
 * A key's tag is checked before its record is read (key-tag.ts): a made-up token costs this
 * function a millisecond and no read. A key issued before tags is read only while the stage
 * accepts untagged keys (untagged-keys.ts).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { allowWholeStage } from '#shared/auth/allow-whole-stage';
import { encodeCaller } from '#shared/auth/authorizer-context';
import { hashKey, parseKey } from '#shared/auth/key-format';
import { keyStatus } from '#shared/auth/key-status';
import { verifyKeyTag } from '#shared/auth/key-tag';
import { parseBearerToken } from '#shared/auth/parse-bearer-token';
import { usageKeyValue, usageOwner } from '#shared/auth/usage-identity';
import { findHeader } from '#shared/http/find-header';
import { logger } from '#shared/http/logger';
import { APP_METRICS } from '#shared/http/metric-names';
import { countMetric, publishMetrics } from '#shared/http/metrics';
import { keyTagSecretsSource } from '#shared/secrets/key-tag-secrets';
import { acceptsUntaggedKeys } from '#shared/settings/key-settings';
import { stageName } from '#shared/settings/stage-settings';
import { keysStore } from '#shared/store/function-stores';

const keys = keysStore();
const stage = stageName();
const tagSecrets = keyTagSecretsSource();
const acceptUntagged = acceptsUntaggedKeys();

function refuse(reason: string, keyId?: string): never {
  logger.info('authentication refused', { reason, keyId });
  // Published here: a refusal is the only way out of this function that counts anything.
  countMetric(APP_METRICS.authFailure);
  publishMetrics();
  throw new Error('Unauthorized');
}

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const token = parseBearerToken(findHeader(event.headers, 'authorization'));
  if (token === undefined) refuse('missing or malformed Authorization header');
  const parsed = parseKey(token);
  if (parsed === undefined) refuse('malformed key');
  const { keyId, body, tag } = parsed;
  if (tag === undefined) {
    if (!acceptUntagged) refuse('untagged key (the stage accepts tagged keys only)', keyId);
  } else if (!verifyKeyTag(await tagSecrets(), body, tag)) {
    refuse('wrong key tag', keyId);
  }
  const key = await keys.findByHash(hashKey(token));
  if (!key || key.keyId !== keyId) refuse('unknown key', keyId);
  const status = keyStatus(key, Date.now());
  if (status !== 'active') refuse(`${status} key`, keyId);
  const owner = usageOwner(key);
  if (owner === undefined) refuse('key holds no tenant', keyId);
  return {
    principalId: key.keyId,
    policyDocument: allowWholeStage(event.methodArn),
    context: encodeCaller({ keyId: key.keyId, tenants: key.tenants, scopes: key.scopes }),
    // The usage plan throttles per usage owner: the tenant of a key of one tenant, or a key of
    // several tenants itself. An owner without its API Gateway key is refused by the gateway
    // (`cxm keys sync` makes them).
    usageIdentifierKey: usageKeyValue(stage, owner),
  };
};
