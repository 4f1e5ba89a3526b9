/**
 * The public key of the stage's webhook secret key, for the functions that seal signing secrets
 * (the registration and the rotation): a custom resource reads the secret when the stack is
 * deployed (functions/webhooks/publish-webhook-sealing-key.ts) and answers the public key, which
 * their configuration carries (`CXM_WEBHOOK_SEALING_KEY`). They seal without a Secrets Manager call
 * and hold nothing that opens a secret; only the delivery function reads the key itself.
 *
 * Raising the stage's `webhooks.secretKeyGeneration` rotates the key at the next deploy: the
 * resource puts a new value before the sealers are updated with its public key (infra/README.md,
 * "Rotating secrets"). Nothing else may change the value: the secret's own policy denies it to
 * every other principal, whatever their policies allow, since a value put by hand would leave the
 * sealers sealing to the value before it.
 */
import { CustomResource, Duration } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { functionName, SEALING_KEY_RESOURCE_TYPE } from '#infra/stage-names';
import { keyGeneration } from '#shared/secrets/webhook-sealing-key';
import { WEBHOOK_SEALING_KEY } from '#shared/webhook-functions';
import type { StageConfig } from '../stage/config.ts';
import { ApiFunction } from './api-function.ts';

/** What changes a secret's value or which version is current: the resource's alone. */
export const VALUE_CHANGING_ACTIONS = [
  'secretsmanager:PutSecretValue',
  'secretsmanager:UpdateSecret',
  'secretsmanager:UpdateSecretVersionStage',
  'secretsmanager:RotateSecret',
];

export class WebhookSealingKey extends Construct {
  /** The current value's public key (base64url X25519), resolved at deploy. */
  readonly publicKey: string;
  readonly function: ApiFunction;

  constructor(scope: Construct, id: string, props: { config: StageConfig; secret: ISecret }) {
    super(scope, id);
    const { config, secret } = props;
    const generation = keyGeneration(
      config.webhooks.secretKeyGeneration,
      `webhooks.secretKeyGeneration of stage ${config.stage}`,
    );
    this.function = new ApiFunction(this, 'Function', {
      entry: WEBHOOK_SEALING_KEY.handler,
      functionName: functionName(config.stage, WEBHOOK_SEALING_KEY.id),
      description: 'Deploy-time: the public key of the webhook secret key (rotated when its generation goes up)',
      timeout: Duration.seconds(30),
      config,
    });
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue'],
        resources: [secret.secretArn],
      }),
    );
    secret.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: VALUE_CHANGING_ACTIONS,
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': this.function.role!.roleArn } },
      }),
    );
    // CDK's provider framework answers CloudFormation for the handler (the response, its timeout);
    // its own role, not AWSLambdaBasicExecutionRole, writes to its own log group only.
    const frameworkLogs = new LogGroup(this, 'ProviderLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    const frameworkOnEventRole = new Role(this, 'ProviderRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    });
    frameworkLogs.grantWrite(frameworkOnEventRole);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.function,
      logGroup: frameworkLogs,
      frameworkOnEventRole,
    });
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: provider.serviceToken,
      resourceType: SEALING_KEY_RESOURCE_TYPE,
      properties: { SecretId: secret.secretArn, Generation: String(generation) },
    });
    this.publicKey = resource.getAttString('PublicKey');
  }
}
