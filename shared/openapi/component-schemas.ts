/**
 * The catalog's JSON Schemas as OpenAPI components. Each schema keeps its own text; only what
 * would break inside one self-contained document changes: `$id` goes (a relative id would re-base
 * every `$ref` below it onto a URL that does not exist) and each `$ref` is pointed at the component.
 */
import { schemaCatalog } from '#shared/schemas/schema-catalog';
import type { SchemaId } from '#shared/schemas/schema-ids';
import type { JsonSchema } from './openapi-types.ts';

export const COMPONENT_SCHEMAS = '#/components/schemas/';

/** Keywords whose values are data, not schemas: a `$ref` member there is just a member. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

function isSchemaId(name: string): name is SchemaId {
  return Object.hasOwn(schemaCatalog, name);
}

/** A catalog schema as it sits in `components/schemas`, or inline (a parameter's property schema). */
export function componentSchema(id: SchemaId): JsonSchema {
  return rewrite(schemaCatalog[id], id) as JsonSchema;
}

/** A schema found inside catalog schema `id` (a property of a path or query schema), made document-ready. */
export function subschemaOf(id: SchemaId, schema: unknown): JsonSchema {
  return rewrite(schema, id) as JsonSchema;
}

function rewrite(node: unknown, owner: SchemaId): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, owner));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (keyword === '$id') continue;
    if (keyword === '$ref' && typeof value === 'string') out[keyword] = rewriteRef(value, owner);
    else out[keyword] = DATA_KEYWORDS.has(keyword) ? value : rewrite(value, owner);
  }
  return out;
}

/** `Other`, `Other#/ptr` -> that component; `#/ptr` (inside the schema itself) -> the owner's component. */
function rewriteRef(ref: string, owner: SchemaId): string {
  const hash = ref.indexOf('#');
  const target = hash < 0 ? ref : ref.slice(0, hash);
  const pointer = hash < 0 ? '' : ref.slice(hash + 1);
  const id = target === '' ? owner : target;
  if (!isSchemaId(id)) throw new Error(`schema ${owner}: $ref '${ref}' points outside the schema catalog`);
  return `${COMPONENT_SCHEMAS}${id}${pointer}`;
}
