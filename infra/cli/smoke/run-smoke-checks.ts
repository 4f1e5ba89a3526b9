/**
 * Runs the smoke checks against a base URL: each request with its own timeout and no redirects
 * (a redirect would take the key elsewhere), each response held to the OpenAPI document of this
 * checkout (the contract the stage should serve) and to the check's own expectations. First the
 * target must prove it is this API: GET /openapi.json must answer with the CXM document, else the
 * run stops with what to do (a wrong URL fails there, not with a table of connection errors).
 */

import { type RouteId, routeById } from '#shared/api/route-table';
import { resolveScope } from '#shared/auth/grant-scope';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_PATH } from '#shared/openapi/build-openapi-document';
import { OpenApiContract } from '#shared/openapi/check-response';
import type { OpenApiDocument } from '#shared/openapi/openapi-types';
import { CliError } from '../terminal/cli-error.ts';
import { type EarlierAnswers, SMOKE_COLLECTION, type SmokeCheck, type SmokeRequest } from './smoke-checks.ts';

export interface SmokeTarget {
  /** Without a trailing slash: paths are appended to it. */
  baseUrl: string;
  key: string;
  tenant: string;
  timeoutMs: number;
}

export interface CheckResult {
  name: string;
  route: RouteId | null;
  method: string;
  path: string;
  /** Null when no answer came (connection failed, timeout). */
  status: number | null;
  ms: number;
  result: 'pass' | 'fail';
  reason: string | null;
  /** What the check learned beside pass or fail (a recording: the analysis it took); null for most. */
  detail: string | null;
}

/** What a check's row says before any answer: which check, on which request. */
type CheckRow = Pick<CheckResult, 'name' | 'route' | 'method' | 'path'>;

interface Answer {
  status: number;
  headers: Headers;
  bodyText: string;
  ms: number;
}

/** This checkout's document: the contract the target is held to. */
const ours = buildOpenApiDocument();
// A run meets a dozen operations once each: compiling only their schemas is the cheaper way.
const contract = new OpenApiContract(ours, { compile: 'on-demand' });

async function send(target: SmokeTarget, request: SmokeRequest): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${target.baseUrl}${request.path}`, {
    method: request.method,
    headers: {
      ...(request.body !== undefined && { 'Content-Type': 'application/json' }),
      ...(request.withKey && { Authorization: `Bearer ${target.key}` }),
      ...request.headers,
    },
    ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
    redirect: 'manual',
    signal: AbortSignal.timeout(target.timeoutMs),
  });
  const bodyText = await response.text();
  return { status: response.status, headers: response.headers, bodyText, ms: Math.round(performance.now() - started) };
}

/** Why a request got no answer, in words an operator acts on. */
function describeNoAnswer(error: unknown, timeoutMs: number): string {
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  switch (failure.cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found (DNS)';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection closed before an answer';
    default:
      return failure.cause?.message ?? failure.message ?? String(error);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `404 NotFound "No operation matches..."` for an error body, else the status alone; a refusal of
 * the key says what it means instead of its fixed message.
 */
function describeStatus(answer: Answer, check: SmokeCheck, target: SmokeTarget): string {
  const body = parseJson(answer.bodyText) as { code?: unknown; message?: unknown } | undefined;
  if (typeof body?.code !== 'string') return String(answer.status);
  if (answer.status === 401) return `401 ${body.code} (the key was refused)`;
  if (answer.status === 403 && check.route) {
    const scope = resolveScope(routeById(check.route).scope, { collection: SMOKE_COLLECTION });
    return `403 ${body.code} (the key lacks scope ${scope} or tenant ${target.tenant})`;
  }
  return `${answer.status} ${body.code}${typeof body.message === 'string' ? ` "${body.message}"` : ''}`;
}

/** The reason a check failed, or null when it passed. */
function judge(check: SmokeCheck, request: SmokeRequest, answer: Answer, target: SmokeTarget): string | null {
  if (!check.expectStatus.includes(answer.status))
    return `expected ${check.expectStatus.join(' or ')}, got ${describeStatus(answer, check, target)}`;
  const problems = contract.check({
    method: request.method,
    url: request.path,
    status: answer.status,
    headers: answer.headers,
    bodyText: answer.bodyText,
  });
  // Each problem starts with the request it is about, which the table shows already.
  if (problems.length > 0) return `off the OpenAPI document: ${problems[0]!.replace(/^\S+ \S+ -> \d+: /, '')}`;
  return check.inspect?.(parseJson(answer.bodyText)) ?? null;
}

/**
 * The request a check sends, made from the answers before it when it follows one; a string when it
 * cannot be made.
 *
 * @example const request = requestOf(check, earlier); if (typeof request !== 'string') show(request.path);
 */
export function requestOf(check: SmokeCheck, earlier: EarlierAnswers): SmokeRequest | string {
  return typeof check.request === 'function' ? check.request(earlier) : check.request;
}

/**
 * Runs one check; `earlier` holds the bodies of the checks before it, and gets this one's.
 *
 * @example const earlier = new Map(); for (const check of checks) results.push(await runCheck(check, target, earlier));
 */
export async function runCheck(
  check: SmokeCheck,
  target: SmokeTarget,
  earlier: Map<string, unknown> = new Map(),
): Promise<CheckResult> {
  const request = requestOf(check, earlier);
  const started = performance.now();
  if (typeof request === 'string') {
    const method = check.route ? routeById(check.route).method : 'GET';
    const path = check.route ? routeById(check.route).path : '';
    return {
      name: check.name,
      route: check.route ?? null,
      method,
      path,
      status: null,
      ms: 0,
      result: 'fail',
      reason: request,
      detail: null,
    };
  }
  const { method, path } = request;
  const row = { name: check.name, route: check.route ?? null, method, path };
  let answer: Answer;
  try {
    answer = await send(target, request);
  } catch (error) {
    return {
      ...row,
      status: null,
      ms: Math.round(performance.now() - started),
      result: 'fail',
      reason: describeNoAnswer(error, target.timeoutMs),
      detail: null,
    };
  }
  const body = parseJson(answer.bodyText);
  if (body !== undefined) earlier.set(check.name, body);
  return answeredRow(row, answer, judge(check, request, answer, target));
}

/** A check's row once an answer came: passed when no reason stands against it. */
function answeredRow(row: CheckRow, answer: Answer, reason: string | null): CheckResult {
  return {
    ...row,
    status: answer.status,
    ms: answer.ms,
    result: reason === null ? 'pass' : 'fail',
    reason,
    detail: null,
  };
}

/** `METHOD path` of every operation of a document. */
function operationsOf(document: Pick<OpenApiDocument, 'paths'>): Set<string> {
  return new Set(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
    ),
  );
}

/** How the served document differs from this checkout's, or undefined when it serves the same operations. */
function describeDrift(served: OpenApiDocument): string | undefined {
  const theirs = operationsOf(served);
  const mine = operationsOf(ours);
  const missing = [...mine].filter((operation) => !theirs.has(operation));
  const extra = [...theirs].filter((operation) => !mine.has(operation));
  const version =
    served.info.version === ours.info.version
      ? []
      : [`version ${served.info.version}, this CLI's is ${ours.info.version}`];
  const parts = [
    ...version,
    ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
    ...(extra.length ? [`extra ${extra.join(', ')}`] : []),
  ];
  return parts.length ? `another API version is deployed: ${parts.join('; ')}` : undefined;
}

/**
 * GET /openapi.json: the check that the URL is this API at all. A target that does not answer, or
 * answers with something other than the CXM document, stops the run with a CliError ending in
 * `whatToDo`; one that serves another version of the document is a failed check, and the run goes on.
 */
export async function checkOpenApiDocument(target: SmokeTarget, whatToDo: string): Promise<CheckResult> {
  const request: SmokeRequest = { method: 'GET', path: OPENAPI_DOCUMENT_PATH, withKey: false };
  const row = { name: 'OpenAPI document', route: null, method: request.method, path: request.path };
  let answer: Answer;
  try {
    answer = await send(target, request);
  } catch (error) {
    throw new CliError(`cannot reach ${target.baseUrl}: ${describeNoAnswer(error, target.timeoutMs)}. ${whatToDo}`);
  }
  const served = parseJson(answer.bodyText) as Partial<OpenApiDocument> | undefined;
  if (
    answer.status !== 200 ||
    served?.info?.title !== ours.info.title ||
    typeof served.paths !== 'object' ||
    served.paths === null
  ) {
    const type = answer.headers.get('content-type') ?? 'no Content-Type';
    const location = answer.headers.get('location');
    throw new CliError(
      `${target.baseUrl} does not look like the CXM API: GET ${OPENAPI_DOCUMENT_PATH} answered ${answer.status} (${type}${location ? `, Location: ${location}` : ''}) instead of its OpenAPI document. ${whatToDo}`,
    );
  }
  return answeredRow(row, answer, describeDrift(served as OpenApiDocument) ?? null);
}

/**
 * The checks that need a working key all answered 401, or all 403: one line saying what is wrong
 * with the key, instead of a table of refusals to read.
 */
export function diagnoseKey(
  checks: readonly SmokeCheck[],
  results: readonly CheckResult[],
  target: SmokeTarget,
  howToGetAKey: string,
): string | undefined {
  // A check made from an earlier answer is keyed; one that could not be made has no status to judge by.
  const keyed = results.filter((result, i) => {
    const request = checks[i]!.request;
    return result.status !== null && (typeof request === 'function' || request.withKey);
  });
  if (keyed.length === 0) return undefined;
  if (keyed.every((result) => result.status === 401)) {
    return `${target.baseUrl} refused the key on every check (401 Unauthenticated): it is mistyped, unknown to this API, revoked or expired. ${howToGetAKey}`;
  }
  if (keyed.every((result) => result.status === 403)) {
    return `the key does not hold tenant ${target.tenant}, or none of the scopes (403 PermissionDenied on every check): give --tenant one of the key's tenants. ${howToGetAKey}`;
  }
  return undefined;
}
