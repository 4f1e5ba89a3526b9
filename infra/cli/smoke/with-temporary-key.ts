/**
 * A key that lives only while some work runs: issued (on a stage with its tenant's usage-plan key,
 * exactly as `cxm keys create`), then revoked (as `cxm keys revoke`) when the
 * work ends, whether it succeeds, fails, or is interrupted with Ctrl-C or SIGTERM. It also carries
 * an expiry, so a process killed outright (SIGKILL) leaves a key that stops working by itself.
 */
import { constants } from 'node:os';
import { issueKey, type KeyRequest } from '#shared/auth/issue-key';
import { revokeKey } from '#shared/auth/revoke-key';
import type { CliStores } from '../stage/connect-stores.ts';
import type { CliContext } from '../terminal/cli-context.ts';
import { CliError } from '../terminal/cli-error.ts';
import type { CliSignal } from '../terminal/cli-io.ts';

/**
 * Runs `use` with a key issued for `request` and revokes it afterwards, also when the run `cli`
 * is interrupted (which then ends with 128 + the signal's number once the key is revoked); what
 * happens to the key goes to the run's stderr.
 *
 * @example await withTemporaryKey(cli, stores, { tenants: ['cxm-smoke'], scopes, name: 'cxm smoke', expiresAt }, (key) => runChecks(key));
 */
export async function withTemporaryKey<T>(
  cli: CliContext,
  stores: CliStores,
  request: KeyRequest & { expiresAt: string },
  use: (key: string) => Promise<T>,
): Promise<T> {
  const issuing = stores
    .keyTagSecret()
    .then((tagSecret) => issueKey(stores.keys, request, { tagSecret, usagePlan: stores.usagePlan }));
  let revoking: Promise<void> | undefined;
  // Once, whoever asks first (the end of the work or a signal); a key that was never issued needs nothing.
  const revoke = () =>
    (revoking ??= issuing.then(
      async ({ stored }) => {
        try {
          const revoked = await revokeKey(stores.keys, stored.keyId, new Date(), stores.usagePlan);
          const deleted = revoked?.deletedUsageKeys ?? [];
          const usageKey =
            deleted.length > 0 ? ` and deleted the usage-plan key ${deleted.join(', ')} no other key needs` : '';
          cli.warn(`Revoked the temporary key ${stored.keyId}${usageKey}.`);
        } catch (error) {
          throw new CliError(
            `could not revoke the temporary key ${stored.keyId} (${(error as Error).message}); revoke it with 'cxm keys revoke ${stored.keyId}' (and the same --stage); it expires at ${stored.expiresAt} anyway`,
          );
        }
      },
      () => undefined,
    ));
  const stopListening = cli.onInterrupt((signal: CliSignal) => {
    cli.warn('Interrupted: revoking the temporary key before exiting.');
    revoke().then(
      () => cli.exit(128 + constants.signals[signal]),
      (error: Error) => {
        cli.warn(`cxm: ${error.message}`);
        cli.exit(128 + constants.signals[signal]);
      },
    );
  });
  try {
    const { key, stored, usageKey, unconfirmed } = await issuing;
    const whose = usageKey?.owner.kind === 'tenant' ? "its tenant's" : 'its own';
    const throttled = usageKey ? `, throttled through ${whose} API Gateway key ${usageKey.id}` : '';
    cli.warn(
      `Created the temporary key ${stored.keyId} for tenant ${request.tenants.join(', ')}${throttled}, expiring at ${stored.expiresAt}.`,
    );
    if (unconfirmed)
      cli.warn(
        `Warning: the usage-plan key ${usageKey?.name} could not be checked again after the key was stored (${unconfirmed}); checks may be refused by the gateway.`,
      );
    return await use(key);
  } finally {
    try {
      await revoke();
    } finally {
      // Only now: a signal while revoking waits for the revocation too.
      stopListening();
    }
  }
}
