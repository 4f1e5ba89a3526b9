import { describe, expect, it } from 'vitest';
import {
  describeInvalidScope,
  grantingScopes,
  isScopeGranted,
  resolveScope,
  scopeRule,
} from '#shared/auth/grant-scope';

describe('scope grant rule', () => {
  const required = 'cxm:conversations.write';

  it.each(['cxm:conversations.write', 'cxm:conversations.*', 'cxm:write', 'cxm:*'])(
    '%s grants the note scope',
    (scope) => {
      expect(isScopeGranted([scope], required)).toBe(true);
    },
  );

  it.each([
    'cxm:conversations.read',
    'cxm:read',
    'cxm:conversation.write',
    'cxm:conversations.writer',
    'mcp:*',
    'provisioning:write',
    '*',
    'cxm:conversations',
    'CXM:*',
  ])('%s does not grant it', (scope) => {
    expect(isScopeGranted([scope], required)).toBe(false);
  });

  it('grants when any one of several scopes grants', () => {
    expect(isScopeGranted(['cxm:read', 'mcp:*', 'cxm:write'], required)).toBe(true);
    expect(isScopeGranted([], required)).toBe(false);
  });

  it('takes the action after the last dot, so resources may hold dots', () => {
    expect(grantingScopes('provisioning:my.users.read')).toEqual([
      'provisioning:my.users.read',
      'provisioning:my.users.*',
      'provisioning:read',
      'provisioning:*',
    ]);
  });

  it('fills path parameters into a scope template', () => {
    expect(resolveScope('provisioning:{collection}.write', { collection: 'users' })).toBe('provisioning:users.write');
    expect(() => resolveScope('provisioning:{collection}.write', {})).toThrow(/collection/);
  });

  it('a route scope rule, fixed or templated, decides as the rule itself does', () => {
    const held = [
      ['cxm:conversations.write'],
      ['cxm:write'],
      ['cxm:conversations.read'],
      ['provisioning:users.*'],
      ['provisioning:bots.read'],
      [],
    ];
    const params = { collection: 'users' };
    for (const template of ['cxm:conversations.write', 'provisioning:{collection}.read', 'voc:*']) {
      const rule = scopeRule(template);
      for (const granted of held)
        expect(rule(granted, params), `${template} / ${granted}`).toBe(
          isScopeGranted(granted, resolveScope(template, params)),
        );
    }
    expect(() => scopeRule('provisioning:{collection}.read')(['provisioning:*'], {})).toThrow(/collection/);
  });

  it('accepts issuable scopes and names the problem of others', () => {
    for (const scope of ['cxm:*', 'cxm:write', 'cxm:conversations.write', 'cxm:conversations.*']) {
      expect(describeInvalidScope(scope, ['cxm'])).toBeUndefined();
    }
    expect(describeInvalidScope('nope', ['cxm'])).toMatch(/area:resource.action/);
    expect(describeInvalidScope('voc:*', ['cxm'])).toMatch(/unknown area 'voc'/);
    expect(describeInvalidScope('cxm:conversations.delete', ['cxm'])).toMatch(/read, write or \*/);
    expect(describeInvalidScope('cxm:a/b.read', ['cxm'])).toMatch(/malformed resource/);
  });
});
