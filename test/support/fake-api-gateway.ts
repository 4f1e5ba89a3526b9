/**
 * API Gateway's control plane, faked over real HTTP for the four calls the CLI makes (nothing of
 * AWS's can run here). The SDK is pointed at it with AWS_ENDPOINT_URL_API_GATEWAY, so the code
 * under test builds, signs and parses requests exactly as it does against AWS.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

export interface FakeApiGateway {
  endpoint: string;
  /** `METHOD /path` of every request, in order. */
  calls: string[];
  /** API keys by id, with the usage plan each was added to. */
  apiKeys: Map<string, { name: string; value: string; usagePlanId?: string }>;
  /** Makes the next CreateUsagePlanKey fail, as a plan at its key limit would. */
  failNextPlanKey(): void;
  close(): Promise<void>;
}

export async function startFakeApiGateway(usagePlans: { id: string; name: string }[]): Promise<FakeApiGateway> {
  const calls: string[] = [];
  const apiKeys: FakeApiGateway['apiKeys'] = new Map();
  let failPlanKey = false;

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
      const apiKey = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && url.pathname === '/usageplans') {
        // The wire name of the list is `item`, as in API Gateway's REST model.
        return reply(200, { item: usagePlans });
      }
      if (req.method === 'POST' && url.pathname === '/apikeys') {
        const id = randomBytes(5).toString('hex');
        const key = { name: String(input.name), value: randomBytes(20).toString('hex') };
        apiKeys.set(id, key);
        return reply(201, { id, name: key.name, value: key.value, enabled: input.enabled });
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
    failNextPlanKey: () => (failPlanKey = true),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
