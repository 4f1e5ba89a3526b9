/**
 * `npm run validators`: writes the precompiled validators of shared/schemas, and each route's set of
 * them, next to the schemas. It lives outside shared/schemas because it reads the route table, which
 * itself names the schemas: the schemas never import the routes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { routes } from '#shared/api/route-table';
import { compileRouteValidators, compileValidators } from '#shared/schemas/compile-validators';

for (const [file, code] of [
  ['validators.generated.ts', compileValidators()],
  ['route-validators.generated.ts', compileRouteValidators(routes)],
] as const) {
  const target = join(PROJECT_ROOT, 'shared', 'schemas', file);
  writeFileSync(target, code);
  console.log(`wrote ${target}`);
}
