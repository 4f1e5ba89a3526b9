/**
 * The shape of a route table entry (route-table.ts gathers them from each area's `<area>-routes.ts`),
 * and what every route shares: the authorizer in front of it, its timeout, the idempotency records
 * of a keyed write.
 */
import type { SchemaId } from '#shared/schemas/schema-ids';
import { SECRET_ENVS, type SecretName } from '#shared/settings/secret-settings';
import type { TableId } from '#shared/store/table-specs';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/**
 * The stage's secrets: `cursorSecret` signs reporting cursors (routes declare it), `keyTagSecret`
 * tags API keys (the authorizer's, AUTHORIZER_SECRETS), `webhookSecretKey` opens webhook signing
 * secrets sealed at rest (the delivery function's; the routes that make one hold its public key).
 */
export const SECRET_IDS = Object.keys(SECRET_ENVS) as SecretName[];
export type SecretId = SecretName;
/** An item operation of DynamoDB a function makes on a table: its IAM action is `dynamodb:<operation>`. */
export type TableOperation = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';

/**
 * What a function does with one table, exactly: the operations it makes on the table (a
 * transaction needs each of its parts' operations) and the indexes it queries. CDK grants these
 * and nothing else; test/infra/iam-simulation.test.ts holds every grant to a recorded call.
 */
export interface TableAccess {
  operations?: readonly TableOperation[];
  /** Indexes of the table's spec it queries (`dynamodb:Query` on the index). */
  indexQueries?: readonly string[];
}

/**
 * The idempotency records of a keyed write: put in the write's own transaction, and read only when
 * a concurrent request of the same key holds its claim (shared/store/idempotency-ledger.ts).
 */
export const IDEMPOTENCY_RECORDS: TableAccess = { operations: ['GetItem', 'PutItem'] };

export interface RouteSpec {
  /** Stable identifier: function name suffix, log field, OpenAPI operationId. */
  id: string;
  method: HttpMethod;
  /** Path template relative to the stage, parameters as `{name}`. */
  path: string;
  /** Further methods routed to the same function (which answers them itself, e.g. 405). */
  otherMethods?: readonly HttpMethod[];
  /** Handler module, relative to the project root; it exports `handler`. */
  handler: string;
  /**
   * Scope the key must be granted. `{param}` placeholders are filled from the path, so a
   * provisioning route can require `provisioning:{collection}.read`.
   */
  scope: string;
  /** The only tables the function may touch, and exactly how. Drives IAM grants and env vars. */
  tables: Partial<Record<TableId, TableAccess>>;
  schemas: {
    path?: SchemaId;
    query?: SchemaId;
    body?: SchemaId;
    /** Success status and the schema of its body (OpenAPI, contract tests). */
    response: { status: number; schema: SchemaId; otherStatuses?: readonly number[] };
    /** A body the handler reads itself (MCP's JSON-RPC): documented in OpenAPI, not validated by the chain. */
    handlerParsedBody?: SchemaId;
    /** Error statuses whose body is not `{code, message}`, with the schema of what they send instead. */
    errorBodies?: Readonly<Partial<Record<number, SchemaId>>>;
  };
  /**
   * `message-only`: a fault is answered 500 `{message}` instead of the usual `{code, message}`
   * (the MCP endpoint's contract).
   */
  faultBody?: 'message-only';
  /**
   * Reads the reporting index: OpenSearch on stages that have it (then the `reporting` table
   * is not granted), else the reporting table's window index.
   */
  reportingIndex?: true;
  /**
   * Refuse a request whose `Origin` is not allowed, and locally one whose `Host` is foreign:
   * the MCP transport spec asks this of every Streamable HTTP server, against DNS rebinding. CDK
   * passes the function the stage's `mcpAllowedOrigins`; the local gateway adds its own origins.
   */
  checksOrigin?: true;
  /**
   * The handler serves through the MCP SDK, whose HTTP layer takes web `Request`s and answers web
   * `Response`s: its bundle carries those classes itself instead of loading Node's, whose first use
   * loads all of undici at a cold start, and the SDK's runtime shims without Ajv
   * (infra/cdk/constructs/route-bundling.ts).
   */
  bundlesMcpSdk?: true;
  /**
   * Accepts `Idempotency-Key`: the chain turns it into a claim, the handler records its
   * answer in the write's own transaction (the route must then have `idempotency: IDEMPOTENCY_RECORDS`).
   */
  idempotencyKey?: true;
  /**
   * Conditional requests on a document: both take If-Match (412) and If-None-Match (304 on
   * a `read`, 412 on a `write`), and answer with an ETag.
   */
  preconditions?: 'read' | 'write';
  /**
   * The recordings bucket: `presign` signs upload URLs (the function may put recording objects, so
   * its URLs may too) and learns the stage's upload limits; `deadlines` learns only how long a job
   * may wait, to fail one whose upload or processing is overdue when it is read.
   */
  recordings?: 'presign' | 'deadlines';
  /**
   * Registers webhook targets: the function learns which targets the stage allows
   * (FUNCTION_ENV.webhookTargets) and a tenant's limit of endpoints (`webhooks.maxEndpointsPerTenant`).
   */
  webhookTargets?: true;
  /** Sends webhook delivery tasks: the function learns the queue's URL and may send to it. */
  webhookQueue?: true;
  /** Secrets the function reads (CDK grants it and passes their ARNs; locally an env var). */
  secrets?: readonly SecretId[];
  /**
   * Makes webhook signing secrets: the function's configuration carries the public key of the
   * stage's webhook secret key, which it seals them to without reading the secret
   * (shared/secrets/webhook-secret-box.ts).
   */
  sealsWebhookSecrets?: true;
  /** Largest accepted request body in raw UTF-8 bytes (413 above it). */
  maxBodyBytes?: number;
  summary: string;
  /** Error statuses the operation documents, beyond the gateway's 401/403/429/5xx. */
  errors: number[];
}

/** The REQUEST authorizer every route sits behind. */
export const AUTHORIZER_HANDLER = 'functions/authorizer.ts';
/** The OpenAPI document's function, outside the route table: no key, no chain (infra/cdk/constructs/api-docs.ts). */
export const OPENAPI_DOCUMENT_HANDLER = 'functions/docs/get-openapi-document.ts';
/** The authorizer reads a key's record by its hash, and nothing else. */
export const AUTHORIZER_TABLES = { keys: { operations: ['GetItem'] } } as const satisfies Partial<
  Record<TableId, TableAccess>
>;
/** The authorizer checks a key's tag before any read (shared/auth/key-tag.ts). */
export const AUTHORIZER_SECRETS = ['keyTagSecret'] as const satisfies readonly SecretId[];
/** Function timeout; the chain answers 504 itself just before it. */
export const FUNCTION_TIMEOUT_SECONDS = 10;
