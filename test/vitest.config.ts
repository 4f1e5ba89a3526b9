import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The global setup runs in this process: keep it as quiet as the workers.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: {
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      // No EMF lines in test output; test/unit/metrics.test.ts turns them back on to read them.
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // Signs reporting cursors in the test gateways (the local stack generates its own).
      CXM_CURSOR_SECRET: 'test-cursor-secret-0123456789abcdefghijklmnop',
    },
  },
});
