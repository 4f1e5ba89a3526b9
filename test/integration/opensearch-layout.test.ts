/**
 * The reporting layout on the engine across a deploy that changes it: the indexer's cold start
 * (ensureIndexTemplates) gives the year indexes made from an earlier template the fields the
 * current one adds, so a row written from then on is indexed by them; a change an existing index
 * cannot take (a field's type) is reported and shapes the next year's index instead. Under an index
 * prefix of this file's own, on the run's engine.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReportKind } from '#shared/domain/reporting/report-cursor';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { ensureIndexTemplates } from '#shared/store/opensearch-ensure-index-templates';
import { reportingReadAlias, reportingTemplateName } from '#shared/store/opensearch-index-names';
import { indexReportingRecords } from '#shared/store/opensearch-index-rows';
import { type IndexTemplate, reportingIndexTemplate } from '#shared/store/opensearch-index-template';
import { reportingItem, sequenceNumber, writeRecord } from '#test/support/reporting-stream-records';
import { runOpenSearch } from '#test/support/run-opensearch';

const { client } = runOpenSearch();
const prefix = `cxm-layout-${randomUUID().slice(0, 8)}`;
const SHARDS = { primaries: 1, replicas: 0 };
let sequence = 0n;

afterAll(async () => {
  await client
    .request({ method: 'DELETE', path: `/${prefix}-assistant-2026,${prefix}-assistant-2027` })
    .catch(() => undefined);
  for (const kind of ['assistant', 'voc'] as const)
    await client
      .request({ method: 'DELETE', path: `/_index_template/${reportingTemplateName(prefix, kind)}` })
      .catch(() => undefined);
});

/** The template a deploy before this one put: the current one, changed by `edit`. */
async function putEarlierTemplate(kind: ReportKind, edit: (properties: Record<string, unknown>) => void) {
  const earlier: IndexTemplate = structuredClone(reportingIndexTemplate(prefix, kind, SHARDS));
  edit(earlier.template.mappings.properties as Record<string, unknown>);
  await client.request({
    method: 'POST',
    path: `/_index_template/${reportingTemplateName(prefix, kind)}`,
    body: earlier,
  });
}

/** Writes assistant rows through the indexer's path, then refreshes. */
async function index(rows: Array<{ ID: string; Datetime: number; Summary: string }>) {
  const seconds = Math.floor(Date.now() / 1000);
  const records = rows.map((row) =>
    writeRecord(reportingItem('t1', 'assistant', shapeRow('assistant', 't1', row)), {
      sequenceNumber: sequenceNumber(++sequence),
      seconds,
    }),
  );
  expect(await indexReportingRecords(client, prefix, records)).toEqual({ batchItemFailures: [], notIndexed: 0 });
  await client.request({ method: 'POST', path: `/${prefix}-*/_refresh` });
}

/** The ids of the rows whose Summary matches `text`. */
async function summaryMatches(text: string): Promise<string[]> {
  const { body } = await client.request({
    method: 'POST',
    path: `/${reportingReadAlias(prefix, 'assistant')}/_search`,
    body: { query: { match: { Summary: text } }, _source: ['rowId'] },
  });
  return (body as { hits: { hits: Array<{ _source: { rowId: string } }> } }).hits.hits.map((hit) => hit._source.rowId);
}

const Y2026 = Date.parse('2026-03-01T00:00:00Z');
const Y2027 = Date.parse('2027-03-01T00:00:00Z');

describe('a deploy that changes the reporting mappings', () => {
  it('gives the year indexes that exist the new fields: rows written from then on are indexed by them', async () => {
    await putEarlierTemplate('assistant', (properties) => delete properties.Summary);
    await index([{ ID: 'before', Datetime: Y2026, Summary: 'refund approved' }]);
    // Indexed without the field, kept in _source only: no search finds it by it.
    expect(await summaryMatches('refund')).toEqual([]);

    expect(await ensureIndexTemplates(client, prefix, SHARDS)).toEqual([]);
    const { body } = await client.request({ method: 'GET', path: `/${prefix}-assistant-2026/_mapping/field/Summary` });
    expect(JSON.stringify(body)).toContain('"type":"text"');
    await index([{ ID: 'after', Datetime: Y2026 + 1, Summary: 'refund refused' }]);
    expect(await summaryMatches('refund')).toEqual(['after']);
  });

  it('reports a change an existing index cannot take, and makes the next year index with it', async () => {
    await putEarlierTemplate('assistant', (properties) => {
      properties.CSat = { type: 'keyword' };
    });
    await index([{ ID: 'older-type', Datetime: Y2027, Summary: 'x' }]);
    const refused = await ensureIndexTemplates(client, prefix, SHARDS);
    expect(refused).toEqual([
      {
        kind: 'assistant',
        reason: expect.objectContaining({ error: expect.objectContaining({ type: 'illegal_argument_exception' }) }),
      },
    ]);
    // The template itself is the current one: a year index made from now on has the float.
    const { body } = await client.request({
      method: 'GET',
      path: `/_index_template/${reportingTemplateName(prefix, 'assistant')}`,
    });
    expect(JSON.stringify(body)).toContain('"CSat":{"type":"float"}');
  });
});
