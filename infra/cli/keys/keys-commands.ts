/** `cxm keys create | list | revoke | sync` (infra/README.md: keys on a deployed stage; usage plan per tenant). */
import type { Command } from 'commander';
import { usagePlanName } from '#infra/stage-names';
import { scopeAreas } from '#shared/api/route-table';
import { describeInvalidScope } from '#shared/auth/grant-scope';
import { issueKey } from '#shared/auth/issue-key';
import { keyStatus } from '#shared/auth/key-status';
import { revokeKey } from '#shared/auth/revoke-key';
import { isValidTenantId } from '#shared/auth/tenant-id';
import { parseIsoDateTime } from '#shared/domain/time/parse-instant';
import { connectStores } from '../stage/connect-stores.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import { countProgress, type Progress, progressOn } from '../terminal/count-progress.ts';
import { formatTable } from '../terminal/format-table.ts';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

const collect = (value: string, previous: string[] = []) => [...previous, value];

function parseExpiry(value: string | undefined, now: Date): string | undefined {
  if (value === undefined) return undefined;
  // A date alone means its start in UTC, as ISO 8601's date-only form always has in JavaScript.
  const ms = parseIsoDateTime(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (ms === undefined)
    throw new CliError(
      `--expires '${value}' is not an ISO 8601 date or date-time with a zone, on a day that exists (e.g. 2027-01-31T00:00:00Z)`,
    );
  if (ms <= now.getTime()) throw new CliError(`--expires '${value}' is in the past`);
  return new Date(ms).toISOString();
}

/**
 * Adds `cxm keys create | list | revoke | sync` to the program, for the run `cli`.
 *
 * @example registerKeysCommands(program, cli) // then: cxm keys create --tenant acme --scope cxm:*
 */
export function registerKeysCommands(program: Command, cli: CliContext): void {
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
    .action(
      async (options: {
        tenant: string[];
        scope: string[];
        name: string;
        expires?: string;
        json?: boolean;
        stage?: string;
      }) => {
        const now = new Date();
        for (const tenant of options.tenant) {
          if (!isValidTenantId(tenant)) {
            throw new CliError(
              `tenant '${tenant}' must be 1-128 characters of letters, digits, '.', '_' or '-', starting with a letter or digit`,
            );
          }
        }
        for (const scope of options.scope) {
          const problem = describeInvalidScope(scope, scopeAreas());
          if (problem) throw new CliError(problem);
        }
        const expiresAt = parseExpiry(options.expires, now);
        const stores = await connectStores(cli, options.stage);
        // Before anything is written: without the secret no key can be issued.
        const tagSecret = await stores.keyTagSecret();
        const { key, stored, usageKey, unconfirmed } = await issueKey(
          stores.keys,
          { tenants: options.tenant, scopes: options.scope, name: options.name, expiresAt },
          { tagSecret, now, usagePlan: stores.usagePlan },
        );
        if (unconfirmed) {
          cli.warn(
            `cxm: warning: the key is created, but its usage-plan key ${usageKey?.name} could not be checked again after storing it (${unconfirmed}); run 'cxm keys sync --stage ${options.stage}' to be sure it is in the plan`,
          );
        }
        if (options.json) {
          cli.print(
            JSON.stringify({
              id: stored.keyId,
              key,
              tenants: stored.tenants,
              scopes: stored.scopes,
              expiresAt: stored.expiresAt ?? null,
            }),
          );
          return;
        }
        cli.print(`Created key ${stored.keyId} ('${stored.name}') on the ${stores.target}`);
        cli.print(`Tenants: ${stored.tenants.join(', ')}`);
        cli.print(`Scopes:  ${stored.scopes.join(', ')}`);
        cli.print(`Expires: ${stored.expiresAt ?? 'never'}`);
        if (usageKey?.owner.kind === 'tenant') {
          cli.print(
            `Usage plan: tenant ${usageKey.owner.tenantId} is throttled through API Gateway key ${usageKey.id} in plan ${usagePlanName(options.stage ?? '')}, shared by its keys`,
          );
        } else if (usageKey) {
          cli.print(
            `Usage plan: this key of several tenants is throttled through an API Gateway key of its own, ${usageKey.id} (${usageKey.name}), in plan ${usagePlanName(options.stage ?? '')}`,
          );
        }
        cli.print(`Key:     ${key}`);
        cli.print('Store the key now: it is shown only once. Send it as "Authorization: Bearer <key>".');
      },
    );

  keys
    .command('list')
    .description('list keys (never the keys themselves), and which active ones have no tag')
    .option('--tenant <id>', 'only keys that hold this tenant')
    .option('--json', 'print a JSON array')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (options: { tenant?: string; json?: boolean; stage?: string }) => {
      const stores = await connectStores(cli, options.stage);
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
        tagged: key.tagged === true,
      }));
      if (options.json) {
        cli.print(JSON.stringify(listed));
        return;
      }
      if (listed.length === 0) {
        cli.print(`No keys${options.tenant ? ` for tenant ${options.tenant}` : ''} on the ${stores.target}.`);
        return;
      }
      const header = ['ID', 'STATUS', 'TAG', 'NAME', 'TENANTS', 'SCOPES', 'CREATED', 'EXPIRES'];
      const rows = listed.map((k) => [
        k.id,
        k.status,
        k.tagged ? 'yes' : 'no',
        k.name,
        k.tenants.join(','),
        k.scopes.join(','),
        k.createdAt,
        k.expiresAt ?? '-',
      ]);
      cli.print(formatTable([header, ...rows]));
      const untagged = listed.filter((k) => k.status === 'active' && !k.tagged).length;
      if (untagged > 0) {
        cli.print(
          `${untagged} active key${untagged === 1 ? ' has' : 's have'} no tag (issued before key tags): ${untagged === 1 ? 'it works' : 'they work'} only while the stage accepts untagged keys (edge.acceptUntaggedKeys). Replace ${untagged === 1 ? 'it' : 'them'} with 'cxm keys create', then 'cxm keys revoke' (infra/README.md, "Keys without a tag").`,
        );
      }
    });

  keys
    .command('revoke')
    .description('revoke a key by its id')
    .argument('<keyId>', 'the id shown by `cxm keys list`')
    .option('--stage <name>', 'deployed stage to use instead of the local stack')
    .action(async (keyId: string, options: { stage?: string }) => {
      const stores = await connectStores(cli, options.stage);
      const revoked = await revokeKey(stores.keys, keyId, new Date(), stores.usagePlan);
      if (!revoked) throw new CliError(`no key with id '${keyId}' on the ${stores.target} (see 'cxm keys list')`);
      cli.print(`Revoked key ${keyId} at ${revoked.stored.revokedAt}.`);
      if (revoked.deletedUsageKeys.length > 0) {
        const plural = revoked.deletedUsageKeys.length > 1 ? 's' : '';
        cli.print(
          `Deleted API Gateway key${plural} ${revoked.deletedUsageKeys.join(', ')} from the usage plan (no other active key is throttled through it), so the gateway refuses this key at once.`,
        );
      }
      if (revoked.sharedTenant) {
        cli.print(`Kept the usage-plan key of ${revoked.sharedTenant}: other active keys share it.`);
      }
      cli.print('Gateways that cached it may accept it until their authorizer cache expires (60 s by default).');
    });

  keys
    .command('sync')
    .description(
      'give every tenant and every key of several tenants with an active key its usage-plan key, and delete the ones no active key needs (a deployed stage only; safe to rerun)',
    )
    .requiredOption('--stage <name>', 'the deployed stage')
    .action(async (options: { stage: string }) => {
      const stores = await connectStores(cli, options.stage);
      if (!stores.usagePlan) throw new CliError(`the ${stores.target} has no usage plan to sync`);
      const { syncUsagePlan } = await import('#shared/auth/sync-usage-plan');
      let progress: Progress | undefined;
      const synced = await syncUsagePlan(stores.keys, stores.usagePlan, options.stage, {
        onOwner: (done, total) => {
          progress ??= countProgress({ label: 'usage keys', total, unit: 'items', ...progressOn(cli.stderr) });
          progress.update(done);
        },
      });
      progress?.finish();
      cli.print(
        `${synced.owners.length} usage owner${synced.owners.length === 1 ? '' : 's'} with active keys (tenants, and keys of several tenants): each has its API Gateway key in plan ${usagePlanName(options.stage)}.`,
      );
      for (const deleted of synced.deleted) cli.print(`Deleted API Gateway key ${deleted.id} (${deleted.name}).`);
    });
}
