/**
 * In the chain, after the parameters: the size limit on the raw bytes (base64-aware) before anything is parsed (413),
 * then the media type and the JSON parse (400).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { badRequest, payloadTooLarge } from '#shared/api/api-error';
import type { RouteSpec } from '#shared/api/route-spec';
import { describeUnfaithfulJson } from '#shared/domain/json/describe-unfaithful-json';
import { findHeader } from '#shared/http/find-header';
import type { ChainEvent } from './api-types.ts';

// application/json or application/*+json, optionally with a UTF-8 charset (spelt utf-8 or utf8).
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;\s*charset\s*=\s*"?utf-?8"?\s*)?$/i;
/** One per function: a decoder is costly to make, and one that does not stream keeps no state between bodies. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export function rawBody(event: ChainEvent): Buffer {
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

export function parseJsonBody(route: RouteSpec): MiddlewareObj<ChainEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      const bytes = rawBody(event);
      // Kept for handlers that read the bytes themselves (MCP), so they are decoded once.
      if (event.cxm) event.cxm.rawBody = bytes;
      if (route.maxBodyBytes !== undefined && bytes.length > route.maxBodyBytes) {
        throw payloadTooLarge(route.maxBodyBytes);
      }
      // A route without a body schema reads its body itself (MCP parses JSON-RPC).
      if (!route.schemas.body) return;
      if (bytes.length === 0) throw badRequest('A JSON request body is required.');
      const contentType = findHeader(event.headers, 'content-type');
      if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType.trim())) {
        throw badRequest("Header 'Content-Type' must be application/json (UTF-8).");
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(UTF8.decode(bytes));
      } catch (error) {
        const reason = error instanceof SyntaxError ? error.message : 'it is not valid UTF-8';
        throw badRequest(`The request body is not valid JSON: ${reason}`);
      }
      const unfaithful = describeUnfaithfulJson(parsed);
      if (unfaithful) throw badRequest(unfaithful);
      if (event.cxm) event.cxm.body = parsed;
    },
  };
}
