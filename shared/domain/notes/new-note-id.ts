/** A note's id: a ULID, so a conversation's notes sort by creation. */
export { newUlid as newNoteId } from '../ids/new-ulid.ts';
