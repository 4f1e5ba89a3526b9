/**
 * Partition keys put the tenant first (`<tenant>#<rest>`). Tenant ids cannot hold `#`, so two
 * tenants' keys never collide. DynamoDB refuses partition keys over 2048 bytes: an id that long
 * cannot have been stored, so callers treat it as absent instead of failing the request.
 */
export const MAX_PARTITION_KEY_BYTES = 2048;

export function tenantKey(tenantId: string, ...parts: string[]): string | undefined {
  const key = [tenantId, ...parts].join('#');
  return Buffer.byteLength(key, 'utf8') <= MAX_PARTITION_KEY_BYTES ? key : undefined;
}
