/** `npm run validators`: writes the precompiled validators, and each route's set of them, next to the schemas. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileRouteValidators, compileValidators } from './compile-validators.ts';

for (const [file, code] of [
  ['./validators.generated.ts', compileValidators()],
  ['./route-validators.generated.ts', compileRouteValidators()],
] as const) {
  const target = fileURLToPath(new URL(file, import.meta.url));
  writeFileSync(target, code);
  console.log(`wrote ${target}`);
}
