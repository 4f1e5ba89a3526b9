/**
 * The check every local stand-in of an AWS service makes before it answers (the DynamoDB gate, SQS,
 * Secrets Manager, Transcribe): the request is addressed to a loopback host, and signed with SigV4
 * under the one key the stand-in accepts (the local functions' own), within AWS's clock skew. A
 * loopback port is no secret: any process of the machine, or a page a browser was lured to (a name
 * rebound to 127.0.0.1 still sends its own Host), can reach it; neither holds the key.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '#shared/store/sdk-sha256';
import type { LocalCredentials } from './local-identity.ts';

/** How far a request's signing time may stray from now, as AWS allows. */
const MAX_CLOCK_SKEW_MS = 15 * 60_000;

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

const LOOPBACK_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/;

/** Why a request is refused, in the words AWS's services use. */
export interface LocalRefusal {
  type: 'UnrecognizedClientException' | 'InvalidSignatureException' | 'MissingAuthenticationTokenException';
  message: string;
}

/** `20261126T101500Z` -> its Date, or undefined. */
function amzDate(value: string | undefined): Date | undefined {
  const match = value && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return match
    ? new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!))
    : undefined;
}

/**
 * Whether the request is to a loopback host and carries a valid signature of `accepted`; why not
 * otherwise.
 *
 * @example const refused = await verifyLocalRequest('POST', '/', req.headers, body, accepted); // undefined when valid
 */
export async function verifyLocalRequest(
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
  accepted: LocalCredentials,
): Promise<LocalRefusal | undefined> {
  const host = String(headers.host ?? '');
  if (!LOOPBACK_HOST.test(host))
    return {
      type: 'UnrecognizedClientException',
      message: `The local stand-in answers loopback hosts only, not '${host}'.`,
    };
  const authorization = headers.authorization;
  if (!authorization)
    return { type: 'MissingAuthenticationTokenException', message: 'Request is missing Authentication Token' };
  const match = AUTHORIZATION.exec(authorization);
  if (!match)
    return { type: 'InvalidSignatureException', message: 'The Authorization header is not a SigV4 signature.' };
  const [, keyId, , region, service, signedHeaders, signature] = match;
  if (keyId !== accepted.accessKeyId)
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const signingDate = amzDate(String(headers['x-amz-date'] ?? ''));
  if (!signingDate || Math.abs(Date.now() - signingDate.getTime()) > MAX_CLOCK_SKEW_MS)
    return { type: 'InvalidSignatureException', message: 'Signature expired or not yet current: check x-amz-date.' };
  const names = signedHeaders!.split(';');
  const [pathname, query = ''] = path.split('?');
  const signer = new SignatureV4({
    service: service!,
    region: region!,
    credentials: accepted,
    sha256: Sha256,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method,
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: pathname!,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers: Object.fromEntries(names.map((name) => [name, String(headers[name] ?? '')])),
      body,
    },
    { signingDate, signableHeaders: new Set(names) },
  );
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  if (expected.length !== 64 || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature!)))
    return {
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided.',
    };
  return undefined;
}
