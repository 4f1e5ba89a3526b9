/** Issues a key: generates it, stores only its hash, and returns it once for the operator. */
import type { KeysStore, StoredKey } from '#shared/store/keys-store';
import { generateKey } from './key-format.ts';

export interface KeyRequest {
  tenants: string[];
  scopes: string[];
  name: string;
  expiresAt?: string | undefined;
}

export interface IssuedKey {
  key: string;
  stored: StoredKey;
}

export async function issueKey(store: KeysStore, request: KeyRequest, now = new Date()): Promise<IssuedKey> {
  const { keyId, key, keyHash } = generateKey();
  const stored: StoredKey = {
    keyId,
    keyHash,
    tenants: [...new Set(request.tenants)],
    scopes: [...new Set(request.scopes)],
    name: request.name,
    createdAt: now.toISOString(),
    expiresAt: request.expiresAt,
  };
  await store.create(stored);
  return { key, stored };
}
