/**
 * Every example in the OpenAPI document validates against the schema it illustrates (ajv, JSON
 * Schema 2020-12): request and response bodies, parameters and headers. An example a reader copies
 * must be a request the API accepts, or a response it could send.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '#shared/openapi/build-openapi-document';
import { OpenApiContract } from '#shared/openapi/check-response';

const document = buildOpenApiDocument();
const contract = new OpenApiContract(document);

interface ExampleCase {
  where: string;
  schema: string[];
  value: unknown;
}

/** Every `examples` beside a `schema` (media types) and every `example` beside one (parameters, headers). */
function examplesOf(node: unknown, pointer: string[] = []): ExampleCase[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => examplesOf(item, [...pointer, String(i)]));
  if (!node || typeof node !== 'object') return [];
  const object = node as Record<string, unknown>;
  const found: ExampleCase[] = [];
  if ('schema' in object && object.examples && typeof object.examples === 'object') {
    for (const [name, example] of Object.entries(object.examples as Record<string, { value: unknown }>)) {
      found.push({
        where: [...pointer, 'examples', name].join('/'),
        schema: [...pointer, 'schema'],
        value: example.value,
      });
    }
  }
  if ('schema' in object && 'example' in object)
    found.push({ where: [...pointer, 'example'].join('/'), schema: [...pointer, 'schema'], value: object.example });
  for (const [key, child] of Object.entries(object)) {
    // Example values are data: an example member named `schema` is not a schema.
    if (key !== 'examples' && key !== 'example' && key !== 'schema')
      found.push(...examplesOf(child, [...pointer, key]));
  }
  return found;
}

const cases = examplesOf(document);

describe('OpenAPI examples', () => {
  it('there are request, response, error, parameter and header examples for every operation', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const here = (suffix: string) =>
          cases.some((c) => c.where.startsWith(['paths', path, method, suffix].join('/')));
        expect(here('responses'), `${method} ${path} responses`).toBe(true);
        expect(here('parameters'), `${method} ${path} parameters`).toBe(true);
        if (operation.requestBody) expect(here('requestBody'), `${method} ${path} request`).toBe(true);
      }
    }
    expect(cases.some((c) => c.where.startsWith('components/responses/'))).toBe(true);
    expect(cases.some((c) => c.where.startsWith('components/headers/'))).toBe(true);
  });

  it.each(cases.map((c) => [c.where, c] as const))('%s validates', (_where, { schema, value }) => {
    const validate = contract.validatorAt(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
  });

  it('a wrong example is caught', () => {
    const note = cases.find((c) => c.where.includes('internal-notes/post/responses/201'))!;
    const validate = contract.validatorAt(note.schema);
    expect(validate({ note: { ...(note.value as { note: object }).note, visibility: 'public' } })).toBe(false);
  });
});
