/**
 * The custom resource of the stack that configures the webhook registration and rotation with the
 * public key of the stage's webhook secret key (shared/secrets/webhook-sealing-key.ts): called by
 * CloudFormation, through CDK's provider, at each create and update of the resource; answers the
 * key as its `PublicKey` attribute.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CdkCustomResourceEvent, CdkCustomResourceResponse } from 'aws-lambda';
import { logger } from '#shared/http/logger';
import {
  keyGeneration,
  publishSealingKey,
  rotatesKey,
  type SealingKeyRequest,
} from '#shared/secrets/webhook-sealing-key';
import { SDK_CLIENT_OPTIONS } from '#shared/store/sdk-client-options';

const client = new SecretsManagerClient({ ...SDK_CLIENT_OPTIONS });

function requestOf(event: Exclude<CdkCustomResourceEvent, { RequestType: 'Delete' }>): SealingKeyRequest {
  const secretId = event.ResourceProperties.SecretId;
  if (typeof secretId !== 'string' || !secretId) throw new Error('SecretId must name the webhook secret key');
  return {
    secretId,
    generation: keyGeneration(event.ResourceProperties.Generation, 'Generation'),
    previousGeneration:
      event.RequestType === 'Update' ? keyGeneration(event.OldResourceProperties.Generation, 'Generation') : undefined,
    requester: `${event.StackId}/${event.LogicalResourceId}`,
  };
}

export async function handler(event: CdkCustomResourceEvent): Promise<CdkCustomResourceResponse> {
  // The secret is the stack's own resource: deleting this one leaves it to its own removal policy.
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const request = requestOf(event);
  const publicKey = await publishSealingKey(client, request);
  logger.info('webhook sealing key published', {
    requestType: event.RequestType,
    generation: request.generation,
    rotated: rotatesKey(request),
    publicKey,
  });
  return { PhysicalResourceId: `${request.secretId}/sealing-key`, Data: { PublicKey: publicKey } };
}
