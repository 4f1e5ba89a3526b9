/**
 * RFC 7396 JSON Merge Patch: objects merge recursively, `null` deletes a member, anything else
 * (arrays included) replaces. Written here rather than taken from a package because member names
 * are client data: `__proto__` or `constructor` must be plain members, so every read and write
 * below is of own properties only, which the small packages on npm do not guarantee.
 */
import { isJsonObject, type JsonObject, type JsonValue } from './json-value.ts';

function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A patch object always merges to an object, whatever the target. */
export function applyMergePatch(target: JsonValue | undefined, patch: JsonObject): JsonObject;
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue;
export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = {};
  if (isJsonObject(target)) for (const [key, value] of Object.entries(target)) setOwn(result, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      const current = Object.hasOwn(result, key) ? result[key] : undefined;
      setOwn(result, key, applyMergePatch(current, value));
    }
  }
  return result;
}
