/**
 * A handler's path, query and body are typed from its route's schemas (RouteInputs, generated with
 * the validators). The type assertions are checked by `npm run typecheck`, part of `npm test`: a
 * schema or generator change that loosened them (a path parameter that may be undefined, a body
 * of `unknown`) fails the type check.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { JsonValue } from '#shared/domain/documents/json-value';
import type { RECORDING_CONTENT_TYPES } from '#shared/domain/voc/recording-upload';
import type { ApiRequest } from '#shared/http/api-types';
import { createApiHandler } from '#shared/http/create-api-handler';
import {
  addInternalNote,
  createRecording,
  getVocJobStatus,
  listDocuments,
  type RouteInputs,
} from '#shared/schemas/route-validators.generated';

describe('route inputs', () => {
  it('type path parameters as present strings, optional query parameters as possibly absent, bodies by their schema', () => {
    expectTypeOf<RouteInputs['addInternalNote']['path']>().toEqualTypeOf<{
      tenantId: string;
      conversationId: string;
    }>();
    expectTypeOf<RouteInputs['addInternalNote']['body']>().toEqualTypeOf<{ body: string }>();
    expectTypeOf<RouteInputs['getVocJobStatus']['path']['jobId']>().toEqualTypeOf<string>();
    expectTypeOf<RouteInputs['listDocuments']['query']['limit']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<RouteInputs['listAssistantConversations']['query']['range']>().toEqualTypeOf<
      'last_day' | 'last_week' | 'last_month' | undefined
    >();
    expectTypeOf<RouteInputs['createRecording']['body']['contentType']>().toEqualTypeOf<
      (typeof RECORDING_CONTENT_TYPES)[number]
    >();
    expectTypeOf<RouteInputs['createRecording']['body']['sizeBytes']>().toEqualTypeOf<number>();
    // A document is any JSON object: its values are JSON values, not unknown.
    expectTypeOf<RouteInputs['replaceCurrentDocument']['body']>().toEqualTypeOf<{ [key: string]: JsonValue }>();
    // The route's id picks the types: a handler of one route never sees another's.
    expectTypeOf(createApiHandler<'getVocJobStatus'>)
      .parameter(1)
      .parameter(0)
      .toEqualTypeOf<ApiRequest<RouteInputs['getVocJobStatus']>>();
    expect([addInternalNote.id, createRecording.id, getVocJobStatus.id, listDocuments.id]).toEqual([
      'addInternalNote',
      'createRecording',
      'getVocJobStatus',
      'listDocuments',
    ]);
  });
});
