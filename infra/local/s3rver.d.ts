/** The parts of @20minutes/s3rver (an S3-compatible server that checks SigV4 signatures) the local runtime uses. */
declare module '@20minutes/s3rver' {
  import type { EventEmitter } from 'node:events';
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
    get(header: string): string;
    status: number;
    type: string;
    body: unknown;
  }

  /** A Koa application: its middleware runs in this order. */
  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    middleware: Array<(ctx: S3rverContext, next: () => Promise<unknown>) => unknown>;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}

declare module '@20minutes/s3rver/lib/models/account.js' {
  export const DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void; revokeAccessKey(accessKeyId: string): void };
}
