/**
 * Where a webhook may go (SSRF): the table of refused URLs and addresses, on a stage and locally.
 */
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isLoopbackAddress, isPublicAddress } from '#shared/domain/webhooks/webhook-target';

describe('checkWebhookUrl on a stage', () => {
  it.each([
    'https://hooks.example.com/cxm',
    'https://hooks.example.com:443/cxm?tenant=acme',
    'https://93.184.215.14/cxm',
    'https://[2606:4700::1111]/cxm',
  ])('takes %s', (url) => {
    expect(checkWebhookUrl(url, 'stage')).toMatchObject({ ok: true });
  });

  it.each([
    ['http://hooks.example.com/cxm', /is https/],
    ['ftp://hooks.example.com/cxm', /is https/],
    ['hooks.example.com/cxm', /absolute URL/],
    ['https://user:pass@hooks.example.com/', /no credentials/],
    ['https://127.0.0.1/', /not a public address/],
    ['https://2130706433/', /not a public address/],
    ['https://0x7f.0.0.1/', /not a public address/],
    ['https://10.0.0.8/', /not a public address/],
    ['https://172.16.0.1/', /not a public address/],
    ['https://192.168.1.1/', /not a public address/],
    ['https://169.254.169.254/latest/meta-data/', /not a public address/],
    ['https://100.64.0.1/', /not a public address/],
    ['https://0.0.0.0/', /not a public address/],
    ['https://224.0.0.1/', /not a public address/],
    ['https://[::1]/', /not a public address/],
    ['https://[fd00:ec2::254]/', /not a public address/],
    ['https://[fe80::1]/', /not a public address/],
    ['https://[::ffff:127.0.0.1]/', /not a public address/],
    ['https://[::ffff:a9fe:a9fe]/', /not a public address/],
    ['https://[64:ff9b::a00:1]/', /not a public address/],
    ['https://[::169.254.169.254]/', /not a public address/],
    ['https://[fc00::1]/', /not a public address/],
    ['https://localhost/', /not a public host name/],
    ['https://localhost./', /not a public host name/],
    ['https://api.localhost/', /not a public host name/],
    ['https://intranet/', /not a public host name/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['https://hooks.example.com:8443/cxm', /https's own port, 443, not 8443/],
    ['https://hooks.example.com:22/', /https's own port, 443, not 22/],
    ['https://93.184.215.14:6379/', /https's own port, 443, not 6379/],
  ])('refuses %s, saying why', (url, reason) => {
    const check = checkWebhookUrl(url, 'stage');
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });
});

describe("the API's own hosts", () => {
  const own = ['abc123.execute-api.eu-west-1.amazonaws.com'];
  it.each([
    'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/api/v1/mcp',
    'https://ABC123.execute-api.eu-west-1.amazonaws.com./prod',
    'https://abc123.execute-api.eu-west-1.amazonaws.com:443/prod',
  ])('refuses %s', (url) => {
    expect(checkWebhookUrl(url, 'stage', own)).toEqual({
      ok: false,
      reason: "abc123.execute-api.eu-west-1.amazonaws.com is this API's own host: give a receiver of yours",
    });
  });

  it("takes another API's host, and refuses the local gateway's own port only", () => {
    expect(checkWebhookUrl('https://other9.execute-api.eu-west-1.amazonaws.com/prod', 'stage', own).ok).toBe(true);
    const local = ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'];
    for (const url of ['http://127.0.0.1:3000/hooks', 'http://localhost:3000/', 'http://[::1]:3000/'])
      expect(checkWebhookUrl(url, 'local', local).ok).toBe(false);
    expect(checkWebhookUrl('http://127.0.0.1:3001/hooks', 'local', local).ok).toBe(true);
  });
});

describe('checkWebhookUrl locally', () => {
  it.each([
    'http://127.0.0.1:8080/hooks',
    'http://localhost:8080/hooks',
    'http://[::1]:8080/hooks',
    'https://hooks.example.com/cxm',
  ])('takes %s', (url) => {
    expect(checkWebhookUrl(url, 'local')).toMatchObject({ ok: true });
  });

  it.each([
    'http://10.0.0.8/hooks',
    'http://hooks.example.com/cxm',
    'https://169.254.169.254/',
    'https://hooks.example.com:8443/cxm',
  ])('still refuses %s', (url) => {
    expect(checkWebhookUrl(url, 'local').ok).toBe(false);
  });
});

describe('isPublicAddress (each attempt, on the address it resolved to)', () => {
  it.each(['8.8.8.8', '93.184.215.14', '2606:4700::1111'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '198.18.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '::1',
    '::',
    'fd00:ec2::254',
    'fe80::1',
    '::ffff:10.0.0.1',
    '64:ff9b::808:808',
    '2002:7f00:1::',
    '::a9fe:a9fe',
    '::7f00:1',
    'not an address',
  ])('%s is not', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('isLoopbackAddress (a local stage connects its localhost to these only)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['192.168.1.20', false],
    ['8.8.8.8', false],
    ['localhost', false],
  ])('%s: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});
