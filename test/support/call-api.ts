/**
 * One request to a gateway, as a client sees it. Every response must be one the OpenAPI document
 * describes, and every error the contract's `{code, message}` with the common headers, 429/503
 * with a usable Retry-After, 401 with the Bearer challenge: fault and load tests check that on
 * every answer, not on a sample.
 */
import { expect } from 'vitest';
import { validatorFor } from '#shared/http/validator-for';
import { documentedFetch } from './test-api.ts';

export interface ApiAnswer {
  status: number;
  headers: Headers;
  json: unknown;
}

const errorBody = validatorFor('ErrorBody');

export function expectWellFormedError(answer: ApiAnswer): void {
  const where = `${answer.status} ${JSON.stringify(answer.json)}`;
  expect(errorBody(answer.json), `${where} is not {code, message}: ${JSON.stringify(errorBody.errors)}`).toBe(true);
  expect(answer.headers.get('content-type'), where).toMatch(/^application\/json/);
  expect(answer.headers.get('x-request-id'), where).toBeTruthy();
  if (answer.status === 429 || answer.status === 503) {
    expect(Number(answer.headers.get('retry-after')), `${where} Retry-After`).toBeGreaterThanOrEqual(1);
  }
  if (answer.status === 401) expect(answer.headers.get('www-authenticate'), `${where} WWW-Authenticate`).toBe('Bearer');
}

export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const response = await documentedFetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...headers,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const answer = {
    status: response.status,
    headers: response.headers,
    json: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
  if (answer.status >= 400) expectWellFormedError(answer);
  return answer;
}

export const notePath = (tenant: string, conversation: string) =>
  `/api/v1/cxm/tenants/${tenant}/conversations/${encodeURIComponent(conversation)}/internal-notes`;
export const documentPath = (tenant: string, collection: string, docId: string) =>
  `/api/v1/provisioning/tenants/${tenant}/${collection}/${encodeURIComponent(docId)}/versions/current`;
export const collectionPath = (tenant: string, collection: string) =>
  `/api/v1/provisioning/tenants/${tenant}/${collection}`;

/** The note id of a 201. */
export function noteId(answer: ApiAnswer): string {
  return (answer.json as { note: { id: string } }).note.id;
}
