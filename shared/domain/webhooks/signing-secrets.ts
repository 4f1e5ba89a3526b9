/**
 * An endpoint's secrets across a rotation: rotating makes a new secret current and keeps the one
 * it replaces for 24 hours, during which both sign every attempt (the new one first), so a
 * receiver can switch at its own pace; after that only the new one signs.
 */

/** How long a replaced secret still signs. */
export const PREVIOUS_SECRET_SIGNS_FOR_MS = 24 * 60 * 60 * 1000;

export interface SigningSecrets {
  current: string;
  /** The secret the last rotation replaced, and until when it still signs (epoch ms). */
  previous?: { secret: string; until: number };
}

/**
 * The secrets after a rotation at `now` to `current`: the old one kept for 24 hours. A previous
 * secret still in its 24 hours is dropped: only the last two secrets ever sign.
 *
 * @example const rotated = rotateSecrets(endpoint.secrets, newWebhookSecret(), Date.now());
 */
export function rotateSecrets(secrets: SigningSecrets, current: string, now: number): SigningSecrets {
  return { current, previous: { secret: secrets.current, until: now + PREVIOUS_SECRET_SIGNS_FOR_MS } };
}

/**
 * The secrets that sign an attempt made at `now`, the current one first.
 *
 * @example webhookHeaders(message, signingSecretsAt(endpoint.secrets, Date.now()), new Date())
 */
export function signingSecretsAt(secrets: SigningSecrets, now: number): string[] {
  return secrets.previous && now < secrets.previous.until
    ? [secrets.current, secrets.previous.secret]
    : [secrets.current];
}
