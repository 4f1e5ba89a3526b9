/**
 * The local stack's identity: the account and region its resources are named in, the API's id,
 * and the credentials its servers accept. Every server `npm start` runs beside the API (the
 * DynamoDB gate, S3, SQS, Secrets Manager, Transcribe, OpenSearch) listens on loopback and answers
 * only requests signed with the credentials made here; its stage is `LOCAL_STAGE`
 * (infra/stage-names.ts), which the deployed stacks name too.
 */
import { randomBytes } from 'node:crypto';

/**
 * The account in every local ARN and queue URL: AWS's documented placeholder, never a real one.
 *
 * @example `arn:aws:iam::${LOCAL_ACCOUNT}:role/cxm-local-transcribe`
 */
export const LOCAL_ACCOUNT = '000000000000';

/**
 * The region every local client and signature names.
 *
 * @example new DynamoDBClient({ region: LOCAL_REGION, endpoint, credentials })
 */
export const LOCAL_REGION = 'us-east-1';

/**
 * The REST API's id in the proxy events the local gateway builds.
 *
 * @example event.requestContext.apiId === LOCAL_API_ID
 */
export const LOCAL_API_ID = 'local';

/** What signs requests to this installation's servers: DynamoDB Local, its gate and the stand-ins. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const KEY_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * A random key id in the shape of an AWS one (20 characters, 16 of them random: 80 bits) and a secret.
 *
 * @example const credentials = newLocalCredentials(); // { accessKeyId: 'LCXM…', secretAccessKey: '…' }
 */
export function newLocalCredentials(): LocalCredentials {
  const id = [...randomBytes(16)].map((byte) => KEY_ID_ALPHABET[byte % 32]).join('');
  return { accessKeyId: `LCXM${id}`, secretAccessKey: randomBytes(30).toString('base64url') };
}
