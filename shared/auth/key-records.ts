/**
 * The port to the keys table: what a key record holds and what issuing, revoking, syncing and the
 * authorizer ask of the store that keeps them. It lives with the key rules, not the DynamoDB
 * adapter (shared/store/keys-store.ts), so those rules depend on no store and the adapter depends
 * on them, never the other way round.
 */
import type { KeyLifecycle } from './key-status.ts';

export interface StoredKey extends KeyLifecycle {
  keyId: string;
  keyHash: string;
  tenants: string[];
  scopes: string[];
  name: string;
  createdAt: string;
  /**
   * True on a key issued with a tag (`cxm_<keyId>_<secret>_<tag>`); absent on one issued before
   * tags, which works only while the stage accepts untagged keys (`cxm keys list` shows which).
   */
  tagged?: true | undefined;
}

export interface KeysStore {
  findByHash(keyHash: string): Promise<StoredKey | undefined>;
  /** A key's record by its id (the id is on every key, the key itself on none). */
  findByKeyId(keyId: string): Promise<StoredKey | undefined>;
  create(key: StoredKey): Promise<void>;
  list(tenantId?: string): Promise<StoredKey[]>;
  /** Marks the key revoked; undefined when no key has that id. */
  revoke(keyId: string, at: Date): Promise<StoredKey | undefined>;
}
