/** The environment of every test process, in `npm test` and `npm run test:unit` alike. */
export const TEST_ENV = {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  // No EMF lines in test output; test/integration/metrics.test.ts turns them back on to read them.
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // Signs reporting cursors in the test gateways (the local stack generates its own).
  CXM_CURSOR_SECRET: 'test-cursor-secret-0123456789abcdefghijklmnop',
  // As after one rotation: cursors of the key before are still accepted.
  CXM_CURSOR_SECRET_PREVIOUS: 'test-cursor-secret-previous-0123456789abcdefghij',
};
