/**
 * The chain's deadline signal (shared/http/deadline-signal.ts): the SDK's one-slot form, keeping
 * every handler the SDK layers assign, so calls running side by side under one deadline all stop;
 * and the SDK's own abort race honours it. The deadline over HTTP, with a store call that hangs and
 * must not be retried, is test/integration/deadline.test.ts.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DeadlineSignal, NEVER_ABORTED } from '#shared/http/deadline-signal';

describe('the deadline signal', () => {
  it('calls every handler assigned to onabort, once, and reads aborted', () => {
    const signal = new DeadlineSignal();
    const fired: string[] = [];
    signal.onabort = () => fired.push('retry race');
    signal.onabort = () => fired.push('HTTP request');
    signal.onabort = null;
    expect(signal.aborted).toBe(false);
    signal.abort();
    signal.abort();
    expect(signal.aborted).toBe(true);
    expect(fired).toEqual(['retry race', 'HTTP request']);
  });

  it('never aborts when there is no deadline, and keeps no handler', () => {
    NEVER_ABORTED.onabort = () => {
      throw new Error('never called');
    };
    expect(NEVER_ABORTED.aborted).toBe(false);
    expect(NEVER_ABORTED.onabort).toBeNull();
  });

  it('stops SDK calls running side by side, each with an AbortError, and the SDK retries none', async () => {
    let attempts = 0;
    const client = new DynamoDBClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      endpoint: 'http://127.0.0.1:9',
    });
    // Each attempt hangs where the HTTP handler would wait for DynamoDB, listening to the signal as it does.
    client.middlewareStack.add(
      (_next, context) => () =>
        new Promise((_resolve, reject) => {
          attempts++;
          const signal = (context as { __smithy_context?: { abortSignal?: DeadlineSignal } }).__smithy_context
            ?.abortSignal;
          if (signal)
            signal.onabort = () => reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
        }),
      { step: 'deserialize', priority: 'low', name: 'hangs' },
    );
    const signal = new DeadlineSignal();
    const calls = [1, 2].map((n) =>
      client
        .send(new GetItemCommand({ TableName: 't', Key: { pk: { S: String(n) } } }), { abortSignal: signal })
        .catch((error: Error) => error.name),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    signal.abort();
    expect(await Promise.all(calls)).toEqual(['AbortError', 'AbortError']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts).toBe(2);
  });
});
