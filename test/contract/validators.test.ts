import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/api/route-table';
import { validatorFor } from '#shared/http/validator-for';
import { compileRouteValidators, compileValidators } from '#shared/schemas/compile-validators';
import * as routeValidators from '#shared/schemas/route-validators.generated';

describe('precompiled validators', () => {
  it('are up to date with the schemas (run `npm run validators` after editing a schema)', () => {
    const committed = readFileSync(new URL('../../shared/schemas/validators.generated.ts', import.meta.url), 'utf8');
    expect(committed === compileValidators(), 'validators.generated.ts is stale: run `npm run validators`').toBe(true);
  });

  it("each route's set is up to date with the route table (run `npm run validators` after editing a route)", () => {
    const committed = readFileSync(
      new URL('../../shared/schemas/route-validators.generated.ts', import.meta.url),
      'utf8',
    );
    expect(
      committed === compileRouteValidators(routes),
      'route-validators.generated.ts is stale: run `npm run validators`',
    ).toBe(true);
  });

  it("each route's set holds exactly the validators of the schemas its route names", () => {
    for (const route of routes) {
      const entry = (routeValidators as Record<string, Record<string, unknown>>)[route.id];
      expect(entry?.id, route.id).toBe(route.id);
      for (const part of ['path', 'query', 'body'] as const) {
        const schema = (route.schemas as { [K in typeof part]?: Parameters<typeof validatorFor>[0] })[part];
        expect(entry?.[part], `${route.id} ${part}`).toBe(schema === undefined ? undefined : validatorFor(schema));
      }
    }
  });

  it('do not compile anything at import (no ajv compiler in the function bundles)', () => {
    const committed = readFileSync(new URL('../../shared/schemas/validators.generated.ts', import.meta.url), 'utf8');
    expect(committed).not.toMatch(/from "ajv"|require\(/);
  });
});
