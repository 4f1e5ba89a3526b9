/** The response checker of the integration tests finds drift: it passes what the document describes and nothing else. */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi/build-openapi-document';
import { type ObservedResponse, OpenApiContract } from '#shared/openapi/check-response';

const contract = new OpenApiContract(buildOpenApiDocument());
const NOTE_PATH = '/api/v1/cxm/tenants/acme/conversations/conv-1/internal-notes';
const REQUEST_ID = '0f8e4d1c-3b2a-4f6e-9d8c-7b6a5f4e3d2c';

const note = {
  note: {
    id: '01KE3WZ8M7Q2X9D4C6B1N5R0TA',
    createdAt: '2026-01-15T09:30:12.345Z',
    visibility: 'internal',
    author: { type: 'system', id: null, name: 'API' },
  },
};

function observed(
  overrides: Partial<ObservedResponse> & { body?: unknown; headerValues?: Record<string, string> },
): ObservedResponse {
  const { body, headerValues, ...rest } = overrides;
  return {
    method: 'POST',
    url: `http://127.0.0.1:3000${NOTE_PATH}`,
    status: 201,
    headers: new Headers(
      headerValues ?? { 'content-type': 'application/json; charset=utf-8', 'x-request-id': REQUEST_ID },
    ),
    bodyText: body === undefined ? JSON.stringify(note) : typeof body === 'string' ? body : JSON.stringify(body),
    ...rest,
  };
}

describe('checking a response against the OpenAPI document', () => {
  it('passes a response the document describes', () => {
    expect(contract.check(observed({}))).toEqual([]);
  });

  it('fails a drifted body: an extra member, a missing member, a wrong type', () => {
    expect(contract.check(observed({ body: { note: { ...note.note, keyId: 'abc' } } }))).toEqual([
      expect.stringMatching(/must NOT have additional properties/),
    ]);
    const { author: _author, ...withoutAuthor } = note.note;
    expect(contract.check(observed({ body: { note: withoutAuthor } }))).toEqual([
      expect.stringMatching(/must have required property 'author'/),
    ]);
    expect(contract.check(observed({ status: 404, body: { code: 'NotFound', message: 7 } }))).toEqual([
      expect.stringMatching(/message must be string/),
    ]);
    expect(contract.check(observed({ status: 404, body: { code: 'Gone', message: 'x' } }))).toEqual([
      expect.stringMatching(/code must be equal to one of the allowed values/),
    ]);
  });

  it('fails a status the operation does not document', () => {
    expect(contract.check(observed({ status: 200 }))).toEqual([expect.stringMatching(/status 200 is not documented/)]);
  });

  it('fails a response without X-Request-Id, a 429 without Retry-After, and a Retry-After that is not a positive integer', () => {
    expect(contract.check(observed({ headerValues: { 'content-type': 'application/json' } }))).toEqual([
      expect.stringMatching(/X-Request-Id is missing/),
    ]);
    const throttled = { status: 429, body: { code: 'RateLimitExceeded', message: 'Slow down.' } };
    expect(
      contract.check(
        observed({ ...throttled, headerValues: { 'content-type': 'application/json', 'x-request-id': REQUEST_ID } }),
      ),
    ).toEqual([expect.stringMatching(/Retry-After is missing/)]);
    expect(
      contract.check(
        observed({
          ...throttled,
          headerValues: { 'content-type': 'application/json', 'x-request-id': REQUEST_ID, 'retry-after': '0' },
        }),
      ),
    ).toEqual([expect.stringMatching(/header Retry-After: '0'/)]);
    expect(
      contract.check(
        observed({
          ...throttled,
          headerValues: { 'content-type': 'application/json', 'x-request-id': REQUEST_ID, 'retry-after': '1' },
        }),
      ),
    ).toEqual([]);
  });

  it('fails a body that is not JSON, or of an undocumented media type', () => {
    expect(contract.check(observed({ body: '<html>' }))).toEqual([expect.stringMatching(/not JSON/)]);
    expect(
      contract.check(observed({ headerValues: { 'content-type': 'text/html', 'x-request-id': REQUEST_ID } })),
    ).toEqual([expect.stringMatching(/Content-Type 'text\/html'/)]);
  });

  it('an unknown method or path may only be the 404 NotFound error', () => {
    const unknown = {
      method: 'GET',
      url: '/api/v1/nowhere',
      status: 404,
      body: { code: 'NotFound', message: 'No operation matches this method and path.' },
    };
    expect(contract.check(observed(unknown))).toEqual([]);
    expect(contract.check(observed({ ...unknown, method: 'DELETE', url: NOTE_PATH }))).toEqual([]);
    expect(contract.check(observed({ ...unknown, status: 200 }))).toEqual([
      expect.stringMatching(/no operation matches/),
    ]);
    expect(contract.check(observed({ ...unknown, body: { code: 'NotFound' } }))).toEqual([
      expect.stringMatching(/required property 'message'/),
    ]);
  });

  it("knows the MCP endpoint's own bodies: 202 without one, 405 with Allow, 400 with the JSON-RPC error, 500 with only a message", () => {
    const mcp = {
      url: '/api/v1/mcp/tenants/acme/bots',
      headerValues: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': REQUEST_ID },
    };
    expect(contract.check(observed({ ...mcp, status: 202, body: '' }))).toEqual([]);
    expect(contract.check(observed({ ...mcp, status: 202, body: { jsonrpc: '2.0' } }))).toEqual([
      expect.stringMatching(/without a body/),
    ]);
    const notAllowed = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null };
    expect(contract.check(observed({ ...mcp, method: 'GET', status: 405, body: notAllowed }))).toEqual([
      expect.stringMatching(/Allow is missing/),
    ]);
    expect(
      contract.check(
        observed({
          ...mcp,
          method: 'GET',
          status: 405,
          body: notAllowed,
          headerValues: { ...mcp.headerValues, allow: 'POST' },
        }),
      ),
    ).toEqual([]);
    const parseError = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
      code: 'BadRequest',
      message: 'Parse error',
    };
    expect(contract.check(observed({ ...mcp, status: 400, body: parseError }))).toEqual([]);
    expect(contract.check(observed({ ...mcp, status: 500, body: { message: 'Boom.' } }))).toEqual([]);
    expect(contract.check(observed({ ...mcp, status: 500, body: { code: 'BadGateway', message: 'Boom.' } }))).toEqual([
      expect.stringMatching(/additional properties/),
    ]);
  });
});
