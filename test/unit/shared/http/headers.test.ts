/**
 * Header names are case-insensitive both ways: a request's are found in whatever case the client
 * sent them, and a response's own header keeps the common one of the same name, in any case, out.
 * The Host a request names makes its URL, or a 400.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { findHeader, findHeaderValues } from '#shared/http/find-header';
import { withCommonHeaders } from '#shared/http/response-headers';
import { selfUrl } from '#shared/http/self-url';

const event = { requestContext: { requestId: 'req-1' } } as APIGatewayProxyEvent;

describe('a request header', () => {
  it('is found in whatever case it was sent, and only by its whole name', () => {
    const headers = { 'content-TYPE': 'application/json', 'X-Content-Type-Options': 'nosniff', Origin: undefined };
    expect(findHeader(headers, 'Content-Type')).toBe('application/json');
    expect(findHeader(headers, 'content-type-options')).toBeUndefined();
    expect(findHeader(headers, 'origin')).toBeUndefined();
    expect(findHeader(null, 'origin')).toBeUndefined();
  });

  it('sent on several lines in several cases gives every value, in order', () => {
    const headers = { 'If-Match': ['"a"', '"b"'], 'if-match': ['"c"'], 'If-None-Match': ['"d"'] };
    expect(findHeaderValues(headers, 'IF-MATCH')).toEqual(['"a"', '"b"', '"c"']);
    expect(findHeaderValues(undefined, 'if-match')).toEqual([]);
  });
});

describe("a response's common headers", () => {
  it('are added to every response, before its own', () => {
    const { headers } = withCommonHeaders(event, { statusCode: 200, body: '{}', headers: { ETag: '"v1"' } });
    expect(headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'X-Request-Id': 'req-1',
      ETag: '"v1"',
    });
    expect(Object.keys(headers!).at(-1)).toBe('ETag');
  });

  it("give way to the response's own, in whatever case", () => {
    const { headers } = withCommonHeaders(event, {
      statusCode: 200,
      body: 'event: message',
      headers: { 'content-type': 'text/event-stream', 'CACHE-CONTROL': 'no-cache' },
    });
    expect(headers).toEqual({
      'X-Content-Type-Options': 'nosniff',
      'X-Request-Id': 'req-1',
      'content-type': 'text/event-stream',
      'CACHE-CONTROL': 'no-cache',
    });
  });

  it('have no Content-Type on a 204 or a 304, which have no body', () => {
    for (const statusCode of [204, 304]) {
      const { headers } = withCommonHeaders(event, { statusCode, body: '' });
      expect(Object.keys(headers!)).toEqual(['Cache-Control', 'X-Content-Type-Options', 'X-Request-Id']);
    }
  });
});

describe('the URL a request was made on', () => {
  const request = (host: string) =>
    ({
      headers: { Host: host },
      path: '/api/v1/x',
      requestContext: { requestId: 'r', path: '/prod/api/v1/x' },
    }) as never;

  it('is built from Host and the stage path, and a Host that is no host is a 400 naming it, whatever came before', () => {
    expect(selfUrl(request('api.example.com'))).toBe('http://api.example.com/prod/api/v1/x');
    // The same host again, and another valid one, after it was found valid.
    expect(selfUrl(request('api.example.com'))).toBe('http://api.example.com/prod/api/v1/x');
    expect(selfUrl(request('[::1]:8080'))).toBe('http://[::1]:8080/prod/api/v1/x');
    for (const bad of ['localhost:99999', 'a b', '[::1', 'x:y:z', 'h/p?q#f'])
      expect(() => selfUrl(request(bad)), bad).toThrow(/Header 'Host' is not a valid host/);
    expect(selfUrl(request('api.example.com'))).toBe('http://api.example.com/prod/api/v1/x');
  });
});
