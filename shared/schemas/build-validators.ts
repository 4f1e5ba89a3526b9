/** `npm run validators`: writes the precompiled validators next to the schemas. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileValidators } from './compile-validators.ts';

const target = fileURLToPath(new URL('./validators.generated.ts', import.meta.url));
writeFileSync(target, compileValidators());
console.log(`wrote ${target}`);
