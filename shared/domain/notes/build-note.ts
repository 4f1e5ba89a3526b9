/** The internal note: internal, text-only, attributed to the API as a system author. */
export interface InternalNote {
  id: string;
  createdAt: string;
  visibility: 'internal';
  author: { type: 'system'; id: null; name: string };
}

export const API_AUTHOR = { type: 'system', id: null, name: 'API' } as const;

export function buildNote(id: string, now: Date): InternalNote {
  return { id, createdAt: now.toISOString(), visibility: 'internal', author: { ...API_AUTHOR } };
}
