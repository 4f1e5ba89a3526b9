/**
 * API Gateway's control plane, faked over real HTTP for the calls the CLI makes (nothing of AWS's
 * can run here). The SDK is pointed at it with AWS_ENDPOINT_URL_API_GATEWAY, so the code under
 * test builds, signs and parses requests exactly as it does against AWS. It keeps API Gateway's
 * rules that the usage-plan code relies on: `name` (nameQuery) is a prefix match, listings come in
 * pages (`position`), values are listed only with `includeValues`, and a value is unique (409).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

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
  /** API keys by id. */
  apiKeys: Map<string, FakeApiKey>;
  /** Adds a key as someone else (the console, an older CLI) would have; returns its id. */
  addApiKey(key: Omit<FakeApiKey, 'enabled' | 'tags'> & Partial<Pick<FakeApiKey, 'enabled' | 'tags'>>): string;
  /** Makes the next CreateUsagePlanKey fail, as a plan at its key limit would. */
  failNextPlanKey(): void;
  close(): Promise<void>;
}

export async function startFakeApiGateway(usagePlans: { id: string; name: string }[], options: { pageSize?: number } = {}): Promise<FakeApiGateway> {
  const calls: string[] = [];
  const apiKeys: FakeApiGateway['apiKeys'] = new Map();
  let failPlanKey = false;
  const newId = () => randomBytes(5).toString('hex');

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      calls.push(`${req.method} ${url.pathname}`);
      const reply = (status: number, payload?: unknown, errorType?: string) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...(errorType && { 'x-amzn-ErrorType': errorType }) });
        res.end(payload === undefined ? '' : JSON.stringify(payload));
      };
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
      if (req.method === 'GET' && url.pathname === '/usageplans') {
        // The wire name of the list is `item`, as in API Gateway's REST model.
        return reply(200, { item: usagePlans });
      }
      if (req.method === 'GET' && url.pathname === '/apikeys') {
        const prefix = url.searchParams.get('name') ?? '';
        const matching = [...apiKeys].filter(([, key]) => key.name.startsWith(prefix));
        const from = Number(url.searchParams.get('position') ?? 0);
        const size = Math.min(Number(url.searchParams.get('limit') ?? 25), options.pageSize ?? Infinity);
        const page = matching.slice(from, from + size);
        const withValues = url.searchParams.get('includeValues') === 'true';
        return reply(200, {
          item: page.map(([id, key]) => shown(id, key, withValues)),
          ...(from + size < matching.length && { position: String(from + size) }),
        });
      }
      if (req.method === 'POST' && url.pathname === '/apikeys') {
        const value = typeof input.value === 'string' ? input.value : randomBytes(20).toString('hex');
        if ([...apiKeys.values()].some((key) => key.value === value)) return reply(409, { message: 'API Key already exists' }, 'ConflictException');
        const id = newId();
        const key: FakeApiKey = { name: String(input.name), value, enabled: input.enabled !== false, tags: (input.tags as Record<string, string>) ?? {} };
        apiKeys.set(id, key);
        return reply(201, shown(id, key, true));
      }
      if (req.method === 'GET' && planKey) {
        const key = apiKeys.get(decodeURIComponent(planKey[2]!));
        if (!key || key.usagePlanId !== decodeURIComponent(planKey[1]!)) return reply(404, { message: 'Invalid Usage Plan Key identifier specified' }, 'NotFoundException');
        return reply(200, { id: planKey[2], type: 'API_KEY', name: key.name, value: key.value });
      }
      if (req.method === 'POST' && planKeys) {
        const key = apiKeys.get(String(input.keyId));
        if (failPlanKey || !key) {
          failPlanKey = false;
          return reply(409, { message: 'the plan cannot take this key' }, 'ConflictException');
        }
        key.usagePlanId = decodeURIComponent(planKeys[1]!);
        return reply(201, { id: input.keyId, type: 'API_KEY', name: key.name, value: key.value });
      }
      if (req.method === 'PATCH' && apiKey) {
        const id = decodeURIComponent(apiKey[1]!);
        const key = apiKeys.get(id);
        if (!key) return reply(404, { message: 'Invalid API Key identifier specified' }, 'NotFoundException');
        for (const operation of (input.patchOperations as { op: string; path: string; value?: string }[]) ?? []) {
          if (operation.op === 'replace' && operation.path === '/enabled') key.enabled = operation.value === 'true';
          else return reply(400, { message: `the fake does not patch ${operation.op} ${operation.path}` }, 'BadRequestException');
        }
        return reply(200, shown(id, key, false));
      }
      if (req.method === 'DELETE' && apiKey) {
        const id = decodeURIComponent(apiKey[1]!);
        if (!apiKeys.delete(id)) return reply(404, { message: `Invalid API Key identifier specified` }, 'NotFoundException');
        return reply(202);
      }
      reply(400, { message: `the fake does not know ${req.method} ${url.pathname}` }, 'BadRequestException');
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
      const id = newId();
      apiKeys.set(id, { enabled: true, tags: {}, ...key });
      return id;
    },
    failNextPlanKey: () => (failPlanKey = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
