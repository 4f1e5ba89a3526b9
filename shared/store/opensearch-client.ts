/**
 * The official OpenSearch client for one endpoint. An Amazon OpenSearch Service domain is reached
 * over HTTPS with SigV4 (service `es`, the function's region and credentials); a local cluster
 * (`http://...`, or a URL with its own user:password) is reached as it is. Tests pass a
 * `Connection` class that answers from recorded responses; it is signed the same way.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Client, type Connection } from '@opensearch-project/opensearch';
import { AwsSigv4Signer, type AwsSigv4SignerOptions } from '@opensearch-project/opensearch/aws';

export interface OpenSearchClientOptions {
  /** `https://<domain endpoint>` (signed) or a local `http://host:port`. */
  endpoint: string;
  /** Region of the domain; defaults to AWS_REGION. */
  region?: string;
  /** Credentials for signing; defaults to the standard provider chain. */
  credentials?: AwsSigv4SignerOptions['getCredentials'];
  /** Replaces the HTTP layer (tests). */
  Connection?: typeof Connection;
  /** Per attempt. The default fits the API functions' 10 s budget with one retry. */
  requestTimeoutMs?: number;
  /** Retries of connection errors and 502/503/504 (never of 429). */
  maxRetries?: number;
}

/** SigV4 unless the endpoint is plain HTTP or carries its own basic-auth credentials. */
export function signsRequests(endpoint: string): boolean {
  const url = new URL(endpoint);
  return url.protocol === 'https:' && url.username === '';
}

export function createOpenSearchClient(options: OpenSearchClientOptions): Client {
  const { endpoint, requestTimeoutMs = 4_000, maxRetries = 1 } = options;
  const common = {
    node: endpoint,
    requestTimeout: requestTimeoutMs,
    maxRetries,
    // One endpoint (the domain's load balancer): nothing to fail over to, so no resurrection pings.
    resurrectStrategy: 'none' as const,
  };
  if (!signsRequests(endpoint)) {
    return new Client({ ...common, ...(options.Connection && { Connection: options.Connection }) });
  }
  const region = options.region ?? process.env.AWS_REGION;
  if (!region) throw new Error(`cannot sign requests to ${endpoint}: AWS_REGION is not set`);
  const signer = AwsSigv4Signer({ region, service: 'es', getCredentials: options.credentials ?? defaultProvider() });
  const Injected = options.Connection;
  const SignedConnection: typeof Connection = Injected
    ? class SignedInjectedConnection extends Injected {
        override buildRequestObject(params: Parameters<Connection['buildRequestObject']>[0]) {
          return signer.buildSignedRequestObject(super.buildRequestObject(params));
        }
      }
    : signer.Connection;
  // The signer's Transport fetches (and refreshes) credentials before a request is signed.
  return new Client({ ...common, Connection: SignedConnection, Transport: signer.Transport });
}
