/** `npm run openapi [file]`: writes the OpenAPI document (default dist/openapi.json, which git ignores). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from './build-openapi-document.ts';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
// npm runs scripts in the project root; a relative path means where the command was typed (INIT_CWD).
const target = resolve(
  process.env.INIT_CWD ?? process.cwd(),
  process.argv[2] ?? resolve(projectRoot, 'dist/openapi.json'),
);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
