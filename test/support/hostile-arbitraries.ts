/**
 * fast-check arbitraries for what a hostile or careless client puts on the wire: path segments
 * and query strings as raw (percent-encoded) text, header values Node will send, odd unicode.
 */
import fc from 'fast-check';

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Percent-encodes text as UTF-8, except that a lone surrogate becomes the three bytes a careless
 * encoder writes for it (CESU-8): not valid UTF-8, so it must be refused, never decoded.
 */
export function percentEncodeLoose(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map(hex).join('')
        : encodeURIComponent(char);
  }
  return out;
}

/** Raw separators: a literal `/` splits the path, the others survive into the decoded value. */
export const SEPARATORS = ['/', '\\', '%2F', '%2f', '%5C', '%5c'];

/** Percent-encodings that decode to no string: lone surrogates, overlong `/`, stray bytes, bad escapes. */
export const INVALID_ENCODINGS = ['%ED%A0%80', '%ED%BF%BF', '%C0%AF', '%E0%80%AF', '%FF', '%E2%82', '%', '%zz', '%%2F'];

/** Valid but odd: NUL, RTL override and marks, zero-width characters, combining marks, emoji, noncharacters, dots. */
export const ODD_UNICODE = [
  '%00',
  '%E2%80%AE',
  '%E2%80%8F',
  '%E2%80%8B',
  '%EF%BB%BF',
  'e%CC%81',
  '%CC%81',
  '%F0%9F%98%80',
  '%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7',
  '%EF%BF%BF',
  '%F4%8F%BF%BF',
  '%0D%0A',
  '%09',
  '%20',
  '.',
  '..',
  '%2E%2E',
  '%23',
  '%3F',
  '%25',
  '%2B',
  '+',
  '~',
];

/** Any code point, now and then a lone surrogate (which well-formed strings never hold). */
const anyChar = fc.oneof(
  { weight: 9, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);
/** Text of any code points, lone surrogates included. */
export const oddText = (maxLength: number) => fc.string({ unit: anyChar, minLength: 1, maxLength });

const piece = fc.oneof(
  fc.constantFrom(...SEPARATORS, ...INVALID_ENCODINGS, ...ODD_UNICODE),
  oddText(8).map(percentEncodeLoose),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/),
);

/** A path segment as it goes on the request line: pieces of the above, or one repeated past every length bound. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join('')) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.integer({ min: 513, max: 1100 }).map((n) => 'a'.repeat(n)),
      fc
        .tuple(fc.constantFrom('%F0%9F%98%80', 'e%CC%81', '%E2%80%AE', '%00'), fc.integer({ min: 300, max: 600 }))
        .map(([p, n]) => p.repeat(n)),
    ),
  },
);

/** A query name or value as raw text: known names, prototype names, random text, broken encodings. */
export function queryToken(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    ...(known.length > 0 ? [fc.constantFrom(...known)] : []),
    fc.constantFrom(
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'limit[]',
      'LIMIT',
      'Range',
      '%00',
      '%ED%A0%80',
      '%',
      '+',
    ),
    oddText(12).map(percentEncodeLoose),
  );
}

/** A query string of 1-4 `name=value` pairs (a pair may lack `=`), names never empty. */
export function hostileQuery(names: fc.Arbitrary<string>, values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(names, fc.option(values, { nil: undefined })), { minLength: 1, maxLength: 4 })
    .map((pairs) => pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&'));
}

/** Characters Node sends in a header value (no CR, LF or NUL). */
const headerChar = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)),
  fc.constant('\t'),
);
export const headerValue = fc.string({ unit: headerChar, maxLength: 60 });

const TOKEN_CHARS = "!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
export const headerName = fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 20 });
