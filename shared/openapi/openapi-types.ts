/** The parts of OpenAPI 3.1 the CXM document uses, typed just enough to build and read it safely. */

/** A JSON Schema (2020-12, OpenAPI 3.1's dialect). */
export type JsonSchema = { [keyword: string]: unknown };

export interface Reference {
  $ref: string;
}

export interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, ExampleObject>;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface RequestBodyObject {
  description: string;
  required: boolean;
  content: Record<string, MediaTypeObject>;
}

/** Security requirement: scheme name -> scopes (OpenAPI 3.1 allows scopes for any scheme type). */
export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: SecurityRequirement[];
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Reference>;
}

export type OperationMethod = 'get' | 'post' | 'put' | 'delete';
export type PathItemObject = Partial<Record<OperationMethod, OperationObject>>;

export interface ServerObject {
  url: string;
  description: string;
  variables?: Record<string, { default: string; description: string; enum?: string[] }>;
  /** Audience of the server (public or internal), as documentation tools and OWASP lint read it. */
  'x-internal'?: boolean;
}

export interface SecuritySchemeObject {
  type: 'http';
  scheme: 'bearer';
  bearerFormat: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: ServerObject[];
  security: SecurityRequirement[];
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItemObject>;
  /** What the API sends to a tenant's endpoints (OpenAPI 3.1 `webhooks`), by event type. */
  webhooks: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
}
