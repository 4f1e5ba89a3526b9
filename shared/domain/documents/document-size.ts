/**
 * A stored document is at most 350 KB (358 400 bytes) as compact UTF-8 JSON: it then fits a
 * DynamoDB item (400 KB) with its keys, whatever white space the request carried.
 */
export const DOCUMENT_MAX_BYTES = 350 * 1024;

const encoder = new TextEncoder();

export function jsonBytes(json: string): number {
  return encoder.encode(json).length;
}
