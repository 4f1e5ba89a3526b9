/**
 * The stack's webhook sealing key resource (functions/webhooks/publish-webhook-sealing-key.ts) as
 * CloudFormation calls it through CDK's provider, against the Secrets Manager stand-in with the SDK
 * client it deploys with: the public key it answers seals what the delivery's box opens; raising
 * the generation rotates the key once, however often the update is retried; a rollback or a delete
 * puts nothing.
 */
import type { CdkCustomResourceEvent, CdkCustomResourceResponse } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { sealingPublicKeyText } from '#shared/domain/webhooks/sealed-secret';
import { webhookSecretBox, webhookSecretSealer } from '#shared/secrets/webhook-secret-box';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { useStageSecretInSecretsManager } from '#test/support/counted-secrets-manager';

const KEY_1 = 'the-first-webhook-secret-key-of-this-stage-0123456789';
const SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CONTEXT = { tenantId: 'acme', endpointId: 'ep_1' };
const STACK_ID = 'arn:aws:cloudformation:us-east-1:000000000000:stack/cxm-test/00000000-0000-4000-8000-000000000000';

const stage = useStageSecretInSecretsManager('webhookSecretKey', KEY_1);

let handler: (event: CdkCustomResourceEvent) => Promise<CdkCustomResourceResponse>;
beforeAll(async () => {
  // After the stand-in is in the environment: the module makes its client at import, as deployed.
  ({ handler } = await import('#functions/webhooks/publish-webhook-sealing-key'));
});

function event(
  requestType: 'Create' | 'Update' | 'Delete',
  generation: string | number,
  oldGeneration?: string | number,
): CdkCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: STACK_ID,
    RequestId: `request-${requestType}-${generation}`,
    LogicalResourceId: 'ApiWebhookSealingKeyResource',
    ResourceType: 'Custom::WebhookSealingKey',
    ResourceProperties: { ServiceToken: 'provider', SecretId: stage.secret.arn, Generation: String(generation) },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  const physical = { PhysicalResourceId: `${stage.secret.arn}/sealing-key` };
  const old = { OldResourceProperties: { ...common.ResourceProperties, Generation: String(oldGeneration) } };
  return requestType === 'Update'
    ? { ...common, ...physical, ...old, RequestType: 'Update' }
    : { ...common, ...physical, RequestType: 'Delete' };
}

const publicKeyOf = (response: CdkCustomResourceResponse) => (response.Data as { PublicKey: string }).PublicKey;

/** A signing secret sealed as the registration seals it, configured with `publicKey`. */
const sealWith = (publicKey: string) =>
  webhookSecretSealer({ [FUNCTION_ENV.webhookSealingKey]: publicKey }).seal(SIGNING_SECRET, CONTEXT);

describe('the webhook sealing key resource', () => {
  it("answers the current value's public key at create, and the box opens what is sealed to it", async () => {
    const response = await handler(event('Create', 1));
    expect(publicKeyOf(response)).toBe(sealingPublicKeyText(KEY_1));
    expect(response.PhysicalResourceId).toBe(`${stage.secret.arn}/sealing-key`);
    expect(stage.secret.value).toBe(KEY_1);
    const stored = await sealWith(publicKeyOf(response));
    expect(stored).not.toContain(SIGNING_SECRET);
    expect(await webhookSecretBox().open(stored, CONTEXT)).toBe(SIGNING_SECRET);
  });

  it('rotates the key once when the generation goes up, however often the update is retried', async () => {
    const before = await sealWith(publicKeyOf(await handler(event('Create', 1))));
    const rotated = await handler(event('Update', 2, 1));
    expect(stage.secret.previous).toBe(KEY_1);
    const next = stage.secret.value;
    expect(next).not.toBe(KEY_1);
    expect(next.length).toBeGreaterThanOrEqual(32);
    expect(publicKeyOf(rotated)).toBe(sealingPublicKeyText(next));
    // CloudFormation retries a request whose answer it missed: the same token puts nothing more.
    expect(publicKeyOf(await handler(event('Update', 2, 1)))).toBe(publicKeyOf(rotated));
    expect(stage.secret.value).toBe(next);
    expect(stage.secret.previous).toBe(KEY_1);
    // What was sealed before the rotation, and after it, both open.
    const after = await sealWith(publicKeyOf(rotated));
    const box = webhookSecretBox();
    expect(await box.open(before, CONTEXT)).toBe(SIGNING_SECRET);
    expect(await box.open(after, CONTEXT)).toBe(SIGNING_SECRET);
  });

  it('a rollback (the generation going down), another update and a delete put no value', async () => {
    expect(publicKeyOf(await handler(event('Update', 1, 2)))).toBe(sealingPublicKeyText(KEY_1));
    expect(publicKeyOf(await handler(event('Update', 3, 3)))).toBe(sealingPublicKeyText(KEY_1));
    expect(await handler(event('Delete', 1))).toEqual({ PhysicalResourceId: `${stage.secret.arn}/sealing-key` });
    expect(stage.secret.value).toBe(KEY_1);
    expect(stage.secret.previous).toBeUndefined();
  });

  it('refuses a generation that is not a whole number of at least 1, naming it', async () => {
    for (const generation of ['0', 'two', '1.5'])
      await expect(handler(event('Create', generation))).rejects.toThrow(
        `Generation must be a whole number of at least 1, not ${generation}`,
      );
    expect(stage.secret.value).toBe(KEY_1);
  });
});
