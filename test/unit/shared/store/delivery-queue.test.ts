/** A queued message read back as a task: what it names, and nothing a body adds beside it. */
import { describe, expect, it } from 'vitest';
import { parseDeliveryTask } from '#shared/store/delivery-queue';

const key = { endpointId: 'ep_1', at: '2026-11-28T00:00:00.000Z', messageId: 'msg_1' };

describe('parseDeliveryTask', () => {
  it('reads the tenant and the key; drops what else a body holds', () => {
    expect(parseDeliveryTask(JSON.stringify({ tenantId: 'acme', key: { ...key, extra: 1 }, x: 1 }))).toEqual({
      tenantId: 'acme',
      key,
    });
  });

  it('a body that is no task is undefined', () => {
    for (const body of ['', '{', 'null', '{"tenantId":"acme"}', JSON.stringify({ tenantId: 1, key })])
      expect(parseDeliveryTask(body)).toBeUndefined();
  });
});
