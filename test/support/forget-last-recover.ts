/**
 * Lets a test recover an endpoint again at once, as if the interval between two recovers
 * (RECOVER_INTERVAL_MS) had passed: the endpoint's record of its last recover is removed. The key
 * layout is the endpoints store's (shared/store/webhook-endpoints-store.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '#shared/store/dynamo-client';

/** @example await forgetLastRecover(api.tables.webhookEndpoints, tenant, endpointId); */
export async function forgetLastRecover(table: string, tenantId: string, endpointId: string): Promise<void> {
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: `${tenantId}#endpoints`, sk: endpointId },
        UpdateExpression: 'REMOVE lastRecoverAt',
        // Never an item of its own: an endpoint that does not exist stays absent.
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
