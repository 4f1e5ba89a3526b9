/**
 * API Gateway's control plane, faked over real HTTP for the calls the CLI makes (nothing of AWS's
 * can run here). The SDK is pointed at it with AWS_ENDPOINT_URL_API_GATEWAY, so the code under
 * test builds, signs and parses requests exactly as it does against AWS. It keeps API Gateway's
 * rules that the usage-plan code relies on:
 * - GetApiKeys: `name` (nameQuery) is a prefix match, not an exact one; values are listed only
 *   with `includeValues=true`; tags are listed; `limit` is 25 by default and at most 500; listings
 *   come in pages, continued with the opaque `position` the previous page returned;
 * - CreateApiKey: a given `value` is kept (20 to 128 characters), a random one made otherwise; a
 *   value is unique in the region (409 ConflictException); a key is disabled unless `enabled`;
 * - GetUsagePlanKey: 404 NotFoundException for a key that is not in the plan;
 * - CreateUsagePlanKey: 404 for an unknown plan or key, 409 for a key already in the plan;
 * - UpdateApiKey (`replace /enabled`), DeleteApiKey (202; 404 for an unknown key, and the key
 *   leaves its plan with it).
 * GetUsagePlans pages the same way as GetApiKeys. Calls it does not play itself (GetAccount), or
 * that a test wants answered otherwise (AccessDenied), it answers from recorded answers
 * (recorded-aws-answer.ts) given by `METHOD /path`.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type RecordedAnswer, sendRecordedAnswer } from './recorded-aws-answer.ts';

export interface FakeApiKey {
  name: string;
  value: string;
  enabled: boolean;
  tags: Record<string, string>;
  /** The usage plan the key was added to, if any. */
  usagePlanId?: string;
}

export interface FakeApiGateway {
  endpoint: string;
  /** `METHOD /path` of every request, in order. */
  calls: string[];
  /** API keys by id, in the order they were made (the order of the listings). */
  apiKeys: Map<string, FakeApiKey>;
  /**
   * Adds a key as someone else (the console, an older CLI) would have; returns its id. Enabled,
   * untagged and with a random value unless told; a value another key holds is refused, as
   * API Gateway refuses it.
   */
  addApiKey(key: Pick<FakeApiKey, 'name'> & Partial<Omit<FakeApiKey, 'name'>>): string;
  /** Makes the next CreateUsagePlanKey fail (409), as a plan that cannot take the key would. */
  failNextPlanKey(): void;
  /**
   * Makes the next CreateApiKey meet a concurrent creator: the same key (name, value, tags) is
   * made, outside any plan, just before the call is handled, which is then refused as a duplicate
   * value (409), as when two operators create keys of one tenant at once.
   */
  raceNextApiKey(): void;
  /**
   * Makes the next CreateUsagePlanKey meet a concurrent caller: the key is added to the plan just
   * before the call is handled, which then finds it there (409).
   */
  raceNextPlanKey(): void;
  close(): Promise<void>;
}

/** The most API Gateway lists in one page, and how many when no `limit` is given. */
const MAX_LIMIT = 500;
const DEFAULT_LIMIT = 25;

export async function startFakeApiGateway(
  usagePlans: { id: string; name: string }[],
  /**
   * `pageSize` caps every page below what `limit` asks for, so that paging is exercised;
   * `recorded` answers `METHOD /path` as given, before anything the fake plays.
   */
  options: { pageSize?: number; recorded?: Record<string, RecordedAnswer> } = {},
): Promise<FakeApiGateway> {
  const calls: string[] = [];
  const apiKeys: FakeApiGateway['apiKeys'] = new Map();
  let failPlanKey = false;
  let raceApiKey = false;
  let racePlanKey = false;
  const newId = () => randomBytes(5).toString('hex');
  const valueTaken = (value: string) => [...apiKeys.values()].some((key) => key.value === value);

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      calls.push(`${req.method} ${url.pathname}`);
      const reply = (status: number, payload?: unknown, errorType?: string) => {
        res.writeHead(status, {
          'Content-Type': 'application/json',
          ...(errorType && { 'x-amzn-ErrorType': errorType }),
        });
        res.end(payload === undefined ? '' : JSON.stringify(payload));
      };
      const badRequest = (message: string) => reply(400, { message }, 'BadRequestException');
      const notFound = (message: string) => reply(404, { message }, 'NotFoundException');
      const conflict = (message: string) => reply(409, { message }, 'ConflictException');
      const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      const planKeys = /^\/usageplans\/([^/]+)\/keys$/.exec(url.pathname);
      const planKey = /^\/usageplans\/([^/]+)\/keys\/([^/]+)$/.exec(url.pathname);
      const apiKey = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
      const shown = (id: string, key: FakeApiKey, withValue: boolean) => ({
        id,
        name: key.name,
        enabled: key.enabled,
        tags: key.tags,
        ...(withValue && { value: key.value }),
      });
      /** One page of `items` as API Gateway lists it: `item` (its wire name) and `position` while more remain. */
      const page = <T>(items: T[]) => {
        const limit = Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT);
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
          return badRequest(`limit must be 1 to ${MAX_LIMIT}`);
        const position = url.searchParams.get('position');
        // Opaque, as API Gateway's is: code that builds one instead of passing it back gets a 400.
        const from =
          position === null ? 0 : Number(/^p(\d+)$/.exec(Buffer.from(position, 'base64url').toString())?.[1] ?? NaN);
        if (Number.isNaN(from)) return badRequest(`invalid position '${position}'`);
        const to = from + Math.min(limit, options.pageSize ?? Infinity);
        return reply(200, {
          item: items.slice(from, to),
          ...(to < items.length && { position: Buffer.from(`p${to}`).toString('base64url') }),
        });
      };
      const plan = (id: string) => usagePlans.find((candidate) => candidate.id === id);
      const recorded = options.recorded?.[`${req.method} ${url.pathname}`];
      if (recorded) return sendRecordedAnswer(res, recorded);

      if (req.method === 'GET' && url.pathname === '/usageplans') return page(usagePlans);
      if (req.method === 'GET' && url.pathname === '/apikeys') {
        const prefix = url.searchParams.get('name') ?? '';
        const withValues = url.searchParams.get('includeValues') === 'true';
        return page(
          [...apiKeys].filter(([, key]) => key.name.startsWith(prefix)).map(([id, key]) => shown(id, key, withValues)),
        );
      }
      if (req.method === 'POST' && url.pathname === '/apikeys') {
        const value = typeof input.value === 'string' ? input.value : randomBytes(20).toString('hex');
        if (value.length < 20 || value.length > 128)
          return badRequest('API Key value should be at least 20 and at most 128 characters');
        const key: FakeApiKey = {
          name: String(input.name),
          value,
          enabled: input.enabled === true,
          tags: (input.tags as Record<string, string>) ?? {},
        };
        if (raceApiKey) {
          raceApiKey = false;
          apiKeys.set(newId(), { ...key, enabled: true });
        }
        if (valueTaken(value)) return conflict('API Key already exists');
        const id = newId();
        apiKeys.set(id, key);
        return reply(201, shown(id, key, true));
      }
      if (req.method === 'GET' && planKey) {
        const [planId, keyId] = [decodeURIComponent(planKey[1]!), decodeURIComponent(planKey[2]!)];
        const key = apiKeys.get(keyId);
        if (!plan(planId)) return notFound('Invalid Usage Plan ID specified');
        if (!key || key.usagePlanId !== planId) return notFound('Invalid Usage Plan Key identifier specified');
        return reply(200, { id: keyId, type: 'API_KEY', name: key.name, value: key.value });
      }
      if (req.method === 'POST' && planKeys) {
        const planId = decodeURIComponent(planKeys[1]!);
        if (!plan(planId)) return notFound('Invalid Usage Plan ID specified');
        if (input.keyType !== 'API_KEY') return badRequest(`keyType must be API_KEY, not ${String(input.keyType)}`);
        const key = apiKeys.get(String(input.keyId));
        if (!key) return notFound('Invalid API Key identifier specified');
        if (failPlanKey) {
          failPlanKey = false;
          return conflict('the plan cannot take this key');
        }
        if (racePlanKey) {
          racePlanKey = false;
          key.usagePlanId = planId;
        }
        if (key.usagePlanId === planId)
          return conflict(`Usage Plan ${planId} already contains API Key ${String(input.keyId)}`);
        key.usagePlanId = planId;
        return reply(201, { id: input.keyId, type: 'API_KEY', name: key.name, value: key.value });
      }
      if (req.method === 'PATCH' && apiKey) {
        const id = decodeURIComponent(apiKey[1]!);
        const key = apiKeys.get(id);
        if (!key) return notFound('Invalid API Key identifier specified');
        for (const operation of (input.patchOperations as { op: string; path: string; value?: string }[]) ?? []) {
          if (operation.op === 'replace' && operation.path === '/enabled') key.enabled = operation.value === 'true';
          else return badRequest(`the fake does not patch ${operation.op} ${operation.path}`);
        }
        return reply(200, shown(id, key, false));
      }
      if (req.method === 'DELETE' && apiKey) {
        if (!apiKeys.delete(decodeURIComponent(apiKey[1]!))) return notFound('Invalid API Key identifier specified');
        return reply(202);
      }
      badRequest(`the fake does not know ${req.method} ${url.pathname}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    apiKeys,
    addApiKey(key) {
      const added: FakeApiKey = { enabled: true, tags: {}, value: randomBytes(20).toString('hex'), ...key };
      if (valueTaken(added.value)) throw new Error(`the fake already holds an API key with the value of '${key.name}'`);
      const id = newId();
      apiKeys.set(id, added);
      return id;
    },
    failNextPlanKey: () => (failPlanKey = true),
    raceNextApiKey: () => (raceApiKey = true),
    raceNextPlanKey: () => (racePlanKey = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
