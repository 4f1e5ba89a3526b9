/**
 * Checks an HTTP response against the OpenAPI document, the contract: every response the
 * integration tests receive, and every response of `cxm smoke` from a running stage. The
 * method and path must be an operation (else it must be the gateway's 404 for an unknown route),
 * the status must be documented for it, the documented required headers must be there with values
 * their schemas accept, and the body must match the schema documented for that status (ajv, JSON
 * Schema 2020-12, OpenAPI 3.1's dialect). A response the document does not describe is drift.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { HeaderObject, OpenApiDocument, OperationMethod, ResponseObject } from './openapi-types.ts';

/** The id the document is registered under, so its `#/components/...` refs resolve inside it. */
const DOCUMENT_ID = 'https://cxm.invalid/openapi.json';

export interface ObservedResponse {
  method: string;
  /** The request's URL: absolute, or a path; a query is ignored. */
  url: string;
  status: number;
  headers: Headers;
  bodyText: string;
}

type Pointer = readonly string[];

const escapeSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const unescapeSegment = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  /**
   * `compile: 'up-front'` (the default) compiles every schema now, `'on-demand'` each when first
   * needed: cheaper for a run that sees a few operations once (`cxm smoke`).
   */
  constructor(
    private readonly document: OpenApiDocument,
    { compile = 'up-front' }: { compile?: 'up-front' | 'on-demand' } = {},
  ) {
    // Not strict: the document is registered whole, and OpenAPI's own members are no JSON Schema
    // keywords. The component schemas themselves are compiled strictly by `npm run validators`.
    // Formats (date-time, uuid) are documentation here, as in shared/schemas/compile-validators.ts.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema(structuredClone(document) as object, DOCUMENT_ID);
    if (compile === 'up-front') this.compileAll();
  }

  /**
   * Compiles every response body and header schema up front (a few hundred ms, once per test
   * file), so checking a response costs well under a millisecond and never skews a
   * timing-sensitive test.
   */
  private compileAll(): void {
    this.validatorAt(['components', 'schemas', 'ErrorBody']);
    for (const [template, item] of Object.entries(this.document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const status of Object.keys(operation.responses)) {
          const { value: response, pointer } = this.resolve<ResponseObject>([
            'paths',
            template,
            method,
            'responses',
            status,
          ]);
          for (const mediaType of Object.keys(response.content ?? {}))
            this.validatorAt([...pointer, 'content', mediaType, 'schema']);
          for (const name of Object.keys(response.headers ?? {}))
            this.validatorAt([...pointer, 'headers', name, 'schema']);
        }
      }
    }
  }

  /** What is wrong with the response; empty when the document describes it. */
  check(observed: ObservedResponse): string[] {
    const path = pathOf(observed.url);
    const operation = this.findOperation(observed.method, path);
    const where = `${observed.method} ${path} -> ${observed.status}`;
    if (!operation) {
      // The gateway's answer to a method and path no operation has: 404 NotFound, nothing else.
      if (observed.status !== 404) return [`${where}: no operation matches, so only 404 NotFound is possible`];
      return this.checkBody(where, observed, ['components', 'schemas', 'ErrorBody']);
    }
    const responsePointer = [...operation, 'responses', String(observed.status)];
    if (this.at(responsePointer) === undefined) {
      const documented = Object.keys(this.resolve<Record<string, unknown>>([...operation, 'responses']).value);
      return [`${where}: status ${observed.status} is not documented (documented: ${documented.join(', ')})`];
    }
    const { value: response, pointer } = this.resolve<ResponseObject>(responsePointer);
    const problems = this.checkHeaders(where, observed.headers, response, pointer);
    if (!response.content) {
      if (observed.bodyText !== '')
        problems.push(`${where}: documented without a body, but one was sent: ${observed.bodyText.slice(0, 200)}`);
      return problems;
    }
    const mediaType = (observed.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!(mediaType in response.content)) {
      problems.push(
        `${where}: Content-Type '${mediaType}' is not documented (${Object.keys(response.content).join(', ')})`,
      );
      return problems;
    }
    return [...problems, ...this.checkBody(where, observed, [...pointer, 'content', mediaType, 'schema'])];
  }

  /** The ajv validator of the schema at `pointer` in the document (following `$ref`s on the way). */
  validatorAt(pointer: Pointer): ValidateFunction {
    const target = this.resolve(pointer).pointer;
    const key = target.map(escapeSegment).join('/');
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile({
        $ref: `${DOCUMENT_ID}#/${target.map((segment) => encodeURIComponent(escapeSegment(segment))).join('/')}`,
      });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The operation for a method and a raw path, as `['paths', template, method]`. */
  findOperation(method: string, path: string): Pointer | undefined {
    const key = method.toLowerCase() as OperationMethod;
    const segments = path.split('/');
    for (const [template, item] of Object.entries(this.document.paths)) {
      if (!item[key]) continue;
      const parts = template.split('/');
      if (parts.length !== segments.length) continue;
      // A `{param}` takes one non-empty segment; everything else compares exactly (as API Gateway does).
      if (parts.every((part, i) => (/^\{\w+\}$/.test(part) ? segments[i] !== '' : part === segments[i])))
        return ['paths', template, key];
    }
    return undefined;
  }

  private checkHeaders(where: string, headers: Headers, response: ResponseObject, pointer: Pointer): string[] {
    const problems: string[] = [];
    for (const name of Object.keys(response.headers ?? {})) {
      const { value: header, pointer: headerPointer } = this.resolve<HeaderObject>([...pointer, 'headers', name]);
      const raw = headers.get(name);
      if (raw === null) {
        if (header.required) problems.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const validate = this.validatorAt([...headerPointer, 'schema']);
      if (!validate(headerValue(raw, header)))
        problems.push(`${where}: header ${name}: '${raw}' ${this.ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }

  private checkBody(where: string, observed: ObservedResponse, schemaPointer: Pointer): string[] {
    let body: unknown;
    try {
      body = JSON.parse(observed.bodyText);
    } catch {
      return [`${where}: the body is not JSON: ${observed.bodyText.slice(0, 200)}`];
    }
    const validate = this.validatorAt(schemaPointer);
    if (validate(body)) return [];
    return [
      `${where}: the body breaks ${schemaPointer.join('/')}: ${this.ajv.errorsText(validate.errors)}; body: ${observed.bodyText.slice(0, 500)}`,
    ];
  }

  /** The value at `pointer`, following a `$ref` wherever one stands in the way, and where it really is. */
  private resolve<T>(pointer: Pointer): { value: T; pointer: string[] } {
    let node: unknown = this.document;
    let at: string[] = [];
    const follow = () => {
      for (let hops = 0; isReference(node); hops++) {
        if (hops > 10) throw new Error(`$ref loop at ${at.join('/')}`);
        at = node.$ref.replace(/^#\//, '').split('/').map(unescapeSegment);
        node = this.at(at);
      }
    };
    for (const segment of pointer) {
      follow();
      node = (node as Record<string, unknown> | undefined)?.[segment];
      at = [...at, segment];
    }
    follow();
    if (node === undefined) throw new Error(`nothing at ${pointer.join('/')} in the OpenAPI document`);
    return { value: node as T, pointer: at };
  }

  private at(pointer: Pointer): unknown {
    return pointer.reduce<unknown>(
      (node, segment) => (node as Record<string, unknown> | undefined)?.[segment],
      this.document,
    );
  }
}

function isReference(node: unknown): node is { $ref: string } {
  return typeof node === 'object' && node !== null && typeof (node as { $ref?: unknown }).$ref === 'string';
}

/** The path of a URL as sent, still percent-encoded (no URL parsing: it would normalise it). */
function pathOf(url: string): string {
  const withoutOrigin = url.replace(/^https?:\/\/[^/]+/, '');
  const end = withoutOrigin.search(/[?#]/);
  return end < 0 ? withoutOrigin : withoutOrigin.slice(0, end);
}

/** A header value as its schema reads it: integer headers (Retry-After) are numbers written in digits. */
function headerValue(raw: string, header: HeaderObject): unknown {
  const type = header.schema.type;
  return (type === 'integer' || type === 'number') && /^-?\d+$/.test(raw) ? Number(raw) : raw;
}
