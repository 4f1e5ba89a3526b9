/**
 * The local S3: an S3-compatible server from the registry (@20minutes/s3rver, which checks SigV4
 * signatures, expiry included, as S3 does), bound to 127.0.0.1, holding the recordings bucket,
 * refusing what S3 refuses (an anonymous request, a write over a key with `If-None-Match: *`, a
 * read whose `If-Match` is not the object's). Its object-created notifications become the
 * EventBridge "Object Created" events S3 sends a bucket with EventBridge notifications on.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3rverContext, S3rverStore } from '@20minutes/s3rver';
import { LOCAL_ACCOUNT, LOCAL_REGION, type LocalCredentials } from './local-identity.ts';
import { StartupError } from './local-programs.ts';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Calls `listener` with the EventBridge event of every object created in the bucket; returns the unsubscribe. */
  onObjectCreated(listener: (event: ObjectCreatedEvent) => void): () => void;
  close(): Promise<void>;
}

export interface ObjectCreatedEvent {
  version: '0';
  id: string;
  'detail-type': 'Object Created';
  source: 'aws.s3';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: {
    version: '0';
    bucket: { name: string };
    object: { key: string; size: number; etag?: string; sequencer?: string };
    'request-id': string;
    requester: string;
    reason: 'PutObject' | 'PostObject' | 'CopyObject';
  };
}

interface S3rverRecord {
  eventName?: string;
  eventTime?: string;
  s3?: { bucket?: { name?: string }; object?: { key?: string; size?: number; eTag?: string; sequencer?: string } };
  responseElements?: Record<string, string>;
}

const REASONS: Record<string, ObjectCreatedEvent['detail']['reason']> = {
  'ObjectCreated:Put': 'PutObject',
  'ObjectCreated:Post': 'PostObject',
  'ObjectCreated:Copy': 'CopyObject',
};

/**
 * One local S3 per process and folder, shared by whoever asks (reference-counted): the functions of
 * the sources runtime live in this process and read one endpoint from its environment, so two
 * gateways in one process (the fault tests) must share the server too. Closed with its last user.
 */
const running = new Map<string, { users: number; started: Promise<LocalS3> }>();

export async function acquireLocalS3(options: {
  bucket: string;
  dataDir?: string;
  credentials: LocalCredentials;
}): Promise<LocalS3> {
  const id = `${options.bucket}\0${options.dataDir ?? ''}`;
  let entry = running.get(id);
  if (!entry) {
    entry = { users: 0, started: startLocalS3(options) };
    running.set(id, entry);
    entry.started.catch(() => running.delete(id));
  }
  entry.users++;
  const s3 = await entry.started;
  let released = false;
  return {
    ...s3,
    async close() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      running.delete(id);
      await s3.close();
    },
  };
}

/**
 * Whether s3rver checks this request's signature: it does only when the request names one of its
 * three mechanisms (its authentication middleware), and serves any other as anonymous. A query
 * with `X-Amz-Signature` alone, or `X-Amz-Credential` alone, names none of them.
 */
function namesAnAuthMechanism(ctx: S3rverContext): boolean {
  return 'authorization' in ctx.headers || 'Signature' in ctx.query || 'X-Amz-Algorithm' in ctx.query;
}

/**
 * S3's answer to an anonymous request for a private bucket: every request s3rver would serve as
 * anonymous is refused here, first in its chain, so what reaches s3rver is checked. A CORS
 * preflight carries no credentials anywhere and is let through, as S3 does. The request's
 * conditional headers are kept for the store (conditionalWrites) while s3rver serves it.
 */
async function refuseAnonymous(ctx: S3rverContext, next: () => Promise<unknown>): Promise<unknown> {
  if (ctx.method !== 'OPTIONS' && !namesAnAuthMechanism(ctx)) {
    ctx.status = 403;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>';
    return undefined;
  }
  return conditions.run({ ifNoneMatch: ctx.get('If-None-Match'), ifMatch: ctx.get('If-Match') }, next);
}

/** The conditional headers of the request being served (s3rver's store sees objects, not requests). */
const conditions = new AsyncLocalStorage<{ ifNoneMatch: string; ifMatch: string }>();

const unquoted = (etag: string) => etag.replace(/^(W\/)?"(.*)"$/, '$2');

/**
 * S3's conditional requests, which s3rver lacks, done in its store once the request is
 * authenticated: a PUT with `If-None-Match: *` writes only a key that holds nothing yet (else 412,
 * one write at a time per key, as S3's are atomic), and a GET with `If-Match` reads only the object
 * of that ETag (else 412).
 */
function conditionalWrites(store: S3rverStore, S3Error: S3ErrorClass): void {
  const { putObject, getObject } = { putObject: store.putObject.bind(store), getObject: store.getObject.bind(store) };
  const writing = new Map<string, Promise<unknown>>();
  store.putObject = (object) => {
    if (conditions.getStore()?.ifNoneMatch !== '*') return putObject(object);
    const id = `${object.bucket}/${object.key}`;
    const write = (writing.get(id) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        if (await store.existsObject(object.bucket, object.key)) {
          throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
            Condition: 'If-None-Match',
          });
        }
        return putObject(object);
      });
    writing.set(id, write);
    void write.finally(() => writing.get(id) === write && writing.delete(id)).catch(() => undefined);
    return write;
  };
  store.getObject = async (bucket, key, options) => {
    const object = await getObject(bucket, key, options);
    const ifMatch = conditions.getStore()?.ifMatch;
    if (object && ifMatch && ifMatch !== '*' && unquoted(ifMatch) !== unquoted(object.metadata.etag ?? '')) {
      object.content?.destroy();
      throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
        Condition: 'If-Match',
      });
    }
    return object;
  };
}

type S3ErrorClass = typeof import('@20minutes/s3rver/lib/models/error.js').default;

/**
 * `dataDir` keeps the objects across restarts; without it they live in a temporary folder removed
 * on close. The port listens from the start, since the functions read its endpoint from their
 * environment at init; s3rver itself (koa, winston, an XML parser: about half a second of imports)
 * is loaded at the first request, as most runs of the local stage upload nothing.
 */
async function startLocalS3(options: {
  bucket: string;
  dataDir?: string;
  credentials: LocalCredentials;
}): Promise<LocalS3> {
  const directory = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cxm-s3-'));
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const listeners = new Set<(event: ObjectCreatedEvent) => void>();
  let loaded: Promise<{ serve: RequestListener; close(): void }> | undefined;
  const server = createServer((req, res) => {
    loaded ??= loadS3rver(options, directory, listeners);
    loaded.then(
      ({ serve }) => serve(req, res),
      (error: unknown) => {
        // Loaded again at the next request; this one gets S3's answer to a failure of its own.
        loaded = undefined;
        res.writeHead(500, { 'Content-Type': 'application/xml' });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>The local S3 server did not start: ${String(error instanceof Error ? error.message : error).replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</Message></Error>`,
        );
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    if (!options.dataDir) rmSync(directory, { recursive: true, force: true });
    throw new StartupError(
      `the local S3 server did not start: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: options.bucket,
    onObjectCreated(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await loaded?.then(({ close }) => close()).catch(() => undefined);
      if (!options.dataDir) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Loads s3rver over `directory`, its bucket made and its rules added; its object-created notifications go to `listeners`. */
async function loadS3rver(
  options: { bucket: string; credentials: LocalCredentials },
  directory: string,
  listeners: ReadonlySet<(event: ObjectCreatedEvent) => void>,
): Promise<{ serve: RequestListener; close(): void }> {
  const [{ default: S3rver }, { DUMMY_ACCOUNT }, { default: S3Error }] = await Promise.all([
    import('@20minutes/s3rver'),
    import('@20minutes/s3rver/lib/models/account.js'),
    import('@20minutes/s3rver/lib/models/error.js'),
  ]);
  // The SDK signs with the installation's credentials; the server must know them to check
  // signatures, and no other pair: s3rver's built-in S3RVER/S3RVER would sign anything.
  DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
  DUMMY_ACCOUNT.createKeyPair(options.credentials.accessKeyId, options.credentials.secretAccessKey);
  const s3rver = new S3rver({ silent: true, directory, configureBuckets: [{ name: options.bucket }] });
  // s3rver serves a request that names no signature as anonymous; S3 refuses it (the bucket is
  // private), and so must this, or the credentials above would protect nothing.
  s3rver.middleware.unshift(refuseAnonymous);
  conditionalWrites(s3rver.store, S3Error);
  await s3rver.configureBuckets();
  s3rver.on('event', (notification: { Records?: S3rverRecord[] }) => {
    for (const record of notification.Records ?? []) {
      const reason = REASONS[record.eventName ?? ''];
      const key = record.s3?.object?.key;
      if (!reason || key === undefined || record.s3?.bucket?.name !== options.bucket) continue;
      const event: ObjectCreatedEvent = {
        version: '0',
        id: randomUUID(),
        'detail-type': 'Object Created',
        source: 'aws.s3',
        account: LOCAL_ACCOUNT,
        time: record.eventTime ?? new Date().toISOString(),
        region: LOCAL_REGION,
        resources: [`arn:aws:s3:::${options.bucket}`],
        detail: {
          version: '0',
          bucket: { name: options.bucket },
          // S3's event names the ETag without its quotes.
          object: {
            key,
            size: record.s3?.object?.size ?? 0,
            etag: record.s3?.object?.eTag?.replaceAll('"', ''),
            sequencer: record.s3?.object?.sequencer,
          },
          'request-id': record.responseElements?.['x-amz-request-id'] ?? randomUUID(),
          requester: LOCAL_ACCOUNT,
          reason,
        },
      };
      for (const listener of listeners) listener(event);
    }
  });
  return {
    serve: s3rver.callback(),
    close() {
      // What s3rver's own server does when it closes: its logger holds a process-wide exception handler.
      s3rver.logger.exceptions.unhandle();
      s3rver.logger.close();
    },
  };
}
