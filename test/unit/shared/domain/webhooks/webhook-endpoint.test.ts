/** An endpoint's view and its changes: what a PATCH keeps, what enabling forgets, what disabling says. */
import { describe, expect, it } from 'vitest';
import {
  changedEndpoint,
  endpointView,
  newEndpointId,
  type StoredWebhookEndpoint,
} from '#shared/domain/webhooks/webhook-endpoint';

const stored: StoredWebhookEndpoint = {
  id: 'ep_1',
  url: 'https://hooks.example.com/cxm',
  events: ['note.created'],
  description: 'ops',
  status: 'disabled',
  disabledReason: 'the receiver answered 410 Gone at 2026-11-26T10:00:00.000Z',
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
  secrets: { current: 'whsec_a', previous: { secret: 'whsec_b', until: 1 } },
  failingSince: 1_764_000_000_000,
};
const at = new Date('2026-11-27T08:00:00.000Z');

describe('endpointView', () => {
  it('shows no secret and no failing streak; a reason only when disabled', () => {
    expect(endpointView(stored)).toEqual({
      id: 'ep_1',
      url: 'https://hooks.example.com/cxm',
      events: ['note.created'],
      description: 'ops',
      status: 'disabled',
      disabledReason: 'the receiver answered 410 Gone at 2026-11-26T10:00:00.000Z',
      createdAt: '2026-11-25T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:00.000Z',
    });
    expect(endpointView({ ...stored, status: 'enabled' })).not.toHaveProperty('disabledReason');
  });

  it('shows the collections of its document events when it has some, none when it takes every one', () => {
    expect(endpointView({ ...stored, collections: ['bots'] }).collections).toEqual(['bots']);
    expect(endpointView(stored)).not.toHaveProperty('collections');
  });
});

describe('changedEndpoint', () => {
  it('changes the named fields only, and the time it changed', () => {
    const next = changedEndpoint(stored, { description: 'support' }, at);
    expect(next).toEqual({ ...stored, description: 'support', updatedAt: at.toISOString() });
  });

  it('enabling forgets the reason and the failing streak, keeping the secrets', () => {
    const next = changedEndpoint(stored, { status: 'enabled' }, at);
    expect(next.status).toBe('enabled');
    expect(next).not.toHaveProperty('disabledReason');
    expect(next).not.toHaveProperty('failingSince');
    expect(next.secrets).toEqual(stored.secrets);
  });

  it('disabling by a PATCH says so, and when', () => {
    const enabled = changedEndpoint(stored, { status: 'enabled' }, at);
    const next = changedEndpoint(enabled, { status: 'disabled' }, at);
    expect(next.disabledReason).toBe('disabled by a PATCH at 2026-11-27T08:00:00.000Z');
  });

  it("the collections become the writing key's: named, or every one (none kept); a change without them keeps them", () => {
    const scoped = changedEndpoint(stored, { collections: ['bots', 'users'] }, at);
    expect(scoped.collections).toEqual(['bots', 'users']);
    expect(changedEndpoint(scoped, { description: 'x' }, at).collections).toEqual(['bots', 'users']);
    expect(changedEndpoint(scoped, { collections: 'all' }, at)).not.toHaveProperty('collections');
  });

  it('a disabled endpoint patched to disabled keeps the reason it had', () => {
    expect(changedEndpoint(stored, { status: 'disabled' }, at).disabledReason).toBe(stored.disabledReason);
  });
});

describe('newEndpointId', () => {
  it('is ep_ and a ULID of the time, so endpoints list in the order they were made', () => {
    const first = newEndpointId(1_000);
    const second = newEndpointId(2_000);
    expect(first).toMatch(/^ep_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(first < second).toBe(true);
  });
});
