/**
 * AWS API answers as the fixtures in test/support/aws-answers/ hold them: the HTTP status, headers
 * and body a service sends, in its wire format (REST-JSON errors name their type in
 * `x-amzn-ErrorType`, JSON 1.1 errors in the body's `__type`). The fixtures are written after the
 * response syntax of each API's reference, not captured from a live account; each says which API
 * in its `//` member. A fixture holds one answer, or `pages` of one listing.
 */
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';

export interface RecordedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`./aws-answers/${name}.json`, import.meta.url), 'utf8')) as RecordedAnswer & {
    pages?: RecordedAnswer[];
  };

/** The answer of fixture `name` (`aws-answers/<name>.json`). */
export function recordedAnswer(name: string): RecordedAnswer {
  const { status, headers, body } = read(name);
  return { status, ...(headers && { headers }), ...(body !== undefined && { body }) };
}

/** The pages of fixture `name`, a listing in several answers; a fixture of one answer is one page. */
export function recordedPages(name: string): RecordedAnswer[] {
  const fixture = read(name);
  return fixture.pages ?? [recordedAnswer(name)];
}

/** Sends an answer as the service would. */
export function sendRecordedAnswer(res: ServerResponse, answer: RecordedAnswer): void {
  res.writeHead(answer.status, answer.headers ?? {});
  res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
}
