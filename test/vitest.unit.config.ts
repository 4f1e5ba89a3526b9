/**
 * `npm run test:unit`: the unit tests alone, in seconds, with neither DynamoDB Local (no Java)
 * nor a synthesis: no global setup. A unit test needs no store by definition; one that does
 * belongs in test/integration (test/unit/unit-tests-need-no-store.test.ts holds the line).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { TEST_ENV } from './support/test-env.ts';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    name: 'unit',
    include: ['test/unit/**/*.test.ts'],
    setupFiles: ['test/support/runtime-setup.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    env: TEST_ENV,
  },
});
