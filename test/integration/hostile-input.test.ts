/**
 * Property-based tests (fast-check) of every request input of every route: path segments, query
 * parameters, headers and bodies, sent raw through the local gateway over one keep-alive
 * connection. Whatever comes in: no 5xx, every error is the contract's body, unknown properties
 * and parameters are 400, the byte limits hold to the byte, and a refused request writes nothing
 * (for path segments the tenant's items are scanned before and after, so a write anywhere
 * shows). Every answer is also held to the OpenAPI document. Exhaustive edge cases of single
 * routes live in their own files; these properties sweep all routes at once.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTE_BODY_MAX_BYTES } from '#shared/api/conversations-routes';
import { MCP_REQUEST_MAX_BYTES } from '#shared/api/mcp-routes';
import { DOCUMENT_REQUEST_MAX_BYTES } from '#shared/api/provisioning-routes';
import type { HttpMethod, RouteSpec } from '#shared/api/route-spec';
import { routes, scopeAreas } from '#shared/api/route-table';
import { DOCUMENT_MAX_BYTES } from '#shared/domain/documents/document-size';
import { validatorFor } from '#shared/http/validator-for';
import {
  headerName,
  headerValue,
  hostileQuery,
  hostileSegment,
  oddText,
  queryToken,
} from '#test/support/hostile-arbitraries';
import { createRawClient, type RawClient, type RawResponse } from '#test/support/raw-client';
import {
  arrangeAll,
  FIXTURE_COLLECTION,
  FIXTURE_CONVERSATION,
  FIXTURE_DOC,
  fixtureOf,
  routeMethodPairs,
  sendsBody,
} from '#test/support/route-fixtures';
import { tenantItemKeys } from '#test/support/tenant-items';
import { expectDocumented, startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

// Every fuzzed create that succeeds starts a recording that stays in flight: this file's stage lets a
// tenant hold many more than the default, so the limit (integration/voc-fair-share) never answers first.
process.env.CXM_RECORDING_MAX_IN_FLIGHT = '10000';
// Every permitted create registers an endpoint: the most a stage may allow.
process.env.CXM_WEBHOOK_MAX_ENDPOINTS = '100';

let api: TestApi;
let raw: RawClient;
const tenant = uniqueTenant('hostile');
let key: string;
const allRoutes: readonly RouteSpec[] = routes;
const routeById = (id: string) => allRoutes.find((route) => route.id === id)!;

beforeAll(async () => {
  api = await startTestApi();
  raw = createRawClient(api.url);
  ({ key } = await api.createKey(
    [tenant],
    scopeAreas().map((area) => `${area}:*`),
  ));
  await arrangeAll(api, tenant);
  // The restore's document, arranged once: the fuzzed requests address it again and again.
  await fixtureOf(routeById('restoreDocumentVersion')).prepare?.(api, tenant, 'hostile');
});
afterAll(async () => {
  raw.close();
  await api.close();
});

/** The items the API could write for the tenant (notes, documents), found by scanning. */
async function tenantItems(): Promise<string[]> {
  return [
    ...(await tenantItemKeys(api.tables.conversations, tenant)),
    ...(await tenantItemKeys(api.tables.documents, tenant)),
  ].sort();
}

const documentItem = (collection: string, docId: string) => `${tenant}#${collection} ${docId}`;

/** What the fixture requests of the write routes would change: cheaper to read than a scan. */
async function writableState() {
  return {
    notes: (await api.conversations.listNotes(tenant, FIXTURE_CONVERSATION)).length,
    merged: (await api.documents.read(tenant, FIXTURE_COLLECTION, FIXTURE_DOC))?.json,
    replaced: (await api.documents.read(tenant, FIXTURE_COLLECTION, 'new-hostile'))?.json,
  };
}

interface Send {
  /** Raw (already percent-encoded) path parameters; the fixture's, encoded, fill the rest. */
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  /** A string or bytes go as they are; anything else as JSON. Default: the fixture's body. */
  body?: unknown;
  caseId?: string;
}

async function send(route: RouteSpec, method: HttpMethod, options: Send = {}): Promise<RawResponse> {
  const fixture = fixtureOf(route);
  const caseId = options.caseId ?? 'hostile';
  if (method === route.method) await fixture.prepare?.(api, tenant, caseId);
  const params: Record<string, string> = {
    tenantId: encodeURIComponent(tenant),
    ...Object.fromEntries(
      Object.entries(fixture.params(caseId)).map(([name, value]) => [name, encodeURIComponent(value)]),
    ),
    ...options.params,
  };
  const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => params[name]!);
  const body = 'body' in options ? options.body : sendsBody(method) ? fixture.body?.(caseId, tenant) : undefined;
  const payload = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return raw.send({
    method,
    target: options.query === undefined ? path : `${path}?${options.query}`,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...fixture.headers,
      ...options.headers,
    },
    body: payload,
  });
}

/**
 * What any answer must be: never a 5xx; an error carries the route's error body (`{code,
 * message}` with a code of the spec, or the MCP route's JSON-RPC variants); a success carries the
 * route's response body.
 */
function expectContract(route: RouteSpec, method: HttpMethod, response: RawResponse, what: string): void {
  const context = `${method} ${route.id} ${what} -> ${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);
  expectDocumented(
    method,
    response.target,
    new Response(null, { status: response.status, headers: webHeaders(response) }),
    response.text,
  );
  // A raw `/` in a parameter makes the path another route's, or none: then only the OpenAPI check applies.
  const sameRoute = response.target.split('?')[0]!.split('/').length === route.path.split('/').length;
  if (response.status >= 400) {
    const validate = validatorFor((sameRoute && route.schemas.errorBodies?.[response.status]) || 'ErrorBody');
    expect(validate(response.json), `${context}: ${JSON.stringify(validate.errors)}`).toBe(true);
  } else if (sameRoute && response.status !== 202 && response.status !== 304) {
    // 202 and 304 carry no body of the route's schema (304: none at all, RFC 9110).
    const permitted = fixtureOf(route).permitted[method]!;
    const validate = validatorFor(permitted.schema);
    expect(validate(response.json), `${context}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

function webHeaders(response: RawResponse): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return headers;
}

const pathParams = (route: RouteSpec) => [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const VERSION_NUMBER = /^[1-9][0-9]{0,14}$/;

/**
 * The statuses a path segment may get in `param`: undefined when a raw `/` splits it (the
 * path is then another route's or none). Other tenants are 403, bad encodings and bad ids 400,
 * and a valid id that addresses nothing is the route's answer for an absent resource.
 */
function segmentStatuses(
  route: RouteSpec,
  param: string,
  segment: string,
  created: ReadonlySet<string>,
): number[] | undefined {
  if (segment.includes('/')) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return [400];
  }
  if (param === 'tenantId') return [403];
  if (param === 'collection' ? !COLLECTION_NAME.test(decoded) : /[/\\]/.test(decoded) || [...decoded].length > 512)
    return [400];
  const unstorableDocId = param === 'docId' && Buffer.byteLength(decoded) > 1024;
  const addressed = { ...fixtureOf(route).params('hostile'), [param]: decoded };
  // The replace before it in the same run may have created what this id addresses.
  const exists = addressed.docId !== undefined && created.has(documentItem(addressed.collection!, addressed.docId));
  switch (route.id) {
    case 'listDocuments':
      return [200];
    case 'replaceCurrentDocument':
      return unstorableDocId ? [400] : [201, 200];
    case 'getCurrentDocument':
    case 'mergeCurrentDocument':
    case 'listDocumentVersions':
      return unstorableDocId ? [400] : exists ? [200] : [404];
    case 'getDocumentVersion':
    case 'restoreDocumentVersion':
      // A number of the fixture's own document: that version, or one past its newest.
      if (param === 'version') return VERSION_NUMBER.test(decoded) ? [200, 404] : [400];
      return unstorableDocId ? [400] : exists ? [200] : [404];
    default:
      return [404];
  }
}

describe('path segments', () => {
  it('separators and odd unicode in every path parameter of every route: refused or absent, never 5xx, nothing written but the id addressed', async () => {
    const before = await tenantItems();
    const created = new Set<string>();
    await fc.assert(
      fc.asyncProperty(hostileSegment, async (segment) => {
        for (const { route, method } of routeMethodPairs()) {
          for (const param of pathParams(route)) {
            const response = await send(route, method, { params: { [param]: segment } });
            expectContract(route, method, response, `${param}=${segment}`);
            const allowed = segmentStatuses(route, param, segment, created);
            if (allowed)
              expect(
                allowed,
                `${method} ${route.id} ${param}=${segment}: ${response.status} ${response.text}`,
              ).toContain(response.status);
            if (route.id === 'replaceCurrentDocument' && response.status < 300) {
              const addressed = { ...fixtureOf(route).params('hostile'), [param]: decodeURIComponent(segment) };
              created.add(documentItem(addressed.collection!, addressed.docId!));
            }
          }
        }
      }),
      { numRuns: 8 },
    );
    expect(await tenantItems()).toEqual([...new Set([...before, ...created])].sort());
  });
});

describe('query parameters', () => {
  const noQueryRoutes = allRoutes.filter((route) => route.schemas.query === 'NoQuery');

  it('routes that take no query refuse any parameter with 400, every method, and write nothing', async () => {
    const before = await writableState();
    await fc.assert(
      fc.asyncProperty(
        hostileQuery(queryToken(['limit', 'cursor', 'notify', 'tenantId']), queryToken(['1', 'true', ''])),
        async (query) => {
          for (const { route, method } of routeMethodPairs().filter((pair) => noQueryRoutes.includes(pair.route))) {
            const response = await send(route, method, { query });
            expectContract(route, method, response, `?${query}`);
            expect(response.status, `${method} ${route.id} ?${query}`).toBe(400);
            expect((response.json as { message: string }).message).toMatch(/[Qq]uery parameter/);
          }
        },
      ),
      { numRuns: 12 },
    );
    expect(await writableState()).toEqual(before);
  });

  it.each([
    ['listDocuments', 1000, /^(?:[1-9][0-9]{0,2}|1000)$/],
    ['listDocumentVersions', 100, /^(?:[1-9][0-9]?|100)$/],
  ] as const)(
    'the provisioning list %s: limit 1-%i in digits and a cursor of ours, anything else 400',
    async (id, max, LIMIT) => {
      const route = routeById(id);
      const limits = fc.oneof(
        fc.integer({ min: -5, max: max + 5 }).map(String),
        fc.constantFrom('01', '1.0', '1e3', ' 5', '5 ', '0x10', '', '٣').map(encodeURIComponent),
        queryToken([]),
      );
      const cursors = fc.oneof(
        fc.base64String().map((text) => text.replace(/=+$/, '')),
        queryToken(['e30', 'eyJ2IjoxfQ', 'eyJ2IjoxLCJiZWZvcmUiOjF9']),
      );
      const pairs = fc.array(
        fc.oneof(
          limits.map((v) => ['limit', v] as const),
          cursors.map((v) => ['cursor', v] as const),
          fc.tuple(queryToken([]), queryToken([])),
        ),
        {
          minLength: 1,
          maxLength: 3,
        },
      );
      await fc.assert(
        fc.asyncProperty(pairs, async (entries) => {
          const query = entries.map(([name, value]) => `${name}=${value}`).join('&');
          const response = await send(route, 'GET', { query });
          expectContract(route, 'GET', response, `?${query}`);
          const parsed = [...new URLSearchParams(query)];
          const names = parsed.map(([name]) => name);
          const limit = parsed.find(([name]) => name === 'limit')?.[1];
          const refused =
            names.some((name) => name !== 'limit' && name !== 'cursor') ||
            new Set(names).size !== names.length ||
            (limit !== undefined && !LIMIT.test(limit));
          if (refused) expect(response.status, `?${query}`).toBe(400);
          else if (!names.includes('cursor')) expect(response.status, `?${query}`).toBe(200);
          else expect([200, 400]).toContain(response.status);
        }),
        { numRuns: 20 },
      );
    },
  );

  it('the reporting lists: any mix of limit, cursor, range, from and to is 200 or 400; unknown, repeated or clashing parameters are 400; rows are only ever the tenant’s', async () => {
    const lists = [routeById('listAssistantConversations'), routeById('listVocConversations')];
    const now = Date.now();
    const instants = fc.oneof(
      fc.integer({ min: 0, max: 999_999_999_999_999 }).map(String),
      fc.integer({ min: now - 40 * 86_400_000, max: now + 86_400_000 }).map((ms) => new Date(ms).toISOString()),
      fc.constantFrom(
        '2026-02-30T00:00:00Z',
        '9999-12-31T23:59:59Z',
        '1969-12-31T23:59:59Z',
        '-1',
        '1e12',
        '99999999999999999999',
        '2026-01-01',
        'now',
      ),
      queryToken([]),
    );
    const value = (name: string) =>
      ({
        limit: fc.oneof(fc.integer({ min: -1, max: 5002 }).map(String), queryToken(['01', '1.5'])),
        cursor: fc.oneof(fc.base64String(), queryToken(['abc.def'])),
        range: fc.oneof(
          fc.constantFrom('last_day', 'last_week', 'last_month', 'LAST_DAY', 'last_year'),
          queryToken([]),
        ),
        from: instants,
        to: instants,
      })[name]!;
    const pair = fc.oneof(
      ...['limit', 'cursor', 'range', 'from', 'to'].map((name) => value(name).map((v) => [name, v] as const)),
      fc.tuple(queryToken(['page', 'sort']), queryToken([])),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 4 }), async (entries) => {
        const query = entries.map(([name, v]) => `${name}=${v}`).join('&');
        const names = [...new URLSearchParams(query)].map(([name]) => name);
        const known = ['limit', 'cursor', 'range', 'from', 'to'];
        const refused =
          names.some((name) => !known.includes(name)) ||
          new Set(names).size !== names.length ||
          (names.includes('cursor') && names.some((name) => ['range', 'from', 'to'].includes(name))) ||
          (names.includes('range') && names.includes('from'));
        for (const route of lists) {
          const response = await send(route, 'GET', { query });
          expectContract(route, 'GET', response, `?${query}`);
          if (refused) expect(response.status, `${route.id} ?${query}`).toBe(400);
          else expect([200, 400], `${route.id} ?${query}`).toContain(response.status);
          if (response.status === 200) {
            for (const row of (response.json as { data: Array<{ TenantID: unknown }> }).data)
              expect(row.TenantID).toBe(tenant);
          }
        }
      }),
      { numRuns: 20 },
    );
  });
});

describe('headers', () => {
  it('any Authorization that is not a key of ours is 401 on every route and method', async () => {
    const mutatedKey = fc.tuple(fc.nat(), fc.constantFrom(...'aZ09_-.:/+= ')).map(([at, char]) => {
      const index = 4 + (at % (key.length - 4));
      const replacement = key[index] === char ? (char === 'a' ? 'b' : 'a') : char;
      return `Bearer ${key.slice(0, index)}${replacement}${key.slice(index + 1)}`;
    });
    const authorization = fc.oneof(
      headerValue,
      headerValue.map((token) => `Bearer ${token}`),
      fc.constantFrom('Bearer', 'Bearer ', 'Basic ', 'bearer\t', 'Token '),
      mutatedKey,
      fc
        .constantFrom(...['Basic', 'Token', 'Digest', 'Bearer,', 'Bearer:', 'Bearer='])
        .map((scheme) => `${scheme} ${key}`),
      headerValue.map((suffix) => `Bearer ${key} ${suffix}x`),
    );
    await fc.assert(
      fc.asyncProperty(authorization, async (value) => {
        for (const { route, method } of routeMethodPairs()) {
          const response = await send(route, method, { headers: { Authorization: value }, caseId: 'unauthenticated' });
          expectContract(route, method, response, `Authorization: ${value}`);
          expect(response.status, `${method} ${route.id} Authorization: ${value}`).toBe(401);
          expect((response.json as { code: string }).code).toBe('Unauthenticated');
        }
      }),
      { numRuns: 15 },
    );
    for (const route of allRoutes)
      if (fixtureOf(route).wrote) expect(await fixtureOf(route).wrote!(api, tenant, 'unauthenticated')).toBe(false);
  });

  /**
   * Headers that shape the exchange itself, or that a route reads (the MCP route's Origin; the
   * document routes' preconditions; the writes' Idempotency-Key): covered elsewhere.
   */
  const FRAMING =
    /^(?:authorization|content-type|content-length|transfer-encoding|connection|keep-alive|expect|upgrade|te|trailer|host|origin|accept|if-match|if-none-match|idempotency-key|proxy-.*|mcp-.*)$/i;

  it('unrelated headers, hostile names and values included, change no answer', async () => {
    const names = fc.oneof(
      headerName,
      fc.constantFrom(
        'X-Forwarded-For',
        'X-Forwarded-Host',
        'X-Amzn-Trace-Id',
        'X-Request-Id',
        'X-Tenant-Id',
        'X-Api-Key',
        'X-Http-Method-Override',
        'Cookie',
      ),
      fc.constantFrom(
        'Content-Encoding',
        'Range',
        'If-Modified-Since',
        'Accept-Encoding',
        '__proto__',
        'constructor',
        'toString',
        'hasOwnProperty',
      ),
    );
    const headers = fc.uniqueArray(fc.tuple(names, headerValue), {
      minLength: 1,
      maxLength: 5,
      selector: ([name]) => name.toLowerCase(),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(headers, async (pairs) => {
        const extra = Object.fromEntries(pairs.filter(([name]) => !FRAMING.test(name)));
        run++;
        for (const { route, method } of routeMethodPairs()) {
          const response = await send(route, method, { headers: extra, caseId: `headers-${run}` });
          expectContract(route, method, response, JSON.stringify(extra));
          expect(response.status, `${method} ${route.id} ${JSON.stringify(extra)}: ${response.text}`).toBe(
            fixtureOf(route).permitted[method]!.status,
          );
        }
      }),
      { numRuns: 8 },
    );
  });

  it('hostile If-Match, If-None-Match and Idempotency-Key values are never a 5xx: the usual answer, or the one the header asks for, or 400 naming it', async () => {
    const tagLike = fc.oneof(
      headerValue,
      fc.constantFrom('*', '""', 'W/""', '"x", W/"y"', ',', '*, "a"', '"a\\"b"', 'W/*'),
      headerValue.map((value) => `"${value}"`),
    );
    const pairs = fc.oneof(
      fc.tuple(fc.constant('If-Match'), tagLike),
      fc.tuple(fc.constant('If-None-Match'), tagLike),
      fc.tuple(fc.constant('Idempotency-Key'), fc.oneof(headerValue, fc.string({ minLength: 250, maxLength: 260 }))),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(pairs, async ([name, value]) => {
        run++;
        for (const { route, method } of routeMethodPairs()) {
          const reads =
            (name === 'Idempotency-Key' && route.idempotencyKey) ||
            (name === 'If-Match' && route.preconditions !== undefined) ||
            (name === 'If-None-Match' && route.preconditions !== undefined);
          const response = await send(route, method, { headers: { [name]: value }, caseId: `conditional-${run}` });
          const what = `${name}: ${JSON.stringify(value)}`;
          expectContract(route, method, response, what);
          const usual = fixtureOf(route).permitted[method]!.status;
          if (!reads || method !== route.method) {
            expect(response.status, `${method} ${route.id} ${what}`).toBe(usual);
            continue;
          }
          // A key seen in an earlier run with another body is reused (422); a precondition may fail (412) or match (304).
          const asked = name === 'Idempotency-Key' ? [422] : method === 'GET' ? [304, 412] : [412];
          expect([usual, 400, ...asked], `${method} ${route.id} ${what} -> ${response.status}`).toContain(
            response.status,
          );
          if (response.status === 400) expect((response.json as { message: string }).message).toContain(name);
        }
      }),
      { numRuns: 12 },
    );
  });

  it('a hostile Host or X-Forwarded-Proto is never a 5xx: the answer is the usual one, or 400 naming Host (403 where the route checks it)', async () => {
    const hostHeaders = fc.oneof(
      fc.record({ Host: headerValue.filter((value) => value.trim() !== '') }),
      fc.record({ 'X-Forwarded-Proto': headerValue }),
      fc.record({ Host: fc.constantFrom('a b', '[::1', 'a>b', 'x:y:z', 'é', 'localhost:99999', 'h/p?q#f') }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(hostHeaders, async (headers) => {
        run++;
        for (const { route, method } of routeMethodPairs()) {
          const response = await send(route, method, { headers, caseId: `host-${run}` });
          expectContract(route, method, response, JSON.stringify(headers));
          const refused = response.status === 400 || (route.checksOrigin === true && response.status === 403);
          if (refused) expect((response.json as { message: string }).message).toMatch(/Host/);
          else
            expect(response.status, `${method} ${route.id} ${JSON.stringify(headers)}`).toBe(
              fixtureOf(route).permitted[method]!.status,
            );
        }
      }),
      { numRuns: 10 },
    );
  });

  it('any Content-Type on a body route: JSON media types are served, anything else is 400 naming Content-Type and writes nothing', async () => {
    const bodyRoutes = routeMethodPairs().filter(({ method }) => sendsBody(method));
    const contentTypes = fc.oneof(
      headerValue,
      fc.constantFrom(
        'application/json',
        'APPLICATION/JSON',
        'application/json; charset=UTF-8',
        'application/json;charset="utf8"',
        'application/vnd.api+json',
      ),
      fc.constantFrom(
        'application/json; charset=latin1',
        'text/json',
        'application/jsonx',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
        '',
      ),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(contentTypes, async (contentType) => {
        run++;
        for (const { route, method } of bodyRoutes) {
          const caseId = `content-type-${run}`;
          const response = await send(route, method, { headers: { 'Content-Type': contentType }, caseId });
          expectContract(route, method, response, `Content-Type: ${contentType}`);
          expect(
            [fixtureOf(route).permitted[method]!.status, 400],
            `${route.id} Content-Type: ${contentType}`,
          ).toContain(response.status);
          if (response.status === 400) {
            expect((response.json as { message: string }).message).toMatch(/Content-Type/);
            if (fixtureOf(route).wrote) expect(await fixtureOf(route).wrote!(api, tenant, caseId)).toBe(false);
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});

/** RFC 7396, written out: the oracle for merges. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const base = typeof target === 'object' && target !== null && !Array.isArray(target) ? target : {};
  const merged = new Map(Object.entries(base));
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) merged.delete(name);
    else merged.set(name, mergePatch(merged.get(name), value));
  }
  // fromEntries defines own properties: a member named __proto__ stays a member.
  return Object.fromEntries(merged);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Numbers JSON.parse reads but a document could not keep exactly: integers past 2^53. */
function holdsUnsafeInteger(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (Array.isArray(value)) return value.some(holdsUnsafeInteger);
  if (isObject(value)) return Object.values(value).some(holdsUnsafeInteger);
  return false;
}

/** Text that is not Unicode (a lone UTF-16 surrogate), in a value or a member name: I-JSON refuses it. */
function holdsLoneSurrogate(value: unknown): boolean {
  const lone = (text: string) => /\p{Surrogate}/u.test(text);
  if (typeof value === 'string') return lone(value);
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  if (isObject(value)) return Object.entries(value).some(([name, item]) => lone(name) || holdsLoneSurrogate(item));
  return false;
}

/** What the API refuses before reading a body's meaning: values it could not store as sent. */
const unstorable = (value: unknown) => holdsUnsafeInteger(value) || holdsLoneSurrogate(value);

const jsonValues = fc.oneof(fc.jsonValue({ stringUnit: 'binary' }), fc.jsonValue({ stringUnit: oddText(1) }));
const jsonObjects = fc.oneof(
  fc.object({ values: [fc.jsonValue({ stringUnit: 'binary' })] }),
  fc.dictionary(oddText(6), jsonValues),
);

describe('bodies', () => {
  it('a note is created for exactly the bodies the contract allows: {body} alone, 1-20000 characters, not blank', async () => {
    const route = routeById('addInternalNote');
    const noteBodies = fc.oneof(
      jsonValues,
      fc.record({ body: fc.oneof(oddText(40), fc.constantFrom('', ' ', '\u00a0\u2003\n', '\u200b', 'x')) }),
      // Unknown properties beside a valid body.
      fc
        .tuple(
          oddText(20),
          fc.dictionary(
            oddText(8).filter((name) => name !== 'body'),
            jsonValues,
            { minKeys: 1, maxKeys: 3 },
          ),
        )
        .map(([body, extra]) => Object.fromEntries([['body', `ok ${body}`], ...Object.entries(extra)])),
    );
    await fc.assert(
      fc.asyncProperty(noteBodies, async (value) => {
        const before = (await api.conversations.listNotes(tenant, FIXTURE_CONVERSATION)).length;
        const response = await send(route, 'POST', { body: JSON.stringify(value) });
        expectContract(route, 'POST', response, JSON.stringify(value).slice(0, 200));
        const text = isObject(value) ? value.body : undefined;
        const accepted =
          isObject(value) &&
          Object.keys(value).length === 1 &&
          typeof text === 'string' &&
          [...text].length <= 20000 &&
          /\S/u.test(text) &&
          !holdsLoneSurrogate(value);
        expect(response.status, JSON.stringify(value).slice(0, 200)).toBe(accepted ? 201 : 400);
        if (
          typeof text === 'string' &&
          !unstorable(value) &&
          Object.keys(value as object).some((name) => name !== 'body')
        ) {
          expect((response.json as { message: string }).message).toMatch(/Unknown property/);
        }
        expect((await api.conversations.listNotes(tenant, FIXTURE_CONVERSATION)).length).toBe(
          before + (accepted ? 1 : 0),
        );
      }),
      { numRuns: 30 },
    );
  });

  it('POST of a document: any JSON object is stored exactly as sent, anything else is 400 and stores nothing', async () => {
    const route = routeById('replaceCurrentDocument');
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonValues, jsonObjects), async (value) => {
        const docId = `prop-${++run}`;
        const response = await send(route, 'POST', { params: { docId }, body: JSON.stringify(value) });
        expectContract(route, 'POST', response, JSON.stringify(value).slice(0, 200));
        const accepted = isObject(value) && !unstorable(value);
        expect(response.status, JSON.stringify(value).slice(0, 200)).toBe(accepted ? 201 : 400);
        const stored = (await api.documents.read(tenant, FIXTURE_COLLECTION, docId))?.json;
        expect(stored).toBe(accepted ? JSON.stringify(value) : undefined);
      }),
      { numRuns: 30 },
    );
  });

  it('PUT of a document: any JSON object merges as RFC 7396 says, anything else is 400 and changes nothing', async () => {
    const route = routeById('mergeCurrentDocument');
    const docId = 'merge-target';
    let current: unknown = { base: true, nested: { keep: 1 } };
    await api.addDocument(tenant, FIXTURE_COLLECTION, docId, current as Record<string, unknown>);
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonValues, jsonObjects), async (patch) => {
        const response = await send(route, 'PUT', { params: { docId }, body: JSON.stringify(patch) });
        expectContract(route, 'PUT', response, JSON.stringify(patch).slice(0, 200));
        const accepted = isObject(patch) && !unstorable(patch);
        expect(response.status, JSON.stringify(patch).slice(0, 200)).toBe(accepted ? 200 : 400);
        // The model merges what went on the wire: JSON has no -0 (JSON.stringify(-0) is "0").
        if (accepted) current = mergePatch(current, JSON.parse(JSON.stringify(patch)));
        expect(JSON.parse((await api.documents.read(tenant, FIXTURE_COLLECTION, docId))!.json)).toEqual(current);
      }),
      { numRuns: 30 },
    );
  });

  const rpcLike = fc.record(
    {
      jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant('2.0') }, jsonValues),
      id: fc.oneof(oddText(10), fc.integer(), fc.double(), fc.constant(null), jsonValues),
      method: fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            'tools/list',
            'tools/call',
            'initialize',
            'ping',
            'notifications/initialized',
            'resources/list',
          ),
        },
        oddText(20),
      ),
      params: fc.oneof(
        jsonValues,
        fc.record({
          name: fc.oneof(fc.constant('list_bots'), oddText(10)),
          arguments: fc.oneof(jsonValues, fc.record({ limit: jsonValues })),
        }),
      ),
    },
    { requiredKeys: [] },
  );

  it('the MCP endpoint: any JSON, JSON-RPC-like or not, is answered 200 (one JSON-RPC object), 202 (empty) or a 400 of the contract', async () => {
    const route = routeById('mcpBots');
    await fc.assert(
      fc.asyncProperty(fc.oneof(rpcLike, jsonValues), async (message) => {
        const response = await send(route, 'POST', { body: JSON.stringify(message) });
        expectContract(route, 'POST', response, JSON.stringify(message).slice(0, 200));
        expect([200, 202, 400], JSON.stringify(message).slice(0, 200)).toContain(response.status);
        if (response.status === 202) expect(response.text).toBe('');
      }),
      { numRuns: 30 },
    );
  });

  /**
   * The MCP SDK still takes JSON-RPC batches (dropped from MCP in 2025-06-18) and would answer a
   * batch of two requests 200 with a JSON array, and `[]` 202; the contract takes and answers one
   * JSON-RPC object, so serve-mcp-request refuses arrays.
   */
  it('MCP batches: a JSON array of requests is 400 (-32600), not 200 with an array or 202', async () => {
    const route = routeById('mcpBots');
    const wellFormed = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.nat(),
      method: fc.constantFrom('tools/list', 'ping'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(wellFormed, rpcLike), { maxLength: 3 }), async (batch) => {
        const response = await send(route, 'POST', { body: JSON.stringify(batch) });
        expectContract(route, 'POST', response, JSON.stringify(batch).slice(0, 200));
        expect(response.status, `${JSON.stringify(batch).slice(0, 200)} -> ${response.text.slice(0, 100)}`).toBe(400);
      }),
      {
        numRuns: 15,
        examples: [
          [[]],
          [
            [
              { jsonrpc: '2.0', id: 1, method: 'ping' },
              { jsonrpc: '2.0', id: 2, method: 'tools/list' },
            ],
          ],
        ],
      },
    );
  });

  it('bytes that are not JSON (or not UTF-8) are 400 on every body route, and write nothing', async () => {
    // The routes that read a body (rotate-secret takes none, and ignores one).
    const bodyRoutes = routeMethodPairs().filter(
      ({ route, method }) =>
        sendsBody(method) && (route.schemas.body !== undefined || route.schemas.handlerParsedBody !== undefined),
    );
    const before = await writableState();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (bytes) => {
        let json = true;
        try {
          JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        } catch {
          json = false;
        }
        fc.pre(!json);
        for (const { route, method } of bodyRoutes) {
          const response = await send(route, method, { body: Buffer.from(bytes) });
          expectContract(route, method, response, Buffer.from(bytes).toString('hex'));
          expect(response.status, `${route.id} ${Buffer.from(bytes).toString('hex')}`).toBe(400);
        }
      }),
      { numRuns: 20 },
    );
    expect(await writableState()).toEqual(before);
  });

  it('a body sent to a route that takes none is ignored', async () => {
    const bodyless = routeMethodPairs().filter(({ method }) => method === 'GET' || method === 'DELETE');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
          jsonValues.map((value) => JSON.stringify(value)),
        ),
        async (body) => {
          for (const { route, method } of bodyless) {
            const response = await send(route, method, { body });
            expectContract(route, method, response, String(body).slice(0, 100));
            expect(response.status, `${method} ${route.id}`).toBe(fixtureOf(route).permitted[method]!.status);
          }
        },
      ),
      { numRuns: 10 },
    );
  });
});

/** Characters that grow in JSON (escapes) or in UTF-8 (multi-byte), to keep the byte count honest. */
const awkwardText = fc.string({
  unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\\', '\n', '\u0001', '\u2028', ' '),
  maxLength: 30,
});

/** Pads `prefix` with 2-byte characters (and one 1-byte one for odd counts) so `build(text)` is `bytes` long. */
function padTo(bytes: number, prefix: string, build: (text: string) => string): string {
  const room = bytes - Buffer.byteLength(build(prefix));
  const text = prefix + 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2);
  const built = build(text);
  expect(Buffer.byteLength(built)).toBe(bytes);
  return built;
}

/** Sizes within `spread` of a limit, the limit itself and one byte over it drawn often. */
const sizesAround = (limit: number, spread: number) =>
  fc.oneof(fc.constantFrom(limit, limit + 1), fc.integer({ min: limit - spread, max: limit + spread }));

describe('byte limits are exact', () => {
  it(`a note request of up to ${NOTE_BODY_MAX_BYTES} raw bytes is taken, one more is 413 and writes nothing`, async () => {
    const route = routeById('addInternalNote');
    const sizes = sizesAround(NOTE_BODY_MAX_BYTES, 24);
    const padding = fc.constantFrom('', ' ', '\n\t ', '   ');
    await fc.assert(
      fc.asyncProperty(sizes, awkwardText, padding, async (size, prefix, space) => {
        const raw = padTo(size, prefix, (text) => `${space}${JSON.stringify({ body: `x${text}` })}${space}`);
        const before = (await api.conversations.listNotes(tenant, FIXTURE_CONVERSATION)).length;
        const response = await send(route, 'POST', { body: raw });
        expectContract(route, 'POST', response, `${size} bytes`);
        expect(response.status, `${size} bytes`).toBe(size <= NOTE_BODY_MAX_BYTES ? 201 : 413);
        expect((await api.conversations.listNotes(tenant, FIXTURE_CONVERSATION)).length).toBe(
          before + (size <= NOTE_BODY_MAX_BYTES ? 1 : 0),
        );
      }),
      { numRuns: 12 },
    );
  });

  it(`a document of up to ${DOCUMENT_MAX_BYTES} bytes of compact JSON is stored by POST and PUT, one more is 413 and changes nothing`, async () => {
    const sizes = sizesAround(DOCUMENT_MAX_BYTES, 24);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        sizes,
        awkwardText,
        fc.constantFrom(0, 1, 2),
        fc.constantFrom<HttpMethod>('POST', 'PUT'),
        async (size, prefix, indent, method) => {
          const docId = `limit-${++run}`;
          // PUT merges into {}: the result is the patch itself.
          if (method === 'PUT') await api.addDocument(tenant, FIXTURE_COLLECTION, docId, {});
          const compact = padTo(size, prefix, (text) => JSON.stringify({ v: text }));
          const route = routeById(method === 'POST' ? 'replaceCurrentDocument' : 'mergeCurrentDocument');
          const response = await send(route, method, {
            params: { docId },
            body: JSON.stringify(JSON.parse(compact), null, indent),
          });
          expectContract(route, method, response, `${size} bytes`);
          const fits = size <= DOCUMENT_MAX_BYTES;
          expect(response.status, `${method} ${size} bytes`).toBe(
            fits ? fixtureOf(route).permitted[method]!.status : 413,
          );
          const stored = (await api.documents.read(tenant, FIXTURE_COLLECTION, docId))?.json;
          expect(stored).toBe(fits ? compact : method === 'PUT' ? '{}' : undefined);
        },
      ),
      { numRuns: 8 },
    );
  });

  it(`a document request of up to ${DOCUMENT_REQUEST_MAX_BYTES} raw bytes is read, one more is 413 before parsing`, async () => {
    const sizes = sizesAround(DOCUMENT_REQUEST_MAX_BYTES, 16);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(sizes, fc.constantFrom<HttpMethod>('POST', 'PUT'), async (size, method) => {
        const docId = `raw-limit-${++run}`;
        if (method === 'PUT') await api.addDocument(tenant, FIXTURE_COLLECTION, docId, {});
        const route = routeById(method === 'POST' ? 'replaceCurrentDocument' : 'mergeCurrentDocument');
        // White space is free in the stored document, so only the raw bound can refuse this.
        const body = `{"v":1}${' '.repeat(size - 7)}`;
        const response = await send(route, method, { params: { docId }, body });
        expectContract(route, method, response, `${size} bytes`);
        expect(response.status, `${method} ${size} bytes`).toBe(
          size <= DOCUMENT_REQUEST_MAX_BYTES ? fixtureOf(route).permitted[method]!.status : 413,
        );
      }),
      { numRuns: 6 },
    );
  });

  it(`an MCP request of up to ${MCP_REQUEST_MAX_BYTES} raw bytes is served, one more is 413`, async () => {
    const route = routeById('mcpBots');
    const sizes = sizesAround(MCP_REQUEST_MAX_BYTES, 16);
    await fc.assert(
      fc.asyncProperty(sizes, awkwardText, async (size, prefix) => {
        const body = padTo(size, prefix, (text) =>
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { pad: text } } }),
        );
        const response = await send(route, 'POST', { body });
        expectContract(route, 'POST', response, `${size} bytes`);
        expect(response.status, `${size} bytes`).toBe(size <= MCP_REQUEST_MAX_BYTES ? 200 : 413);
      }),
      { numRuns: 8 },
    );
  });
});
