import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileValidators } from '#shared/schemas/compile-validators';

describe('precompiled validators', () => {
  it('are up to date with the schemas (run `npm run validators` after editing a schema)', () => {
    const committed = readFileSync(new URL('../../shared/schemas/validators.generated.ts', import.meta.url), 'utf8');
    expect(committed === compileValidators(), 'validators.generated.ts is stale: run `npm run validators`').toBe(true);
  });

  it('do not compile anything at import (no ajv compiler in the function bundles)', () => {
    const committed = readFileSync(new URL('../../shared/schemas/validators.generated.ts', import.meta.url), 'utf8');
    expect(committed).not.toMatch(/from "ajv"|require\(/);
  });
});
