/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned to the release
 * that covers 2026-07-28) against the bots endpoint through the gateway: the requirement sets of
 * 2025-11-25 and 2026-07-28, each whole, with what does not apply to a stateless, tools-only server
 * listed beside this file with the reasons (functions/README.md, "MCP conformance"). The bundles
 * project runs it again, so both runtimes answer it. The suite needs Node 22+, so it runs on
 * Lambda's Node; it sends no credentials, so a small proxy in front of the gateway adds the key and
 * forwards everything else as the suite sent it.
 *
 * @group sources bundles-last
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { connect, createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaNode } from '#infra/lambda-node';
import { PROJECT_ROOT } from '#infra/project-root';
import { type Finished, run } from '#test/support/run-process';
import { expectDocumented, startTestApi, type TestApi, uniqueTenant } from '#test/support/test-api';

/**
 * The requirement sets of the two revisions the endpoint serves, each run whole with the list of
 * what does not apply to it and why (mcp-conformance/not-applicable-<revision>.yaml): the suite
 * fails the run on any other failure, and on a listed one that starts to pass.
 */
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

/** What does not apply to this endpoint in `revision`, and why: the suite's `--expected-failures` file. */
const notApplicableList = (revision: Revision) =>
  join(import.meta.dirname, 'mcp-conformance', `not-applicable-${revision}.yaml`);

/** Scenarios each revision's run must have passed outright, by name (the heart of each era). */
const MUST_PASS: Record<Revision, string[]> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'http-header-validation', 'tools-list', 'dns-rebinding-protection'],
};

/** One result of the suite's `checks.json`. */
interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

interface RevisionRun {
  finished: Finished;
  /** Each scenario's checks, by scenario name. */
  scenarios: Map<string, ConformanceCheck[]>;
}

function conformanceCli(): string {
  const require = createRequire(join(PROJECT_ROOT, 'package.json'));
  const manifestPath = require.resolve('@modelcontextprotocol/conformance/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: { conformance: string } };
  return join(dirname(manifestPath), manifest.bin.conformance);
}

/** One answer of the gateway to the suite, kept to hold it to the OpenAPI document. */
interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Forwards every request to the gateway with the key added, and nothing else changed: Host and
 * Origin stay as the suite sent them, so the gateway itself judges a rebound name. Answers are
 * small JSON (never a stream), so each is read whole and recorded on its way back.
 */
async function startKeyProxy(
  gatewayUrl: string,
  key: string,
  exchanges: Exchange[],
): Promise<{ port: number; server: Server }> {
  const upstream = new URL(gatewayUrl);
  const server = createServer((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const status = answer.statusCode ?? 502;
          const headers = new Headers(
            Object.entries(answer.headers).flatMap(([name, value]) =>
              typeof value === 'string' ? [[name, value] as [string, string]] : [],
            ),
          );
          exchanges.push({
            method: req.method ?? 'GET',
            url: new URL(req.url ?? '/', gatewayUrl).href,
            status,
            headers,
            text: body.toString('utf8'),
          });
          res.writeHead(status, answer.headers);
          res.end(body);
        });
      },
    );
    forwarded.on('error', (error) => res.destroy(error));
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  return { port: address.port, server };
}

let api: TestApi;
let proxy: Server;
let forward: { port: number; server: NetServer };
let outputDir: string;
const runs = new Map<Revision, RevisionRun>();
const exchanges: Exchange[] = [];

/** The suite writes <dir>/server-<scenario>-<timestamp>/checks.json for each scenario it ran. */
function readScenarios(dir: string): Map<string, ConformanceCheck[]> {
  const scenarios = new Map<string, ConformanceCheck[]>();
  for (const name of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(name)?.[1];
    if (scenario)
      scenarios.set(scenario, JSON.parse(readFileSync(join(dir, name, 'checks.json'), 'utf8')) as ConformanceCheck[]);
  }
  return scenarios;
}

beforeAll(async () => {
  const node = lambdaNode();
  // The suite's own requirement; a missing pinned Node is reported, not worked around.
  expect(Number(node.version.slice(1).split('.')[0]), node.warning).toBeGreaterThanOrEqual(22);

  api = await startTestApi();
  const tenant = uniqueTenant('conformance');
  const { key } = await api.createKey([tenant], ['mcp:*']);
  await Promise.all(['bot-a', 'bot-b'].map((id) => api.addDocument(tenant, 'bots', id, { name: `Bot ${id}` })));
  const front = await startKeyProxy(api.url, key, exchanges);
  proxy = front.server;
  // The suite's way in is a plain TCP forward on another port, as `ssh -L` or an editor's port
  // forward is: its Host names 127.0.0.1 with the forward's port, which no list of the gateway's
  // holds. The gateway must serve it (DNS-rebinding checks compare the host name), not refuse it.
  forward = await startTcpForward(front.port);

  outputDir = mkdtempSync(join(tmpdir(), 'cxm-conformance-'));
  const url = `http://127.0.0.1:${forward.port}/api/v1/mcp/tenants/${tenant}/bots`;
  const cli = conformanceCli();
  await Promise.all(
    REVISIONS.map(async (revision) => {
      const dir = join(outputDir, revision);
      const finished = await run(
        node.execPath,
        [
          cli,
          'server',
          ...['--url', url, '--requirements', revision],
          ...['--expected-failures', notApplicableList(revision), '-o', dir],
        ],
        { NO_COLOR: '1' },
        60_000,
      );
      runs.set(revision, { finished, scenarios: readScenarios(dir) });
    }),
  );
});

/** Bytes in, bytes out, between a port of its own and `port`: nothing read, nothing rewritten. */
async function startTcpForward(port: number): Promise<{ port: number; server: NetServer }> {
  const server = createNetServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the forward has no port');
  return { port: address.port, server };
}

afterAll(async () => {
  forward?.server.close();
  proxy?.close();
  proxy?.closeAllConnections();
  await api?.close();
  if (outputDir) rmSync(outputDir, { recursive: true, force: true });
});

describe('the MCP conformance suite', () => {
  it.each(REVISIONS)(
    '%s: every scenario of the requirement set passes, but those listed as not applicable, with their reasons',
    (revision) => {
      const { finished, scenarios } = runs.get(revision)!;
      const report = `${finished.stdout}\n${finished.stderr}`;
      // The suite's verdict against the list: no unexpected failure, no listed one passing.
      expect(finished.code, report).toBe(0);
      // And the heart of each era ran and passed, but for the single checks the list names.
      const listed = readFileSync(notApplicableList(revision), 'utf8');
      for (const scenario of MUST_PASS[revision]) {
        const checks = scenarios.get(scenario) ?? [];
        expect(
          checks.filter(
            (check) =>
              (check.status === 'FAILURE' || check.status === 'WARNING') &&
              !listed.includes(`- ${scenario}:${check.id}\n`),
          ),
          `${scenario}\n${report}`,
        ).toEqual([]);
        expect(
          checks.some((check) => check.status === 'SUCCESS'),
          `${scenario} ran\n${report}`,
        ).toBe(true);
      }
    },
  );

  it("every answer the suite got is one the OpenAPI document describes (the 403s, GET's 405 and notifications' 202 included)", () => {
    expect(exchanges.map((exchange) => exchange.status)).toEqual(
      expect.arrayContaining([200, 202, 400, 403, 404, 405]),
    );
    for (const { method, url, status, headers, text } of exchanges)
      expectDocumented(method, url, new Response(null, { status, headers }), text);
  });

  it("dns-rebinding-protection: a rebound Host and Origin get 403, the gateway's own get 200", () => {
    const byId = new Map(
      REVISIONS.flatMap((revision) => runs.get(revision)!.scenarios.get('dns-rebinding-protection') ?? []).map(
        (check) => [check.id, check],
      ),
    );
    expect(byId.get('localhost-host-rebinding-rejected')).toMatchObject({
      status: 'SUCCESS',
      details: { statusCode: 403, body: { code: 'PermissionDenied' } },
    });
    expect(byId.get('localhost-host-valid-accepted')).toMatchObject({
      status: 'SUCCESS',
      details: { statusCode: 200 },
    });
  });
});
