/** The lifecycle of a key record: usable until revoked or past its expiry. */
export interface KeyLifecycle {
  expiresAt?: string | undefined;
  revokedAt?: string | undefined;
}

export type KeyStatus = 'active' | 'revoked' | 'expired';

export function keyStatus(key: KeyLifecycle, nowMs: number): KeyStatus {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= nowMs) return 'expired';
  return 'active';
}
