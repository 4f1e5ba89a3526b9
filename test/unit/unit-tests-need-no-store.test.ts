/**
 * `npm run test:unit` runs test/unit without the global setup (test/vitest.unit.config.ts): no
 * DynamoDB Local, no synthesis. A unit test that asked for them would pass in `npm test` and fail
 * there, so none may.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

describe('the unit tests', () => {
  it("use nothing the global setup provides (vitest's inject): a test that needs the store is an integration test", () => {
    const dir = join(PROJECT_ROOT, 'test/unit');
    const self = basename(fileURLToPath(import.meta.url));
    const using = readdirSync(dir)
      .filter((name) => name.endsWith('.ts') && name !== self)
      .filter((name) => /\binject\(\s*['"]/.test(readFileSync(join(dir, name), 'utf8')));
    expect(using).toEqual([]);
  });
});
