/**
 * The unit tests' two rules. `npm run test:unit` runs test/unit without the global setup
 * (test/vitest.unit.config.ts): no DynamoDB Local, no synthesis; a unit test that asked for them
 * would pass in `npm test` and fail there, so none may. And each sits in the folder that mirrors
 * the source folder of what it tests (test/unit/shared/auth/key-tag.test.ts tests
 * shared/auth/key-tag.ts), so a module's unit tests are found where the module is; only the
 * checks of the repository as a whole stay at test/unit's top.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

const UNIT = join(PROJECT_ROOT, 'test/unit');
const self = relative(UNIT, fileURLToPath(import.meta.url));
const unitTests = (readdirSync(UNIT, { recursive: true }) as string[])
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

describe('the unit tests', () => {
  it('are found in nested folders (the checks below see them all)', () => {
    expect(unitTests.filter((name) => name.includes('/')).length).toBeGreaterThan(40);
  });

  it("use nothing the global setup provides (vitest's inject): a test that needs the store is an integration test", () => {
    const using = unitTests
      .filter((name) => name !== self)
      .filter((name) => /\binject\(\s*['"]/.test(readFileSync(join(UNIT, name), 'utf8')));
    expect(using).toEqual([]);
  });

  it('sit in folders that mirror a source folder; only the checks of the whole repository stay at the top', () => {
    const misplaced = unitTests.filter((name) => {
      const folder = dirname(name);
      if (folder === '.') return false;
      const source = join(PROJECT_ROOT, folder);
      return !existsSync(source) || !statSync(source).isDirectory() || folder.startsWith('test/unit');
    });
    expect(misplaced).toEqual([]);
    expect(unitTests.filter((name) => dirname(name) === '.')).toEqual([
      'guide-links.test.ts',
      'hmac-keys.test.ts',
      'module-layers.test.ts',
      'unit-tests-need-no-store.test.ts',
    ]);
  });
});
