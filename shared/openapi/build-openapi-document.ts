/**
 * Builds the OpenAPI 3.1 document from the route table and the JSON Schemas: one operation per
 * route (and per further method its function refuses), parameters from the route's path and query
 * schemas, bodies and responses as `$ref`s to the catalog's schemas, every error status the route
 * can answer, the bearer scheme with each route's scope. Nothing here re-declares a path, scope,
 * limit or schema; prose and examples live in operation-docs.ts.
 */

import type { RouteSpec } from '#shared/api/route-spec';
import { type RouteId, routes } from '#shared/api/route-table';
import { webhookDocs } from '#shared/api/webhooks-docs';
import { grantingScopes } from '#shared/auth/grant-scope';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#shared/domain/webhooks/webhook-events';
import { schemaCatalog } from '#shared/schemas/schema-catalog';
import type { SchemaId } from '#shared/schemas/schema-ids';
import { COMPONENT_SCHEMAS, componentSchema, subschemaOf } from './component-schemas.ts';
import { errorResponseComponents, errorResponses, headerComponents, headerRef } from './error-responses.ts';
import { headerParametersOf } from './header-parameters.ts';
import type {
  OpenApiDocument,
  OperationMethod,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponseObject,
  ServerObject,
} from './openapi-types.ts';
import { areaDescriptions, operationDocs, parameterDocs } from './operation-docs.ts';

/**
 * Where the document is served, beside the API and without a key: by the deployed stage
 * (functions/docs/get-openapi-document.ts) and by the local gateway (infra/local/gateway/serve-api-docs.ts).
 */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';

/** The security scheme's name in `components/securitySchemes` and in every requirement. */
export const SECURITY_SCHEME = 'apiKey';

/** Where `npm run openapi` and the deployed document point a reader: any deployed stage. */
export const DEPLOYED_STAGE_SERVER: ServerObject = {
  url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
  description: 'A deployed stage (production, staging or dev): the ApiUrl output of `cdk deploy`.',
  variables: {
    restApiId: { default: 'abcde12345', description: 'The REST API id of the stage.' },
    region: { default: 'eu-west-1', description: 'The AWS region of the stage.' },
    stage: { default: 'prod', description: 'The stage name.' },
  },
  'x-internal': false,
};

const INFO_DESCRIPTION = [
  'A multi-tenant customer-experience platform API for trusted server-side callers: internal notes on conversations, ',
  'an MCP server for bots, provisioning documents, reporting lists and VOC job status. Every path is scoped to a tenant.\n\n',
  '**Authentication.** `Authorization: Bearer <key>` with a tenant API key. Keep keys in a trusted backend, never in browser code.\n\n',
  '**Errors** are `{code, message}` JSON (the MCP endpoint adds its JSON-RPC forms). 429 and 503 carry `Retry-After`. ',
  'Writes are not deduplicated unless they carry an `Idempotency-Key`: repeating one repeats its effect, and after a 502, 503 or ',
  '504 a write may have completed. With the key, retrying is safe: the write happens once and every retry gets its answer.\n\n',
  '**Documents** carry an `ETag` and the URL of their version (`Content-Location`); `If-Match` and `If-None-Match` make reads ',
  'and writes conditional (RFC 9110).\n\n',
  '**Headers on every response:** `Content-Type: application/json; charset=utf-8` (except a 304, which has no body), `Cache-Control: no-store` ',
  '(a version read, which never changes, may be cached instead), `X-Content-Type-Options: nosniff` and `X-Request-Id`.',
].join('');

const SECURITY_DESCRIPTION = [
  'A tenant API key: `cxm_<keyId>_<secret>_<tag>`, keyId 12 characters `[a-z0-9]`, secret 40 characters base62, tag 8 ',
  'characters base62 (keys issued before tags have none, and work while the stage accepts them), ',
  'sent as `Authorization: Bearer <key>`. A key holds tenants and scopes; the scope an operation requires is listed in its ',
  'security requirement. A scope `area:resource.action` is also granted by `area:resource.*`, `area:action` and `area:*`. ',
  'Only the SHA-256 of a key is stored; it is shown once, when created. A revoked key may keep working for up to the ',
  "authorizer's cache time (60 seconds by default).",
].join('');

export interface OpenApiOptions {
  /** Servers to name; the default is any deployed stage. */
  servers?: ServerObject[];
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const usedSchemas = new Set<SchemaId>(['ErrorBody']);
  const useSchema = (id: SchemaId) => {
    usedSchemas.add(id);
    return `${COMPONENT_SCHEMAS}${id}`;
  };

  const paths: Record<string, PathItemObject> = {};
  const routeSpecs: readonly RouteSpec[] = routes;
  for (const route of routeSpecs) {
    const item = paths[route.path] ?? {};
    paths[route.path] = item;
    item[methodKey(route.method)] = mainOperation(route, useSchema);
    for (const method of route.otherMethods ?? []) item[methodKey(method)] = refusedOperation(route, method, useSchema);
  }

  const webhooks = Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [type, { post: webhookOperation(type, useSchema) }]),
  );
  const responses = errorResponseComponents(useSchema);
  const areas = [...new Set(routeSpecs.map(areaOf))].sort();
  return {
    openapi: '3.1.0',
    info: { title: 'CXM API', version: '1.0.0', description: INFO_DESCRIPTION },
    servers: options.servers ?? [DEPLOYED_STAGE_SERVER],
    // Every operation needs the key; each names its own scope. This default lets a reader's tools preselect the scheme.
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: areas.map((name) => ({ name, description: describeArea(name) })),
    paths,
    webhooks,
    components: {
      schemas: Object.fromEntries([...usedSchemas].sort().map((id) => [id, componentSchema(id)])),
      responses,
      headers: headerComponents,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'cxm_<keyId>_<secret>_<tag>',
          description: SECURITY_DESCRIPTION,
        },
      },
    },
  };
}

/** The headers of every delivery (Standard Webhooks 1.0). */
const WEBHOOK_HEADERS: ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The message's id: the same on every attempt of it, so deduplicate on it.",
    schema: { type: 'string', maxLength: 100, pattern: '^msg_[A-Za-z0-9_-]+$' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: "The attempt's time, Unix seconds: refuse one far from now (a replay).",
    schema: { type: 'string', maxLength: 12, pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}` with the key of the secret (`whsec_` and the base64 of the key); space-separated, one per secret, during a rotation both. Verify with any Standard Webhooks library.',
    schema: { type: 'string', maxLength: 1024, pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
];

/** What a tenant's endpoint receives for one event type, and what its answers mean. */
function webhookOperation(type: WebhookEventType, useSchema: (id: SchemaId) => string): OperationObject {
  const docs = webhookDocs[type];
  return {
    operationId: `${type.replace(/\.(\w)/g, (_match, letter: string) => letter.toUpperCase())}Webhook`,
    summary: docs.summary,
    description:
      'POSTed to every enabled endpoint of the tenant subscribed to this event type, signed per Standard Webhooks 1.0. ' +
      'Answer a 2xx within 15 seconds; anything else is tried again on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, ' +
      '10 h), `Retry-After` honoured; 410 disables the endpoint. Redirects are not followed.',
    tags: ['webhooks'],
    security: [],
    parameters: WEBHOOK_HEADERS,
    requestBody: {
      description: 'The event: `{type, timestamp, data}`, the same bytes on every attempt.',
      required: true,
      content: {
        'application/json': {
          schema: { $ref: useSchema(docs.schema) },
          examples: { [type]: { summary: docs.summary, value: docs.example } },
        },
      },
    },
    responses: {
      '200': { description: 'Received (any 2xx): the delivery is done.' },
      '410': { description: 'Gone: the endpoint is disabled at once, and nothing more is sent to it.' },
    },
  };
}

function mainOperation(route: RouteSpec, useSchema: (id: SchemaId) => string): OperationObject {
  const docs = operationDocs[route.id as RouteId];
  const { response } = route.schemas;
  const successStatuses = [response.status, ...(response.otherStatuses ?? [])];
  const responses: Record<string, ResponseObject | { $ref: string }> = {};
  for (const status of successStatuses) {
    const success = docs.success[status];
    if (!success) throw new Error(`route ${route.id}: success status ${status} is not described in operation-docs.ts`);
    responses[status] = {
      description: success.description,
      headers: {
        'X-Request-Id': headerRef('X-Request-Id'),
        ...Object.fromEntries((success.headers ?? []).map((name) => [name, headerRef(name)])),
        ...(route.idempotencyKey && { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') }),
      },
      ...(success.empty
        ? {}
        : {
            content: {
              'application/json': { schema: { $ref: useSchema(response.schema) }, examples: success.examples ?? {} },
            },
          }),
    };
  }
  Object.assign(responses, errorResponses({ route, main: true, routeExamples: docs.errorExamples, useSchema }));

  const bodySchema = route.schemas.body ?? route.schemas.handlerParsedBody;
  const operation: OperationObject = {
    operationId: route.id,
    summary: route.summary,
    description: `${docs.description}\n\n${scopeNote(route)}`,
    tags: [areaOf(route)],
    security: [{ [SECURITY_SCHEME]: [route.scope] }],
    parameters: parametersOf(route),
    responses,
  };
  if (bodySchema) {
    operation.requestBody = {
      description: bodyNote(route),
      required: true,
      content: {
        'application/json': { schema: { $ref: useSchema(bodySchema) }, examples: docs.requestExamples ?? {} },
      },
    };
  }
  return operation;
}

/** A further method routed to the route's function only to be refused (MCP's GET and DELETE: 405). */
function refusedOperation(
  route: RouteSpec,
  method: RouteSpec['method'],
  useSchema: (id: SchemaId) => string,
): OperationObject {
  const docs = operationDocs[route.id as RouteId];
  return {
    // The same names CDK gives these methods (infra/cdk/constructs/api.ts).
    operationId: `${route.id}${method.charAt(0)}${method.slice(1).toLowerCase()}`,
    summary: `${method} is not allowed (405)`,
    description: `This path takes ${route.method} only; ${method} is answered 405 with \`Allow: ${route.method}\`, after the key is checked.`,
    tags: [areaOf(route)],
    security: [{ [SECURITY_SCHEME]: [route.scope] }],
    parameters: parametersOf(route),
    // The route's other examples illustrate its main method; only the refusal applies here.
    responses: errorResponses({ route, main: false, routeExamples: { 405: docs.errorExamples[405] }, useSchema }),
  };
}

function parametersOf(route: RouteSpec): ParameterObject[] {
  const parameters: ParameterObject[] = [];
  const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const pathSchema = route.schemas.path;
  const pathProperties = pathSchema ? propertiesOf(pathSchema) : {};
  const declared = Object.keys(pathProperties);
  if (inPath.join() !== declared.join()) {
    throw new Error(
      `route ${route.id}: path parameters ${inPath.join()} differ from schema ${pathSchema ?? '(none)'} (${declared.join()})`,
    );
  }
  for (const name of inPath) parameters.push(parameter(name, 'path', true, pathSchema!, pathProperties[name]));
  const querySchema = route.schemas.query;
  if (querySchema) {
    const required = new Set(requiredOf(querySchema));
    for (const [name, schema] of Object.entries(propertiesOf(querySchema))) {
      parameters.push(parameter(name, 'query', required.has(name), querySchema, schema));
    }
  }
  return [...parameters, ...headerParametersOf(route)];
}

function parameter(
  name: string,
  where: 'path' | 'query',
  required: boolean,
  owner: SchemaId,
  schema: unknown,
): ParameterObject {
  const docs = parameterDocs[name];
  const description = (schema as { description?: string }).description ?? docs?.description;
  if (!docs || description === undefined)
    throw new Error(`parameter ${name} (${owner}) needs a description and an example in operation-docs.ts`);
  return { name, in: where, required, description, schema: subschemaOf(owner, schema), example: docs.example };
}

function propertiesOf(id: SchemaId): Record<string, unknown> {
  const schema: Readonly<Record<string, unknown>> = schemaCatalog[id];
  return (schema.properties as Record<string, unknown> | undefined) ?? {};
}

function requiredOf(id: SchemaId): readonly string[] {
  const schema: Readonly<Record<string, unknown>> = schemaCatalog[id];
  return (schema.required as readonly string[] | undefined) ?? [];
}

function scopeNote(route: RouteSpec): string {
  const [required, ...broader] = grantingScopes(route.scope);
  const template = /\{(\w+)\}/.exec(route.scope)?.[1];
  return [
    `**Scope:** \`${required}\`, or a broader \`${broader.join('`, `')}\`.`,
    template ? ` \`{${template}}\` stands for the path's ${template}.` : '',
  ].join('');
}

function bodyNote(route: RouteSpec): string {
  const limit =
    route.maxBodyBytes === undefined
      ? ''
      : `, at most ${route.maxBodyBytes} bytes as sent (UTF-8); a larger body is refused with 413`;
  return `A JSON body (\`Content-Type: application/json\`)${limit}.`;
}

/** The tag of a route: the folder of its handler (`functions/<area>/...`). */
function areaOf(route: RouteSpec): string {
  const area = route.handler.split('/')[1];
  if (!area) throw new Error(`route ${route.id}: handler ${route.handler} is not under functions/<area>/`);
  return area;
}

function describeArea(area: string): string {
  const description = areaDescriptions[area];
  if (!description) throw new Error(`area ${area} is not described in operation-docs.ts`);
  return description;
}

function methodKey(method: RouteSpec['method']): OperationMethod {
  return method.toLowerCase() as OperationMethod;
}
