/**
 * The secrets the authorizer checks key tags with (shared/auth/key-tag.ts): `CXM_KEY_TAG_SECRET`
 * locally (generated into CXM_HOME), and `CXM_KEY_TAG_SECRET_PREVIOUS` after a local rotation; in
 * the cloud `CXM_KEY_TAG_SECRET_ARN`, whose AWSCURRENT version tags new keys and whose AWSPREVIOUS
 * version still verifies the keys tagged before the last rotation (secret-versions.ts reads both on
 * a container's first request and again every five minutes).
 *
 * Never read fresh on a tag that fails: that is exactly what a forged token brings, and a flood of
 * them must not become Secrets Manager calls. A key issued in the five minutes after a rotation may
 * therefore be refused by a container still holding the versions before it (infra/README.md says to
 * wait that long before issuing keys).
 */
import type { KeyObject } from 'node:crypto';
import { hmacKey } from '#shared/domain/hmac-sha256';
import { type SecretVersionsSource, secretVersionsSource } from './secret-versions.ts';

/**
 * The key-tag secrets of this function's stage, the current first, each as the KeyObject its MACs
 * take (made once per read, not once per tag checked: a flood of made-up keys is a tag check each).
 *
 * @example
 * const tagSecrets = keyTagSecretsSource(); // at module scope: fails at cold start without the secret
 * verifyKeyTag(await tagSecrets(), parsed.body, parsed.tag);
 */
export function keyTagSecretsSource(): SecretVersionsSource<KeyObject> {
  return secretVersionsSource(
    {
      what: 'the key-tag secret',
      without: 'key tags cannot be checked',
      secret: 'keyTagSecret',
    },
    hmacKey,
  );
}
