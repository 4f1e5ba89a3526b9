// Relative: the vitest configs load this file before the project's import map applies.
import { sealingPublicKeyText } from '../../shared/domain/webhooks/sealed-secret.ts';

const TEST_WEBHOOK_SECRET_KEY = 'test-webhook-secret-key-0123456789abcdefghijklmnop';

/** What the test gateways tag keys with (the local stack generates its own): the current secret... */
export const TEST_KEY_TAG_SECRET = 'test-key-tag-secret-0123456789abcdefghijklmnop';
/** ...and the one before it, as after one rotation: keys tagged under it still work. */
export const TEST_KEY_TAG_SECRET_PREVIOUS = 'test-key-tag-secret-previous-0123456789abcdefghij';

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
  CXM_KEY_TAG_SECRET: TEST_KEY_TAG_SECRET,
  // Seals webhook signing secrets in the test gateways (the local stack generates its own).
  CXM_WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
  // What the registration and the rotation seal to: its public key, as a deploy configures them.
  CXM_WEBHOOK_SEALING_KEY: sealingPublicKeyText(TEST_WEBHOOK_SECRET_KEY),
  CXM_KEY_TAG_SECRET_PREVIOUS: TEST_KEY_TAG_SECRET_PREVIOUS,
};

/**
 * Set in a project whose workers run several files in one process, each of which must start as
 * if alone (test/support/runtime-setup.ts): the worker's first environment, fresh project modules.
 */
export const FRESH_PER_FILE_ENV = 'CXM_TEST_FRESH_PER_FILE';
