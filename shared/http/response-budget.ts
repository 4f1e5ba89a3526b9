/** A page stops growing past this many bytes: Lambda refuses responses over 6 MB. */
export const RESPONSE_BUDGET_BYTES = 5 * 1024 * 1024;
