/** The parts of @20minutes/s3rver (an S3-compatible server that checks SigV4 signatures) the local runtime uses. */
declare module '@20minutes/s3rver' {
  import type { EventEmitter } from 'node:events';
  import type { RequestListener } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    resetOnClose?: boolean;
    configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
  }

  /** The part of Koa's context the local runtime's own middleware reads and sets. */
  export interface S3rverContext {
    method: string;
    querystring: string;
    /** Request headers, lower-cased names. */
    headers: Record<string, string | string[] | undefined>;
    /** The parsed query string. */
    query: Record<string, string | string[] | undefined>;
    get(header: string): string;
    status: number;
    type: string;
    body: unknown;
  }

  /** A Koa application: its middleware runs in this order. */
  /** The filesystem store behind the server: the calls the local runtime wraps. */
  export interface S3rverStore {
    existsObject(bucket: string, key: string): Promise<boolean>;
    getObject(
      bucket: string,
      key: string,
      options?: unknown,
    ): Promise<{ metadata: Record<string, string>; content?: { destroy(): void } | null } | null>;
    putObject(object: { bucket: string; key: string }): Promise<{ size: number; md5: string }>;
  }

  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    middleware: Array<(ctx: S3rverContext, next: () => Promise<unknown>) => unknown>;
    store: S3rverStore;
    /** Makes the buckets of `configureBuckets` in the store; `run()` does it before it listens. */
    configureBuckets(): Promise<unknown>;
    /** The request listener of this Koa application, for a server of the caller's. */
    callback(): RequestListener;
    /** Its winston logger: `run()`'s server closes it, and the exception handler it holds, on close. */
    logger: { close(): void; exceptions: { unhandle(): void } };
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}

declare module '@20minutes/s3rver/lib/models/account.js' {
  export const DUMMY_ACCOUNT: {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  };
}

declare module '@20minutes/s3rver/lib/models/error.js' {
  /** An S3 error: s3rver answers it with its status and S3's XML body. */
  export default class S3Error extends Error {
    constructor(code: string, message: string, details?: Record<string, string>);
  }
}
