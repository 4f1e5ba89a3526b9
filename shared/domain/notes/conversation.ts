/** A conversation as far as notes care. Other conversation fields are not part of the contract. */
export interface Conversation {
  id: string;
  /** Only `customer` conversations accept notes. */
  type: string;
  status: string;
  mergedInto: string | null;
  /** Epoch milliseconds; a lock in the future refuses notes. */
  lockedUntil: number | null;
  realtimeOwner: string | null;
  assignee: { id: string; active: boolean } | null;
}

/** A conversation with every unset field spelled out: an open customer conversation by default. */
export function conversationWithDefaults(fields: Partial<Conversation> & { id: string }): Conversation {
  return {
    type: 'customer',
    status: 'open',
    mergedInto: null,
    lockedUntil: null,
    realtimeOwner: null,
    assignee: null,
    ...fields,
  };
}
