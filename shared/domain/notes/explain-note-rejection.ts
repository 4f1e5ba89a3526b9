/**
 * Why a conversation refused a note, read from the conversation as it was when the atomic
 * write's condition failed. The store's condition expression and this function state the same
 * rules; the integration tests exercise each rule through both.
 */
import type { Conversation } from './conversation.ts';

export interface NoteRejection {
  kind: 'not-found' | 'conflict';
  message: string;
}

export function explainNoteRejection(conversation: Conversation | undefined, nowMs: number): NoteRejection | undefined {
  // One message for absent and non-customer records, so a caller cannot probe what else exists.
  if (conversation?.type !== 'customer') {
    return { kind: 'not-found', message: 'No customer conversation with this id is available in this tenant.' };
  }
  if (conversation.assignee && conversation.assignee.active === false) {
    return { kind: 'not-found', message: "The conversation's assignee is not active in this tenant." };
  }
  if (conversation.status === 'closed') {
    return { kind: 'conflict', message: 'The conversation is closed.' };
  }
  if (conversation.mergedInto !== null || conversation.status === 'merged') {
    return { kind: 'conflict', message: 'The conversation was merged into another conversation.' };
  }
  if (conversation.lockedUntil !== null && conversation.lockedUntil > nowMs) {
    return {
      kind: 'conflict',
      message: `The conversation is locked until ${new Date(conversation.lockedUntil).toISOString()}.`,
    };
  }
  if (conversation.realtimeOwner !== null) {
    return { kind: 'conflict', message: 'The conversation is owned by a realtime session.' };
  }
  // The conversation accepts notes now: it changed after the condition failed.
  return undefined;
}
