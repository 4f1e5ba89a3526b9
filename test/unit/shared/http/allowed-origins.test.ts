/**
 * The MCP origin check's matching: which Origin and Host values pass, read from the environment as
 * the functions get it; the value CDK writes from a stage's list; and the local gateway's own
 * lists, merged.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localOrigins, withLocalOrigins } from '#infra/local/gateway/local-origins';
import {
  allowedOriginsValue,
  isAllowedHost,
  isAllowedOrigin,
  normaliseHost,
  normaliseOrigin,
} from '#shared/http/allowed-origins';
import { FUNCTION_ENV } from '#shared/settings/setting-names';

afterEach(() => vi.unstubAllEnvs());

describe('an origin', () => {
  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['HTTP://LocalHost:3000', 'http://localhost:3000'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://app.example.com:80', 'http://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
    [' https://app.example.com ', 'https://app.example.com'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
  ])('%j is %j', (value, normalised) => {
    expect(normaliseOrigin(value)).toBe(normalised);
  });

  it.each([
    'null',
    '',
    'app.example.com',
    'https://app.example.com/path',
    'https://user@app.example.com',
    'https://app.example.com?x=1',
    'file:///etc/passwd',
    'chrome-extension://abcdef',
    'https://',
  ])('%j is no origin to allow', (value) => {
    expect(normaliseOrigin(value)).toBeUndefined();
  });
});

describe('a host', () => {
  it.each([
    ['127.0.0.1:3000', '127.0.0.1:3000'],
    ['LOCALHOST:3000', 'localhost:3000'],
    ['[::1]:3000', '[::1]:3000'],
    ['example.com:80', 'example.com'],
  ])('%j is %j', (value, normalised) => {
    expect(normaliseHost(value)).toBe(normalised);
  });

  it.each(['', ' ', 'evil.example.com/x', 'user@evil.example.com', 'evil.example.com:99999', 'evil.example.com?x'])(
    '%j is no host',
    (value) => {
      expect(normaliseHost(value)).toBeUndefined();
    },
  );
});

describe('the allowed origins (CXM_ALLOWED_ORIGINS)', () => {
  it('allows exactly the listed origins, whatever the case of the host or a default port', () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, 'https://app.example.com, http://127.0.0.1:3000');
    expect(isAllowedOrigin('https://app.example.com')).toBe(true);
    expect(isAllowedOrigin('https://APP.example.com:443')).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:3000')).toBe(true);
    // Another scheme, port or host is another origin.
    expect(isAllowedOrigin('http://app.example.com')).toBe(false);
    expect(isAllowedOrigin('https://app.example.com:8443')).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:3001')).toBe(false);
    expect(isAllowedOrigin('https://app.example.com.evil.example')).toBe(false);
    expect(isAllowedOrigin('https://evil.example.com')).toBe(false);
    expect(isAllowedOrigin('null')).toBe(false);
  });

  it('allows none when empty or unset (fail closed)', () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, '');
    expect(isAllowedOrigin('http://127.0.0.1:3000')).toBe(false);
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, undefined);
    expect(isAllowedOrigin('http://127.0.0.1:3000')).toBe(false);
  });

  it('follows the environment from one request to the next (gateways join the list as they start)', () => {
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, 'http://127.0.0.1:3000');
    expect(isAllowedOrigin('http://127.0.0.1:4000')).toBe(false);
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, 'http://127.0.0.1:3000,http://127.0.0.1:4000');
    expect(isAllowedOrigin('http://127.0.0.1:4000')).toBe(true);
  });
});

describe('the allowed hosts (CXM_ALLOWED_HOSTS)', () => {
  it('allows any Host when unset: a deployed stage, where API Gateway routes by host', () => {
    vi.stubEnv(FUNCTION_ENV.allowedHosts, undefined);
    expect(isAllowedHost('evil.example.com')).toBe(true);
    expect(isAllowedHost(undefined)).toBe(true);
  });

  it('when set, allows the listed host names on any port (a port forward), no other name, and no missing Host', () => {
    vi.stubEnv(FUNCTION_ENV.allowedHosts, '127.0.0.1,localhost,[::1]');
    expect(isAllowedHost('127.0.0.1:3000')).toBe(true);
    expect(isAllowedHost('LocalHost:3000')).toBe(true);
    expect(isAllowedHost('127.0.0.1:9000')).toBe(true);
    expect(isAllowedHost('localhost')).toBe(true);
    expect(isAllowedHost('[::1]:8080')).toBe(true);
    expect(isAllowedHost('evil.example.com')).toBe(false);
    expect(isAllowedHost('evil.example.com:3000')).toBe(false);
    expect(isAllowedHost('127.0.0.1.evil.example.com:3000')).toBe(false);
    expect(isAllowedHost('localhost@evil.example.com')).toBe(false);
    expect(isAllowedHost('')).toBe(false);
    expect(isAllowedHost(undefined)).toBe(false);
  });
});

describe("a stage's list, as CDK passes it", () => {
  it('is the normalised origins, comma-separated; none is the empty string', () => {
    expect(allowedOriginsValue(['https://App.example.com:443', 'http://localhost:8080/'])).toBe(
      'https://app.example.com,http://localhost:8080',
    );
    expect(allowedOriginsValue([])).toBe('');
  });

  it.each(['app.example.com', 'https://app.example.com/mcp', '*'])('refuses %j with what to write instead', (entry) => {
    expect(() => allowedOriginsValue([entry], 'mcpAllowedOrigins')).toThrow(
      /mcpAllowedOrigins: "[^"]*" is not an origin: write scheme:\/\/host\[:port\]/,
    );
  });
});

describe("the local gateway's own lists", () => {
  it('are its origins and hosts on 127.0.0.1 and localhost', () => {
    expect(localOrigins(3000)).toEqual({
      CXM_ALLOWED_ORIGINS: 'http://127.0.0.1:3000,http://localhost:3000',
      CXM_ALLOWED_HOSTS: '127.0.0.1,localhost,[::1]',
    });
  });

  it('merge into an environment as the union of the lists, keeping everything else', () => {
    const first = withLocalOrigins({ PATH: '/bin', CXM_ALLOWED_ORIGINS: '' }, localOrigins(3000));
    const both = withLocalOrigins(first, localOrigins(4000));
    expect(withLocalOrigins(both, localOrigins(3000))).toEqual(both);
    expect(both).toEqual({
      PATH: '/bin',
      CXM_ALLOWED_ORIGINS: 'http://127.0.0.1:3000,http://localhost:3000,http://127.0.0.1:4000,http://localhost:4000',
      CXM_ALLOWED_HOSTS: '127.0.0.1,localhost,[::1]',
    });
  });

  it('is what the functions then accept', () => {
    const env = withLocalOrigins({}, localOrigins(3000));
    vi.stubEnv(FUNCTION_ENV.allowedOrigins, env.CXM_ALLOWED_ORIGINS);
    vi.stubEnv(FUNCTION_ENV.allowedHosts, env.CXM_ALLOWED_HOSTS);
    expect(isAllowedOrigin('http://localhost:3000') && isAllowedHost('localhost:3000')).toBe(true);
    // Through a port forward: the machine's names on any port.
    expect(isAllowedOrigin('http://127.0.0.1:9000') && isAllowedHost('127.0.0.1:9000')).toBe(true);
    expect(isAllowedOrigin('http://evil.example.com') || isAllowedHost('evil.example.com')).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:9000')).toBe(false);
  });
});
