/**
 * Fan-out: the enabled, subscribed endpoints (a document's event only to those of its collection),
 * and one message id per event and endpoint, whoever meets it twice.
 */
import { describe, expect, it } from 'vitest';
import { buildNote } from '#shared/domain/notes/build-note';
import { deliverySubject, type EndpointSubscription, messagesFor, takesEvent } from '#shared/domain/webhooks/fan-out';
import { documentChanged, noteCreated, vocJobEnded, webhookBody } from '#shared/domain/webhooks/webhook-events';

const at = new Date('2026-11-27T03:00:00.000Z');
const note = buildNote('01JDXQ7Z8R2V3K4M5N6P7Q8R9S', at);
const endpoints: EndpointSubscription[] = [
  { id: 'ep_notes', events: ['note.created'], status: 'enabled' },
  { id: 'ep_all', events: ['note.created', 'voc.job.failed', 'provisioning.document.changed'], status: 'enabled' },
  { id: 'ep_off', events: ['note.created'], status: 'disabled' },
  { id: 'ep_docs', events: ['provisioning.document.changed'], status: 'enabled' },
];

describe('messagesFor', () => {
  it('goes to the enabled endpoints subscribed to the type, with the same body, and an id each', () => {
    const messages = messagesFor(noteCreated('acme', 'conv-1', note), endpoints);
    expect(messages.map((message) => message.endpointId)).toEqual(['ep_notes', 'ep_all']);
    expect(new Set(messages.map((message) => message.body)).size).toBe(1);
    expect(messages[0]!.id).not.toBe(messages[1]!.id);
    for (const { id } of messages) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{26}$/);
  });

  it('the same event met twice (a duplicate delivery, a replayed 201) makes the same message ids', () => {
    const first = messagesFor(noteCreated('acme', 'conv-1', note), endpoints);
    const again = messagesFor(noteCreated('acme', 'conv-1', { ...note }), endpoints);
    expect(again.map((message) => message.id)).toEqual(first.map((message) => message.id));
  });

  it('another note, tenant, job end or document version is another message', () => {
    const ids = (event: Parameters<typeof messagesFor>[0]) =>
      messagesFor(event, endpoints).map((message) => message.id);
    const base = ids(noteCreated('acme', 'conv-1', note));
    expect(ids(noteCreated('acme', 'conv-1', buildNote('01JDXQ7Z8R2V3K4M5N6P7Q8R9T', at)))).not.toEqual(base);
    expect(ids(noteCreated('globex', 'conv-1', note))).not.toEqual(base);
    const v1 = ids(
      documentChanged(
        'acme',
        { collection: 'bots', documentId: 'b-1', etag: 'tag1', version: 2, change: 'created' },
        at,
      ),
    );
    expect(
      ids(
        documentChanged(
          'acme',
          { collection: 'bots', documentId: 'b-1', etag: 'tag2', version: 2, change: 'merged' },
          at,
        ),
      ),
    ).not.toEqual(v1);
    expect(v1).toHaveLength(2);
    const job = {
      id: 'j-1',
      status: 'failed' as const,
      started: 1,
      file: 'f',
      recordingId: 'r',
      failureReason: 'mono',
    };
    expect(messagesFor(vocJobEnded('acme', job, at), endpoints).map((message) => message.endpointId)).toEqual([
      'ep_all',
    ]);
  });
});

describe('a document event and the collections of an endpoint', () => {
  const docs = ['provisioning.document.changed'] as const;
  const scoped: EndpointSubscription[] = [
    { id: 'ep_bots', events: docs, collections: ['bots'], status: 'enabled' },
    { id: 'ep_users_jobs', events: docs, collections: ['jobs', 'users'], status: 'enabled' },
    { id: 'ep_every', events: docs, status: 'enabled' },
    { id: 'ep_notes', events: ['note.created'], collections: ['bots'], status: 'enabled' },
  ];
  const receivers = (collection: string) =>
    messagesFor(
      documentChanged(
        'acme',
        { collection: collection, documentId: 'd-1', etag: 'tag1', version: 2, change: 'created' },
        at,
      ),
      scoped,
    ).map((message) => message.endpointId);

  it('goes only to endpoints of its collection, and to those of every collection (no collections: a key that reads all, or one kept before)', () => {
    expect(receivers('bots')).toEqual(['ep_bots', 'ep_every']);
    expect(receivers('users')).toEqual(['ep_users_jobs', 'ep_every']);
    expect(receivers('secrets')).toEqual(['ep_every']);
  });

  it('other events are not held to the collections', () => {
    expect(messagesFor(noteCreated('acme', 'conv-1', note), scoped).map((message) => message.endpointId)).toEqual([
      'ep_notes',
    ]);
  });

  it("a kept delivery's subject is read from its body; a document's of unknown collection goes to no endpoint of some collections", () => {
    const body = webhookBody(
      documentChanged(
        'acme',
        { collection: 'users', documentId: 'd-1', etag: 'tag1', version: 2, change: 'merged' },
        at,
      ),
    );
    const subject = deliverySubject({ type: 'provisioning.document.changed', body });
    expect(subject).toEqual({ type: 'provisioning.document.changed', collection: 'users' });
    expect(takesEvent(scoped[0]!, subject)).toBe(false);
    expect(takesEvent(scoped[1]!, subject)).toBe(true);
    const unknown = deliverySubject({ type: 'provisioning.document.changed', body: '{"data":{}}' });
    expect(takesEvent(scoped[1]!, unknown)).toBe(false);
    expect(takesEvent(scoped[2]!, unknown)).toBe(true);
    expect(deliverySubject({ type: 'note.created', body: 'not read' })).toEqual({ type: 'note.created' });
  });
});
