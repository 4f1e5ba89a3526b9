/**
 * What the keys store asks DynamoDB for where DynamoDB Local cannot show the difference: it reads
 * strongly consistent whatever the flag, and DynamoDB does not. `list` decides whether a tenant
 * keeps its usage-plan key on revoke and sync: a key created a moment before (a
 * rotation: create the new key, then revoke the old one) must be in it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createKeysStore } from '#shared/store/keys-store';

function recordingClient(
  pages: Array<{ Items: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>,
) {
  const sent: Array<{ name: string; input: Record<string, unknown> }> = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input });
      return pages[sent.length - 1] ?? { Items: [] };
    },
  } as unknown as DynamoDBDocumentClient;
  return { keys: createKeysStore(client, 'cxm-prod-keys'), sent };
}

const item = (keyId: string, tenants: string[]) => ({
  keyId,
  keyHash: `h-${keyId}`,
  tenants,
  scopes: ['cxm:*'],
  name: keyId,
  createdAt: '2027-01-01T00:00:00Z',
});

describe('keys store list', () => {
  it('scans strongly consistent, every page, for one tenant and for all', async () => {
    const { keys, sent } = recordingClient([
      { Items: [item('b', ['acme'])], LastEvaluatedKey: { keyHash: 'h-b' } },
      { Items: [item('a', ['acme'])] },
    ]);
    expect((await keys.list('acme')).map((key) => key.keyId)).toEqual(['a', 'b']);
    expect(sent.map(({ name, input }) => [name, input.ConsistentRead, input.ExclusiveStartKey])).toEqual([
      ['ScanCommand', true, undefined],
      ['ScanCommand', true, { keyHash: 'h-b' }],
    ]);

    const all = recordingClient([{ Items: [] }]);
    await all.keys.list();
    expect(all.sent.map(({ input }) => input.ConsistentRead)).toEqual([true]);
  });
});
