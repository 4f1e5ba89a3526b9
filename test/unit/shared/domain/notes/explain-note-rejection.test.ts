import { describe, expect, it } from 'vitest';
import { type Conversation, conversationWithDefaults } from '#shared/domain/notes/conversation';
import { explainNoteRejection } from '#shared/domain/notes/explain-note-rejection';

const now = Date.parse('2026-06-01T12:00:00Z');
const open: Conversation = conversationWithDefaults({ id: 'c1' });

describe('why a conversation refuses a note', () => {
  it('accepts an open customer conversation', () => {
    expect(explainNoteRejection(open, now)).toBeUndefined();
    expect(explainNoteRejection({ ...open, assignee: { id: 'a', active: true } }, now)).toBeUndefined();
    expect(explainNoteRejection({ ...open, lockedUntil: now }, now)).toBeUndefined();
    expect(explainNoteRejection({ ...open, lockedUntil: now - 1 }, now)).toBeUndefined();
  });

  it.each<[string, Conversation | undefined, 'not-found' | 'conflict', RegExp]>([
    ['absent', undefined, 'not-found', /No customer conversation/],
    ['not a customer conversation', { ...open, type: 'internal' }, 'not-found', /No customer conversation/],
    ['inactive assignee', { ...open, assignee: { id: 'a', active: false } }, 'not-found', /assignee is not active/],
    ['closed', { ...open, status: 'closed' }, 'conflict', /closed/],
    ['merged', { ...open, mergedInto: 'c2' }, 'conflict', /merged/],
    ['merged status', { ...open, status: 'merged' }, 'conflict', /merged/],
    ['locked', { ...open, lockedUntil: now + 1 }, 'conflict', /locked until 2026-06-01T12:00:00.001Z/],
    ['realtime-owned', { ...open, realtimeOwner: 'voice-1' }, 'conflict', /realtime/],
  ])('%s', (_name, conversation, kind, message) => {
    const rejection = explainNoteRejection(conversation, now);
    expect(rejection?.kind).toBe(kind);
    expect(rejection?.message).toMatch(message);
  });

  it('reports 404 before 409 when both apply', () => {
    expect(explainNoteRejection({ ...open, status: 'closed', assignee: { id: 'a', active: false } }, now)?.kind).toBe(
      'not-found',
    );
  });
});
