/**
 * The `Idempotency-Key` request header: 1 to 255 visible ASCII characters (0x21-0x7E), the
 * rule of the IETF httpapi draft's examples and of Stripe's keys. Anything else is refused rather
 * than trimmed or truncated: two different keys must never be mistaken for one.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** Why `value` is not a usable key, or undefined when it is. */
export function idempotencyKeyProblem(value: string): string | undefined {
  if (value.length >= 1 && value.length <= IDEMPOTENCY_KEY_MAX_LENGTH && VISIBLE_ASCII.test(value)) return undefined;
  const what =
    value.length === 0
      ? 'is empty'
      : value.length > IDEMPOTENCY_KEY_MAX_LENGTH
        ? `is ${value.length} characters long`
        : 'contains a character outside visible ASCII (a space, a control character or a non-ASCII letter)';
  return (
    `Header '${IDEMPOTENCY_KEY_HEADER}' ${what}; it must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters ` +
    '(0x21-0x7E), for example a UUID. Send no header at all for a request that needs no safe retry.'
  );
}
