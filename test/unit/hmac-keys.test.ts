/**
 * Every HMAC the code computes takes its key as a KeyObject (shared/domain/hmac-sha256.ts): no
 * source file calls `createHmac` itself, every AWS client a function makes is given
 * sdk-client-options.ts's options (sdk-sha256.ts's SHA-256 instead of the SDK's own, and a stream
 * collector that leaves Node's web streams unloaded), and the signer of the requests signed without
 * a client is given the SHA-256. Read from the sources, as the layers test reads imports.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

const HMAC_MODULE = 'shared/domain/hmac-sha256.ts';

function sources(dir: string): string[] {
  return (readdirSync(join(PROJECT_ROOT, dir), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => `${dir}/${name.split('\\').join('/')}`);
}

const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');
/** Code without its comments, whose examples may show a client being made. */
const code = (file: string) => read(file).replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');

describe('HMAC keys', () => {
  it(`no source calls createHmac but ${HMAC_MODULE}`, () => {
    const calling = ['shared', 'functions', 'infra']
      .flatMap(sources)
      .filter((file) => /\bcreateHmac\(/.test(code(file)));
    expect(calling).toEqual([HMAC_MODULE]);
  });

  it("every AWS client of the functions' code is given SDK_CLIENT_OPTIONS, every signer sdk-sha256.ts's Sha256", () => {
    const made = ['shared', 'functions'].flatMap(sources).flatMap((file) =>
      [...code(file).matchAll(/new (\w+Client|SecretsProvider|SignatureV4)\(([^;]*?)\)\)?;?$/gm)].map((match) => {
        const given = match[1] === 'SignatureV4' ? /\bsha256: Sha256\b/ : /\.\.\.SDK_CLIENT_OPTIONS\b/;
        return `${file}: ${match[1]}${given.test(match[2] ?? '') ? ' as required' : ''}`;
      }),
    );
    expect(made.length).toBeGreaterThanOrEqual(7);
    expect(made.filter((entry) => !entry.endsWith(' as required'))).toEqual([]);
  });
});
