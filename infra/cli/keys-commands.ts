/** `cxm keys create | list | revoke` (DESIGN section 5, D9). */
import type { Command } from 'commander';
import { describeInvalidScope } from '#shared/auth/grant-scope';
import { issueKey } from '#shared/auth/issue-key';
import { keyStatus } from '#shared/auth/key-status';
import { revokeKey } from '#shared/auth/revoke-key';
import { isValidTenantId } from '#shared/auth/tenant-id';
import { scopeAreas } from '#shared/routes';
import { usagePlanName } from '../usage-plan-name.ts';
import { CliError } from './cli-error.ts';
import { connectStores } from './connect-stores.ts';
import { formatTable } from './format-table.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function parseExpiry(value: string | undefined, now: Date): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}(T.*(Z|[+-]\d{2}:?\d{2}))?$/.test(value)) {
    throw new CliError(`--expires '${value}' is not an ISO 8601 date or date-time with a zone (e.g. 2027-01-31T00:00:00Z)`);
  }
  if (ms <= now.getTime()) throw new CliError(`--expires '${value}' is in the past`);
  return new Date(ms).toISOString();
}

export function registerKeysCommands(program: Command): void {
  const keys = program.command('keys').description('manage tenant API keys');

  keys
    .command('create')
    .description('create a key; it is printed once and only its SHA-256 is stored')
    .requiredOption('--tenant <id>', 'tenant the key may act for (repeatable)', collect)
    .requiredOption('--scope <scope>', 'scope such as cxm:conversations.write (repeatable)', collect)
    .option('--name <name>', 'a label to recognise the key by', 'cli key')
    .option('--expires <iso-8601>', 'expiry time; the key is refused from then on')
    .option('--json', 'print {"id","key","tenants","scopes","expiresAt"}')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (options: { tenant: string[]; scope: string[]; name: string; expires?: string; json?: boolean; stage?: string }) => {
      const now = new Date();
      for (const tenant of options.tenant) {
        if (!isValidTenantId(tenant)) {
          throw new CliError(`tenant '${tenant}' must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`);
        }
      }
      for (const scope of options.scope) {
        const problem = describeInvalidScope(scope, scopeAreas());
        if (problem) throw new CliError(problem);
      }
      const expiresAt = parseExpiry(options.expires, now);
      const stores = await connectStores(options.stage);
      const { key, stored } = await issueKey(stores.keys, { tenants: options.tenant, scopes: options.scope, name: options.name, expiresAt }, now, stores.usagePlan);
      if (options.json) {
        console.log(JSON.stringify({ id: stored.keyId, key, tenants: stored.tenants, scopes: stored.scopes, expiresAt: stored.expiresAt ?? null }));
        return;
      }
      console.log(`Created key ${stored.keyId} ('${stored.name}') on the ${stores.target}`);
      console.log(`Tenants: ${stored.tenants.join(', ')}`);
      console.log(`Scopes:  ${stored.scopes.join(', ')}`);
      console.log(`Expires: ${stored.expiresAt ?? 'never'}`);
      if (stored.usageKey) console.log(`Usage plan: API Gateway key ${stored.usageKey.id} in plan ${usagePlanName(options.stage ?? '')}`);
      console.log(`Key:     ${key}`);
      console.log('Store the key now: it is shown only once. Send it as "Authorization: Bearer <key>".');
    });

  keys
    .command('list')
    .description('list keys (never the keys themselves)')
    .option('--tenant <id>', 'only keys that hold this tenant')
    .option('--json', 'print a JSON array')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (options: { tenant?: string; json?: boolean; stage?: string }) => {
      const stores = await connectStores(options.stage);
      const now = Date.now();
      const listed = (await stores.keys.list(options.tenant)).map((key) => ({
        id: key.keyId,
        name: key.name,
        tenants: key.tenants,
        scopes: key.scopes,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt ?? null,
        revokedAt: key.revokedAt ?? null,
        status: keyStatus(key, now),
      }));
      if (options.json) {
        console.log(JSON.stringify(listed));
        return;
      }
      if (listed.length === 0) {
        console.log(`No keys${options.tenant ? ` for tenant ${options.tenant}` : ''} on the ${stores.target}.`);
        return;
      }
      const header = ['ID', 'STATUS', 'NAME', 'TENANTS', 'SCOPES', 'CREATED', 'EXPIRES'];
      const rows = listed.map((k) => [k.id, k.status, k.name, k.tenants.join(','), k.scopes.join(','), k.createdAt, k.expiresAt ?? '-']);
      console.log(formatTable([header, ...rows]));
    });

  keys
    .command('revoke')
    .description('revoke a key by its id')
    .argument('<keyId>', 'the id shown by `cxm keys list`')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (keyId: string, options: { stage?: string }) => {
      const stores = await connectStores(options.stage);
      const revoked = await revokeKey(stores.keys, keyId, new Date(), stores.usagePlan);
      if (!revoked) throw new CliError(`no key with id '${keyId}' on the ${stores.target} (see 'cxm keys list')`);
      console.log(`Revoked key ${keyId} at ${revoked.stored.revokedAt}.`);
      if (revoked.deletedUsageKey) console.log(`Deleted its API Gateway key ${revoked.deletedUsageKey} from the usage plan.`);
      console.log('Gateways that cached it may accept it until their authorizer cache expires (60 s by default).');
    });
}
