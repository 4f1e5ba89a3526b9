/**
 * The OpenAPI document is valid OpenAPI 3.1 and passes Spectral's OpenAPI and OWASP rulesets with
 * no error and no warning (test/contract/openapi-lint-ruleset.ts says what is off, and why), and it
 * describes exactly the route table.
 */
import { readFileSync } from 'node:fs';
import {
  Document,
  type ISpectralDiagnostic,
  Ruleset,
  type RulesetDefinition,
  Spectral,
} from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import type { RouteSpec } from '#shared/api/route-spec';
import { routes } from '#shared/api/route-table';
import { webhookDocs } from '#shared/api/webhooks-docs';
import {
  documentChanged,
  noteCreated,
  vocJobEnded,
  WEBHOOK_EVENT_TYPES,
  webhookBody,
} from '#shared/domain/webhooks/webhook-events';
import { validatorFor } from '#shared/http/validator-for';
import { buildOpenApiDocument, SECURITY_SCHEME } from '#shared/openapi/build-openapi-document';
import { DOCUMENT_SOURCE, lintRuleset, RULESET_SOURCE } from './openapi-lint-ruleset.ts';

const document = buildOpenApiDocument();
const routeSpecs: readonly RouteSpec[] = routes;

async function lintWith(ruleset: RulesetDefinition, json: unknown): Promise<ISpectralDiagnostic[]> {
  const spectral = new Spectral();
  spectral.setRuleset(new Ruleset(ruleset, { source: RULESET_SOURCE }));
  return spectral.run(new Document(JSON.stringify(json, null, 2), Parsers.Json, DOCUMENT_SOURCE));
}

const lint = (json: unknown) => lintWith(lintRuleset, json);

const describeFinding = (finding: ISpectralDiagnostic) =>
  `${String(finding.code)} at ${finding.path.join('.')}: ${finding.message}`;

/** Errors (0), warnings (1): anything a reader of the lint would have to act on. */
const actionable = (findings: ISpectralDiagnostic[]) =>
  findings.filter((finding) => finding.severity <= 1).map(describeFinding);

describe('the OpenAPI document', () => {
  it('passes the Spectral OpenAPI and OWASP rulesets with no error and no warning', async () => {
    expect(actionable(await lint(document))).toEqual([]);
  });

  it('the lint can fail: a response schema that is not a schema, and a request string without a bound, are found', async () => {
    const broken = structuredClone(document);
    broken.components.schemas.ErrorBody = { type: 'object', required: 'code' };
    broken.components.schemas.AddInternalNoteBody = { type: 'object', properties: { body: { type: 'string' } } };
    const findings = actionable(await lint(broken));
    expect(findings.some((finding) => finding.startsWith('oas3-schema'))).toBe(true);
    expect(
      findings.some((finding) =>
        finding.startsWith('owasp:api4:2023-string-limit at components.schemas.AddInternalNoteBody'),
      ),
    ).toBe(true);
  });

  it('needs every rule it turns off: without them, each one fires', async () => {
    const unrelaxed = await lintWith({ extends: lintRuleset.extends }, document);
    const fired = new Set(unrelaxed.map((finding) => String(finding.code)));
    const relaxed = [
      ...Object.keys(lintRuleset.rules),
      ...lintRuleset.overrides.flatMap((override) => Object.keys(override.rules)),
    ];
    expect(relaxed.filter((rule) => !fired.has(rule))).toEqual([]);
  });

  it('is OpenAPI 3.1 with one operation per route method, named by the route id', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        path,
        method: method.toUpperCase(),
        id: operation.operationId,
      })),
    );
    const expected = routeSpecs.flatMap((route) => [
      { path: route.path, method: route.method, id: route.id },
      ...(route.otherMethods ?? []).map((method) => ({
        path: route.path,
        method,
        id: expect.stringMatching(new RegExp(`^${route.id}`)),
      })),
    ]);
    expect(operations).toEqual(expect.arrayContaining(expected));
    expect(operations).toHaveLength(expected.length);
    // What oas3-operation-security-defined would check, were it on: every requirement names a defined scheme.
    const schemes = Object.keys(document.components.securitySchemes);
    const required = [
      document.security,
      ...Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.security)),
    ];
    for (const requirement of required.flat())
      expect(schemes).toEqual(expect.arrayContaining(Object.keys(requirement)));
  });

  it("the README's endpoint table (the spec's endpoints and the upload they refer to) is the route table: each row's method, path, scope and success statuses", () => {
    const readme = readFileSync(`${PROJECT_ROOT}/README.md`, 'utf8');
    const table = readme.slice(readme.indexOf('## Endpoints'));
    // | 5 | `POST .../{collection}/{docId}/versions/current` (create or replace) | `provisioning:{collection}.write` | 201 / 200 |
    const rows = [...table.matchAll(/^\| (?:\d+|\+) \| `(\w+) ([^`]+)`[^|]* \| `([^`]+)` \| ([\d /]+) \|$/gm)].map(
      ([, method, path, scope, statuses]) => ({
        method,
        path: path!,
        scope,
        statuses: statuses!.split('/').map((status) => Number(status.trim())),
      }),
    );
    const matches = (route: RouteSpec, path: string) =>
      path.startsWith('...') ? route.path.endsWith(path.slice(3)) : route.path === path;
    const described = rows.map((row) => {
      const found = routeSpecs.filter((route) => route.method === row.method && matches(route, row.path));
      expect(found, `${row.method} ${row.path}`).toHaveLength(1);
      const route = found[0]!;
      expect(row.scope, route.id).toBe(route.scope);
      expect(row.statuses.sort(), route.id).toEqual(
        [
          route.schemas.response.status,
          ...(route.schemas.response.otherStatuses ?? []).filter((status) => status < 300),
        ].sort(),
      );
      return route.id;
    });
    expect(described.sort()).toEqual(routeSpecs.map((route) => route.id).sort());
  });

  it.each(routeSpecs.map((route) => [route.id, route] as const))(
    '%s: scope, success statuses, error schema, Retry-After and X-Request-Id',
    (_id, route) => {
      const operation = document.paths[route.path]![route.method.toLowerCase() as 'get']!;
      expect(operation.security).toEqual([{ [SECURITY_SCHEME]: [route.scope] }]);
      expect(document.components.securitySchemes[SECURITY_SCHEME]).toMatchObject({ type: 'http', scheme: 'bearer' });
      const statuses = Object.keys(operation.responses).map(Number);
      for (const status of [
        route.schemas.response.status,
        ...(route.schemas.response.otherStatuses ?? []),
        ...route.errors.filter((s) => s !== 405),
      ]) {
        expect(statuses).toContain(status);
      }
      for (const status of [400, 401, 403, 429, 502, 503, 504]) expect(statuses).toContain(status);
      const resolve = <T>(value: T | { $ref: string }): T => {
        if (!('$ref' in (value as object))) return value as T;
        const [, , kind, name] = (value as { $ref: string }).$ref.split('/');
        return (document.components as unknown as Record<string, Record<string, T>>)[kind!]![name!]!;
      };
      for (const [status, value] of Object.entries(operation.responses)) {
        const response = resolve(value);
        expect(Object.keys(response.headers ?? {}), `${status} headers`).toContain('X-Request-Id');
        if (status === '429' || status === '503') expect(Object.keys(response.headers ?? {})).toContain('Retry-After');
      }
      if (route.maxBodyBytes !== undefined)
        expect(operation.requestBody?.description).toContain(String(route.maxBodyBytes));
    },
  );

  it('documents the safe-retry and conditional headers (safe retries, conditional requests) on exactly the operations that honour them', () => {
    const operationOf = (id: string) => {
      const route = routeSpecs.find((candidate) => candidate.id === id)!;
      return document.paths[route.path]![route.method.toLowerCase() as 'get']!;
    };
    const headerNames = (id: string) =>
      (operationOf(id).parameters ?? [])
        .filter((parameter) => 'in' in parameter && parameter.in === 'header')
        .map((parameter) => (parameter as { name: string }).name);
    const successHeaders = (id: string) => {
      const route = routeSpecs.find((candidate) => candidate.id === id)!;
      return [
        route.schemas.response.status,
        ...(route.schemas.response.otherStatuses ?? []).filter((status) => status < 300),
      ].map((status) => {
        const response = operationOf(id).responses[String(status)] as { headers?: Record<string, unknown> };
        return Object.keys(response.headers ?? {});
      });
    };
    const writes = [
      'addInternalNote',
      'replaceCurrentDocument',
      'mergeCurrentDocument',
      'restoreDocumentVersion',
      'createRecording',
      'createWebhookEndpoint',
      'rotateWebhookSecret',
    ];
    for (const id of writes) {
      expect(headerNames(id), id).toContain('Idempotency-Key');
      for (const headers of successHeaders(id)) expect(headers, id).toContain('Idempotent-Replayed');
      expect(Object.keys(operationOf(id).responses), id).toContain('422');
    }
    for (const id of ['replaceCurrentDocument', 'mergeCurrentDocument', 'restoreDocumentVersion'])
      expect(headerNames(id), id).toContain('If-Match');
    for (const id of ['replaceCurrentDocument', 'getCurrentDocument', 'getDocumentVersion'])
      expect(headerNames(id), id).toContain('If-None-Match');
    const versionAnswers = [
      'getCurrentDocument',
      'replaceCurrentDocument',
      'mergeCurrentDocument',
      'getDocumentVersion',
      'restoreDocumentVersion',
    ];
    for (const id of versionAnswers) {
      for (const headers of successHeaders(id))
        expect(headers, id).toEqual(expect.arrayContaining(['ETag', 'Content-Location']));
    }
    for (const headers of successHeaders('getDocumentVersion')) expect(headers).toContain('Cache-Control');
    for (const id of ['getCurrentDocument', 'getDocumentVersion'])
      expect(Object.keys(operationOf(id).responses), id).toContain('304');
    // The reads take no key: a client sending one would believe it protects something.
    for (const route of routeSpecs.filter((candidate) => !writes.includes(candidate.id)))
      expect(headerNames(route.id), route.id).not.toContain('Idempotency-Key');
  });

  it('is self-contained: every $ref points inside the document, and no schema keeps an $id', () => {
    const refs: string[] = [];
    const ids: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref') refs.push(String(value));
          else if (key === '$id') ids.push(String(value));
          else walk(value);
        }
      }
    };
    walk(document);
    expect(ids).toEqual([]);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\//);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, segment) =>
            (node as Record<string, unknown> | undefined)?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')],
          document,
        );
      expect(target, ref).toBeDefined();
    }
  });

  it('does not list the unauthenticated helper paths /openapi.json and /docs as operations', () => {
    expect(Object.keys(document.paths).filter((path) => !path.startsWith('/api/v1/'))).toEqual([]);
  });
});

describe('the webhooks section', () => {
  it('describes every event type a tenant can subscribe to, signed by the three Standard Webhooks headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, item] of Object.entries(document.webhooks)) {
      const operation = item.post!;
      expect(
        (operation.parameters ?? []).map((parameter) => (parameter as { name: string }).name),
        type,
      ).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      expect(Object.keys(operation.responses).sort(), type).toEqual(['200', '410']);
    }
  });

  it('each body the service makes is what its schema says, and so is every example', () => {
    const note = {
      id: '01KE3WZ8M7Q2X9D4C6B1N5R0TA',
      createdAt: '2026-01-02T09:00:00.000Z',
      visibility: 'internal',
      author: { type: 'system', id: null, name: 'API' },
    } as const;
    const job = {
      id: 'job-1',
      status: 'failed',
      started: 1,
      file: 'recordings/acme/job-1.wav',
      recordingId: 'rec-1',
      failureReason: 'not audio',
    } as const;
    const bodies = [
      noteCreated('acme', 'conv-1', note),
      vocJobEnded('acme', job, new Date()),
      vocJobEnded(
        'acme',
        { ...job, status: 'completed', failureReason: undefined, analysis: 'transcription' },
        new Date(),
      ),
      documentChanged(
        'acme',
        { collection: 'bots', documentId: 'bot-1', etag: 'k3Jv0cQ9', version: 2, change: 'created' },
        new Date(),
      ),
    ];
    for (const body of bodies) {
      const schema = webhookDocs[body.type].schema;
      const validate = validatorFor(schema);
      expect(validate(JSON.parse(webhookBody(body))), `${body.type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    for (const type of WEBHOOK_EVENT_TYPES) {
      const validate = validatorFor(webhookDocs[type].schema);
      expect(validate(webhookDocs[type].example), `${type}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
