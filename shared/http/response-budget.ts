/**
 * A page stops growing past this many bytes of body, measured as escaped in the Lambda response
 * envelope (the body is a JSON string there): Lambda refuses responses over 6 MB.
 */
export const RESPONSE_BUDGET_BYTES = 5 * 1024 * 1024;
