/**
 * Which events a key may subscribe an endpoint to: each needs the scope of the route whose answer it
 * carries, held by the key, through the scope grant rule; a document event is limited to the
 * collections the key reads, or left to every collection when the key reads them all.
 */
import { describe, expect, it } from 'vitest';
import { routeById } from '#shared/api/route-table';
import { MAX_ENDPOINT_COLLECTIONS } from '#shared/domain/webhooks/webhook-endpoint';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/webhook-events';
import { EVENT_SOURCE_ROUTES, readableCollections, subscriptionFor } from '#shared/http/webhook-event-scopes';

const DOCUMENTS = 'provisioning:{collection}.read';

describe('the scope each event needs', () => {
  it('is the scope of the route that answers what it carries: the note write, the job status read, the document read', () => {
    const scopes = Object.fromEntries(
      WEBHOOK_EVENT_TYPES.map((event) => [event, routeById(EVENT_SOURCE_ROUTES[event]).scope]),
    );
    expect(scopes).toEqual({
      'note.created': 'cxm:conversations.write',
      'voc.job.completed': 'voc:recordings.read',
      'voc.job.failed': 'voc:recordings.read',
      'provisioning.document.changed': DOCUMENTS,
    });
  });

  it.each([
    ['note.created', ['cxm:conversations.write']],
    ['note.created', ['cxm:write']],
    ['voc.job.completed', ['voc:recordings.read']],
    ['voc.job.failed', ['voc:*']],
    ['provisioning.document.changed', ['provisioning:bots.read']],
  ] as const)('%s is allowed with %j', (event, scopes) => {
    expect(subscriptionFor(scopes, [event]).kind).toBe('allowed');
  });

  it.each([
    ['note.created', ['cxm:conversations.read', 'webhooks:*'], 'cxm:conversations.write'],
    ['voc.job.completed', ['voc:recordings.write', 'reporting:voc.read'], 'voc:recordings.read'],
    ['voc.job.failed', ['webhooks:endpoints.write'], 'voc:recordings.read'],
    ['provisioning.document.changed', ['provisioning:bots.write', 'provisioning:write'], DOCUMENTS],
  ] as const)('%s is denied with %j, naming %s', (event, scopes, scope) => {
    expect(subscriptionFor(scopes, [event])).toEqual({ kind: 'denied', event, scope });
  });

  it('names the first event of the list the key may not read', () => {
    expect(subscriptionFor(['cxm:*'], ['note.created', 'voc.job.completed', 'voc.job.failed'])).toMatchObject({
      kind: 'denied',
      event: 'voc.job.completed',
    });
  });
});

describe('the collections of a document event', () => {
  it.each([['provisioning:read'], ['provisioning:*']])('%s reads every collection: none kept', (scope) => {
    expect(readableCollections([scope], DOCUMENTS)).toBe('all');
    expect(subscriptionFor([scope, 'provisioning:bots.read'], ['provisioning.document.changed'])).toEqual({
      kind: 'allowed',
    });
  });

  it('keeps each collection a read or wildcard scope names, once, sorted; a write, a malformed name or another area none', () => {
    const scopes = [
      'provisioning:users.read',
      'provisioning:bots.*',
      'provisioning:bots.read',
      'provisioning:jobs.write',
      'provisioning:team.eu.read',
      'provisioning:*.read',
      'provisioning:-x.read',
      'reporting:voc.read',
      'cxm:*',
    ];
    expect(readableCollections(scopes, DOCUMENTS)).toEqual(['bots', 'team.eu', 'users']);
    expect(subscriptionFor(scopes, ['note.created', 'provisioning.document.changed'])).toEqual({
      kind: 'allowed',
      collections: ['bots', 'team.eu', 'users'],
    });
  });

  it('provisioning:*.read is no wildcard (the API grants no collection by it): the event is denied', () => {
    expect(subscriptionFor(['provisioning:*.read'], ['provisioning.document.changed'])).toMatchObject({
      kind: 'denied',
    });
  });

  it('an endpoint without document events keeps no collections', () => {
    expect(subscriptionFor(['cxm:*', 'provisioning:bots.read'], ['note.created'])).toEqual({ kind: 'allowed' });
  });

  it(`more than ${MAX_ENDPOINT_COLLECTIONS} collections by name are more than an endpoint keeps`, () => {
    const many = Array.from({ length: MAX_ENDPOINT_COLLECTIONS + 1 }, (_, i) => `provisioning:c${i}.read`);
    expect(subscriptionFor(many, ['provisioning.document.changed'])).toEqual({
      kind: 'too-many-collections',
      count: MAX_ENDPOINT_COLLECTIONS + 1,
    });
    expect(subscriptionFor(many.slice(1), ['provisioning.document.changed']).kind).toBe('allowed');
  });
});
