/**
 * Responses of an OpenSearch 2.x cluster, in the shapes it sends them (search with and without
 * `track_total_hits`, bulk with mixed item outcomes, index template puts, and the errors the
 * adapters must turn into 503s, empty lists or retries). Builders fill in the ids and rows a test
 * asks for.
 */
import type { RecordedResponse } from './fake-opensearch-transport.ts';

export interface RecordedHit {
  id: string;
  row: string;
  sort: [number, string];
}

const shards = { total: 1, successful: 1, skipped: 0, failed: 0 };

/**
 * `POST /<alias>/_search` with `_source: ["row"]`; `total` only when the request tracked it. A hit
 * names the index it came from: `index`, or the hit's own (a year index behind the alias).
 */
export function searchAnswer(
  index: string,
  hits: Array<RecordedHit & { index?: string }>,
  total?: number,
): RecordedResponse {
  return {
    statusCode: 200,
    body: {
      took: 4,
      timed_out: false,
      _shards: shards,
      hits: {
        ...(total === undefined ? {} : { total: { value: total, relation: 'eq' } }),
        max_score: null,
        hits: hits.map(({ id, row, sort, index: hitIndex }) => ({
          _index: hitIndex ?? index,
          _id: id,
          _routing: id.split('#')[0],
          _score: null,
          _source: { row },
          sort,
        })),
      },
    },
  };
}

/** A 200 that lost shards on the way (what a proxy or an older cluster can answer despite allow_partial_search_results=false). */
export function searchWithFailedShards(index: string): RecordedResponse {
  const answer = searchAnswer(index, [], 0);
  const body = answer.body as Record<string, unknown>;
  return {
    ...answer,
    body: {
      ...body,
      _shards: {
        total: 3,
        successful: 2,
        skipped: 0,
        failed: 1,
        failures: [
          {
            shard: 0,
            index: `${index}-2025`,
            status: 'SERVICE_UNAVAILABLE',
            reason: { type: 'no_shard_available_action_exception', reason: null },
          },
        ],
      },
    },
  };
}

export const allShardsFailed: RecordedResponse = {
  statusCode: 503,
  body: {
    error: {
      root_cause: [],
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      phase: 'query',
      grouped: true,
      failed_shards: [],
    },
    status: 503,
  },
};

export const searchRejected: RecordedResponse = {
  statusCode: 429,
  body: {
    error: {
      root_cause: [
        {
          type: 'rejected_execution_exception',
          reason: 'rejected execution of coordinating operation [shard_detail=[search]]',
        },
      ],
      type: 'rejected_execution_exception',
      reason: 'rejected execution of coordinating operation [shard_detail=[search]]',
    },
    status: 429,
  },
};

export function indexNotFound(index: string): RecordedResponse {
  const cause = {
    type: 'index_not_found_exception',
    reason: `no such index [${index}]`,
    index,
    'resource.id': index,
    'resource.type': 'index_or_alias',
    index_uuid: '_na_',
  };
  return { statusCode: 404, body: { error: { root_cause: [cause], ...cause }, status: 404 } };
}

/** What the domain's access policy answers to a role it does not grant (no OpenSearch error body). */
export const accessDenied: RecordedResponse = {
  statusCode: 403,
  body: {
    Message: 'User: arn:aws:sts::123456789012:assumed-role/cxm-dev-list/fn is not authorized to perform: es:ESHttpPost',
  },
};

/** A search of an alias one of whose indexes is closed (without ignore_unavailable). */
export function indexClosed(index: string): RecordedResponse {
  const cause = { type: 'index_closed_exception', reason: 'closed', index_uuid: 'Yc3OhX7dQkOqlkB1cF0uBw', index };
  return { statusCode: 400, body: { error: { root_cause: [cause], ...cause }, status: 400 } };
}

/** `POST /_index_template/<name>` (the client's verb; PUT is the same): created or replaced alike. */
export const templateAcknowledged: RecordedResponse = { statusCode: 200, body: { acknowledged: true } };

export type BulkOutcome = 'created' | 'updated' | 'deleted' | 'not_found' | 'conflict' | 'rejected' | 'mapping';

/** One bulk item as OpenSearch reports it, for an operation on `index`/`id` with `version`. */
export function bulkItem(action: 'index' | 'delete', index: string, id: string, version: bigint, outcome: BulkOutcome) {
  const base = { _index: index, _id: id };
  const ok = (result: string, status: number) => ({
    [action]: {
      ...base,
      _version: Number(version),
      result,
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: 7,
      _primary_term: 1,
      status,
    },
  });
  const error = (status: number, type: string, reason: string) => ({
    [action]: { ...base, status, error: { type, reason, index, shard: '0', index_uuid: 'Yc3OhX7dQkOqlkB1cF0uBw' } },
  });
  switch (outcome) {
    case 'created':
      return ok('created', 201);
    case 'updated':
      return ok('updated', 200);
    case 'deleted':
      return ok('deleted', 200);
    case 'not_found':
      return ok('not_found', 404);
    case 'conflict':
      return error(
        409,
        'version_conflict_engine_exception',
        `[${id}]: version conflict, current version [${version + 1n}] is higher or equal to the one provided [${version}]`,
      );
    case 'rejected':
      return error(
        429,
        'rejected_execution_exception',
        'rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=52428800, max_coordinating_and_primary_bytes=53687091]',
      );
    case 'mapping':
      return error(
        400,
        'mapper_parsing_exception',
        `failed to parse field [CSat] of type [float] in document with id '${id}'`,
      );
  }
}

export function bulkAnswer(items: Array<ReturnType<typeof bulkItem>>): RecordedResponse {
  const failed = items.some((item) => Object.values(item).some((result) => 'error' in result));
  return { statusCode: 200, body: { took: 12, errors: failed, items } };
}
