/**
 * Loopback is not a secret: the local stand-ins of AWS services (the DynamoDB gate, SQS, Secrets
 * Manager, Transcribe) answer only a request addressed to a loopback host and signed with the one
 * key they accept. Unsigned, signed with another key, or signed correctly but sent with another
 * `Host` (a page whose name was rebound to 127.0.0.1), it is refused and touches nothing.
 */
import { request } from 'node:http';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamoGate, startLocalDynamoGate } from '#infra/local/emulators/local-dynamo-gate';
import { type LocalCredentials, newLocalCredentials } from '#infra/local/emulators/local-identity';
import { type LocalQueue, startLocalQueue } from '#infra/local/emulators/local-queue';
import { type LocalSecretsManager, startLocalSecretsManager } from '#infra/local/emulators/local-secrets-manager';
import { acquireLocalTranscribe, type LocalTranscribe } from '#infra/local/emulators/local-transcribe';
import { workerDynamo } from '#test/support/worker-dynamo';

const REGION = 'us-east-1';
const accepted = newLocalCredentials();
const SECRET = {
  name: 'cxm-test-stand-in',
  arn: `arn:aws:secretsmanager:${REGION}:000000000000:secret:x-LOCAL0`,
  value: 'v',
};
let gate: LocalDynamoGate;
let queue: LocalQueue;
let secrets: LocalSecretsManager;
let transcribe: LocalTranscribe;

beforeAll(async () => {
  const store = workerDynamo();
  gate = await startLocalDynamoGate({ target: { endpoint: store.endpoint, credentials: store.credentials }, accepted });
  queue = await startLocalQueue({
    name: 'cxm-test-stand-ins',
    region: REGION,
    credentials: accepted,
    report: () => {},
  });
  secrets = await startLocalSecretsManager([SECRET], accepted);
  // Its S3 is never reached: no job is started here.
  transcribe = await acquireLocalTranscribe({
    region: REGION,
    s3Endpoint: 'http://127.0.0.1:9',
    credentials: accepted,
  });
});
afterAll(async () => {
  await Promise.all([gate?.close(), queue?.close(), secrets?.close(), transcribe?.close()]);
});

interface Call {
  endpoint: string;
  service: string;
  target: string;
  input: Record<string, unknown>;
  protocol: '1.0' | '1.1';
}

/** POSTs `call` to its endpoint, signed with `key` for `host` (none: unsigned), sent with that Host. */
async function send(call: Call, key: LocalCredentials | undefined, host?: string) {
  const { port } = new URL(call.endpoint);
  const body = JSON.stringify(call.input);
  const headers: Record<string, string> = {
    host: host ?? `127.0.0.1:${port}`,
    'content-type': `application/x-amz-json-${call.protocol}`,
    'x-amz-target': call.target,
  };
  const signed = key
    ? (
        await new SignatureV4({ service: call.service, region: REGION, credentials: key, sha256: Sha256 }).sign({
          method: 'POST',
          protocol: 'http:',
          hostname: headers.host!.replace(/:\d+$/, ''),
          path: '/',
          headers,
          body,
        })
      ).headers
    : headers;
  return new Promise<{ status: number; type: string }>((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: signed }, (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
      answer.on('end', () =>
        resolve({
          status: answer.statusCode ?? 0,
          type: String((JSON.parse(text) as { __type?: string }).__type ?? ''),
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** SendMessage to `queue`, signed with the accepted key, of `group` when given. */
const sendMessage = (queue: LocalQueue, body: string, group?: string) =>
  send(
    {
      endpoint: queue.endpoint,
      service: 'sqs',
      target: 'AmazonSQS.SendMessage',
      input: { QueueUrl: queue.url, MessageBody: body, ...(group && { MessageGroupId: group }) },
      protocol: '1.0',
    },
    accepted,
  );

const calls = (): Array<[string, Call]> => [
  [
    'the DynamoDB gate',
    {
      endpoint: gate.endpoint,
      service: 'dynamodb',
      target: 'DynamoDB_20120810.ListTables',
      input: {},
      protocol: '1.0',
    },
  ],
  [
    'SQS',
    {
      endpoint: queue.endpoint,
      service: 'sqs',
      target: 'AmazonSQS.SendMessage',
      input: { QueueUrl: queue.url, MessageBody: '{}' },
      protocol: '1.0',
    },
  ],
  [
    'Secrets Manager',
    {
      endpoint: secrets.endpoint,
      service: 'secretsmanager',
      target: 'secretsmanager.GetSecretValue',
      input: { SecretId: SECRET.arn },
      protocol: '1.1',
    },
  ],
  [
    'Transcribe',
    {
      endpoint: transcribe.endpoint,
      service: 'transcribe',
      target: 'Transcribe.GetTranscriptionJob',
      input: { TranscriptionJobName: 'none' },
      protocol: '1.1',
    },
  ],
];

describe('the SQS stand-in at a stop', () => {
  it('closes promptly with a batch under way, the unfinished task left as a stage would leave it', async () => {
    const stopping = await startLocalQueue({
      name: 'cxm-test-stop',
      region: REGION,
      credentials: accepted,
      report: () => {},
    });
    let handed = 0;
    // A function that never answers: a receiver holding every attempt.
    stopping.consumeWith(() => {
      handed++;
      return new Promise(() => {});
    });
    expect((await sendMessage(stopping, '{}')).status).toBe(200);
    while (handed === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // Resolves at all: without its bound, the close waits on the batch for ever.
    await stopping.close();
    expect(stopping.size()).toBe(1);
  });
});

describe('the SQS stand-in hands out batches as the mapping scales', () => {
  it('a batch the function is still on holds back no other, and its messages are not handed out twice', async () => {
    const scaling = await startLocalQueue({
      name: 'cxm-test-scaling',
      region: REGION,
      credentials: accepted,
      maxConcurrency: 2,
      report: () => {},
    });
    const handed: string[] = [];
    let releaseSlow: () => void = () => {};
    scaling.consumeWith(async ({ Records }) => {
      handed.push(...Records.map((record) => record.body));
      if (Records.some((record) => record.body === '"slow"'))
        await new Promise<void>((resolve) => (releaseSlow = resolve));
      return { batchItemFailures: [] };
    });
    const sendBody = (body: string) => sendMessage(scaling, body);
    await sendBody('"slow"');
    while (!handed.includes('"slow"')) await new Promise((resolve) => setTimeout(resolve, 20));
    await sendBody('"quick"');
    // Handed out and done while the first batch is still under way.
    while (scaling.size() > 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handed).toEqual(['"slow"', '"quick"']);
    releaseSlow();
    while (scaling.size() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handed).toEqual(['"slow"', '"quick"']);
    await scaling.close();
  });
});

describe('the SQS stand-in as a fair queue', () => {
  it("a tenant's message is handed out ahead of another tenant's backlog whose tasks the function is held on", async () => {
    const fair = await startLocalQueue({
      name: 'cxm-test-fair',
      region: REGION,
      credentials: accepted,
      maxConcurrency: 2,
      report: () => {},
    });
    const sendTo = (group: string, body: string) => sendMessage(fair, body, group);
    // The noisy tenant's 25 first, then the quiet one's: all waiting before anything is handed out.
    for (let i = 0; i < 25; i++) await sendTo('noisy', `"noisy-${i}"`);
    await sendTo('quiet', '"quiet"');
    const batches: string[][] = [];
    const held: Array<() => void> = [];
    fair.consumeWith(async ({ Records }) => {
      const bodies = Records.map((record) => record.body);
      batches.push(bodies);
      // The noisy tenant's receivers hold every attempt.
      if (!bodies.includes('"quiet"')) await new Promise<void>((resolve) => held.push(resolve));
      return { batchItemFailures: [] };
    });
    for (let waited = 0; batches.length < 2 && waited < 3000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    // Taken in turn, the tenant with fewer in flight first: the quiet one's message second, ahead of 24.
    expect(batches.flat().slice(0, 3)).toEqual(['"noisy-0"', '"quiet"', '"noisy-1"']);
    for (const release of held) release();
    await fair.close();
  });
});

describe('the local stand-ins of AWS services', () => {
  it('answer a request to a loopback host signed with their key', async () => {
    for (const [name, call] of calls()) {
      const answer = await send(call, accepted);
      expect(answer.type, name).not.toMatch(/UnrecognizedClient|InvalidSignature|MissingAuthenticationToken/);
      if (name !== 'Transcribe') expect(answer.status, name).toBe(200);
    }
  });

  it('refuse one unsigned, one signed with another key, and one sent with a Host that is not loopback', async () => {
    for (const [name, call] of calls()) {
      expect((await send(call, undefined)).type, `${name}, unsigned`).toMatch(/MissingAuthenticationToken/);
      expect((await send(call, newLocalCredentials())).type, `${name}, another key`).toMatch(/UnrecognizedClient/);
      expect((await send(call, accepted, 'rebound.example.com')).type, `${name}, another Host`).toMatch(
        /UnrecognizedClient/,
      );
    }
  });
});
