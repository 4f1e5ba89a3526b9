/**
 * The Runtime API stand-in the warm-overhead section invokes each request through: the event of
 * every invocation under a request id of its own, the answer taken back, and nothing else served.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BENCH_ROUTES, benchEvent } from '#test/bench/bench-requests';
import { type RuntimeApi, startRuntimeApi } from '#test/bench/runtime-api-stand-in';

const event = benchEvent(BENCH_ROUTES[0]!);
let runtime: RuntimeApi;

beforeAll(async () => {
  runtime = await startRuntimeApi(event);
});
afterAll(() => runtime.close());

it('hands out the event at every next, each under a new request id, and takes each answer', async () => {
  const first = await runtime.next();
  const second = await runtime.next();
  expect(first.event).toEqual(JSON.parse(JSON.stringify(event)));
  expect(second.event).toEqual(first.event);
  expect(second.event).not.toBe(first.event);
  expect(new Set([first.requestId, second.requestId]).size).toBe(2);
  await expect(runtime.respond(first.requestId, { statusCode: 200, body: '{}' })).resolves.toBeUndefined();
});

it('refuses an answer to no invocation path', async () => {
  await expect(runtime.respond('a/b', { statusCode: 200, body: '{}' })).rejects.toThrow('Runtime API response: 404');
});

it('serves nothing once closed', async () => {
  const closed = await startRuntimeApi(event);
  await closed.next();
  closed.close();
  await expect(closed.next()).rejects.toThrow();
});
