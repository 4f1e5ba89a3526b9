/**
 * The pieces of safe retries that are pure: which header values are keys, and what makes two
 * requests "the same" (method, path, JSON body; never the spelling of the JSON).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '#shared/domain/idempotency/canonical-json';
import { idempotencyKeyProblem } from '#shared/domain/idempotency/idempotency-key';
import { requestFingerprint } from '#shared/domain/idempotency/request-fingerprint';
import { idempotencyTtlMs } from '#shared/settings/idempotency-settings';

describe('idempotencyKeyProblem', () => {
  it.each(['a', '!', '~', 'x'.repeat(255), '5f0c6e0a-8d1e-4a59-9f3b-0e6c2f1d7a44', 'order#42/retry?1'])(
    'accepts %j',
    (key) => {
      expect(idempotencyKeyProblem(key)).toBeUndefined();
    },
  );

  it.each([
    ['', 'is empty'],
    ['x'.repeat(256), 'is 256 characters long'],
    ['a b', 'visible ASCII'],
    ['a\tb', 'visible ASCII'],
    ['caf\u00e9', 'visible ASCII'],
    ['\u007f', 'visible ASCII'],
  ])('refuses %j, naming the header and the rule', (key, what) => {
    const problem = idempotencyKeyProblem(key);
    expect(problem).toContain("Header 'Idempotency-Key'");
    expect(problem).toContain(what);
    expect(problem).toContain('1 to 255 visible ASCII characters');
  });
});

describe('canonicalJson', () => {
  it('sorts members at every depth and drops white space', () => {
    expect(canonicalJson(JSON.parse('{ "b": [ {"y":1, "x":2} ], "a": null }'))).toBe('{"a":null,"b":[{"x":2,"y":1}]}');
  });

  it('keeps array order and distinguishes values', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
  });
});

describe('requestFingerprint', () => {
  const base = {
    method: 'POST',
    pathTemplate: '/t/{tenantId}/c/{id}',
    pathParameters: { tenantId: 't1', id: 'c1' },
    body: { body: 'x', n: 1 },
  };

  it('is the same for the same request spelled differently', () => {
    const respelled = {
      ...base,
      pathParameters: { id: 'c1', tenantId: 't1' },
      body: JSON.parse('{"n":1.0,  "body":"x"}') as unknown,
    };
    expect(requestFingerprint(respelled)).toBe(requestFingerprint(base));
  });

  it.each([
    ['method', { method: 'PUT' }],
    ['path template', { pathTemplate: '/t/{tenantId}/d/{id}' }],
    ['path parameter', { pathParameters: { tenantId: 't1', id: 'c2' } }],
    ['body', { body: { body: 'y', n: 1 } }],
  ])('differs when the %s differs', (_what, change) => {
    expect(requestFingerprint({ ...base, ...change })).not.toBe(requestFingerprint(base));
  });
});

describe('idempotencyTtlMs', () => {
  it('is 24 hours unless set, and takes fractions of hours', () => {
    expect(idempotencyTtlMs(undefined)).toBe(24 * 3_600_000);
    expect(idempotencyTtlMs('1')).toBe(3_600_000);
    expect(idempotencyTtlMs('0.5')).toBe(1_800_000);
  });

  it.each(['0', '-1', 'abc', '1e3', '9000', ' 1'])('refuses %j, naming the variable', (raw) => {
    expect(() => idempotencyTtlMs(raw)).toThrow(/CXM_IDEMPOTENCY_TTL_HOURS/);
  });
});
