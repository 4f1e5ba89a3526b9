// Makes the V8 code cache of function assets (compile-cache.ts runs it on the stage's pinned Node,
// with Lambda's options): `node make-compile-cache.cjs <asset folder>...`. With one folder it loads
// that asset's entry, which compiles and runs the bundle, has it answer the warm-up request in
// `<folder>.warm-up.json` if there is one (warm-up-requests.ts), and writes what V8 compiled
// meanwhile to the folder's bundle.cache; with several, it runs itself once per folder, as many at
// a time as there are cores, since each asset must be loaded in a process of its own.
//
// The warm-up's AWS calls reach a server of this process on loopback that answers as a stage
// holding what COMPILE_CACHE_ITEMS says would (answerAsWarmUpStage): a GetItem of one of its tables
// finds the key it asked for with that table's attributes, and every other read finds nothing. So
// the request runs past its store calls: the cache then holds the SDK's way back with an answer and
// the handler's code after it, which a refused connection left to the first real request. The
// variables named in COMPILE_CACHE_ANSWERED point at it; COMPILE_CACHE_SECRET is the value every
// secret read gets.
'use strict';
const { execFile } = require('node:child_process');
const { createServer } = require('node:http');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const { join } = require('node:path');
const { promisify } = require('node:util');

const folders = process.argv.slice(2);

/** Lambda's context for the warm-up: the chain arms its deadline from the time left. */
const CONTEXT = {
  functionName: 'compile-cache-warm-up',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:compile-cache-warm-up',
  memoryLimitInMB: '1024',
  awsRequestId: 'compile-cache-warm-up',
  logGroupName: 'compile-cache-warm-up',
  logStreamName: 'compile-cache-warm-up',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 5_000,
  done() {},
  fail() {},
  succeed() {},
};

async function warmUp(entry, folder) {
  const file = `${folder}.warm-up.json`;
  if (!existsSync(file)) return;
  try {
    await entry.handler(JSON.parse(readFileSync(file, 'utf8')), CONTEXT);
  } catch {
    // An answer or an error: the code on the way to either is what the cache takes.
  }
}

const SEARCH_ANSWER = {
  took: 0,
  timed_out: false,
  _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
  hits: { total: { value: 0, relation: 'eq' }, hits: [] },
};

/** DynamoDB's answers that are not `{}`: the reads of many items find none. */
const DYNAMODB_ANSWERS = {
  Query: { Items: [], Count: 0, ScannedCount: 0 },
  Scan: { Items: [], Count: 0, ScannedCount: 0 },
  BatchGetItem: { Responses: {}, UnprocessedKeys: {} },
  TransactGetItems: { Responses: [] },
};

/** [status, body] for one AWS call: its service by the `X-Amz-Target` header, or the path for a search. */
function warmUpStageAnswer(target, path, body, { secret, items }) {
  const [service, operation] = (target ?? '').split('.');
  if (service === 'DynamoDB_20120810' && operation === 'GetItem') {
    const { TableName, Key } = JSON.parse(body || '{}');
    return [200, items[TableName] ? { Item: { ...items[TableName], ...Key } } : {}];
  }
  if (service === 'DynamoDB_20120810') return [200, DYNAMODB_ANSWERS[operation] ?? {}];
  if (service === 'secretsmanager' && operation === 'GetSecretValue') {
    const { SecretId, VersionStage } = JSON.parse(body || '{}');
    // A secret never rotated has no previous version.
    if (VersionStage === 'AWSPREVIOUS')
      return [400, { __type: 'ResourceNotFoundException', message: 'no AWSPREVIOUS version' }];
    return [
      200,
      { ARN: SecretId, Name: 'warm-up', SecretString: secret, VersionId: 'warm-up', VersionStages: ['AWSCURRENT'] },
    ];
  }
  if (path.endsWith('/_search')) return [200, SEARCH_ANSWER];
  return [400, { __type: 'UnknownOperationException', message: `the warm-up answers no ${target ?? path}` }];
}

/** DynamoDB speaks AWS JSON 1.0, Secrets Manager 1.1, a search domain plain JSON. */
function contentType(target) {
  if (!target) return 'application/json';
  return target.startsWith('DynamoDB_') ? 'application/x-amz-json-1.0' : 'application/x-amz-json-1.1';
}

/** Starts the server and points the variables named in COMPILE_CACHE_ANSWERED at it. */
async function answerAsWarmUpStage() {
  const names = (process.env.COMPILE_CACHE_ANSWERED ?? '').split(',').filter(Boolean);
  const stage = {
    secret: process.env.COMPILE_CACHE_SECRET ?? '',
    items: JSON.parse(process.env.COMPILE_CACHE_ITEMS ?? '{}'),
  };
  delete process.env.COMPILE_CACHE_ANSWERED;
  delete process.env.COMPILE_CACHE_SECRET;
  delete process.env.COMPILE_CACHE_ITEMS;
  if (names.length === 0) return;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      const [status, answer] = warmUpStageAnswer(target, request.url ?? '/', Buffer.concat(chunks).toString(), stage);
      response.writeHead(status, { 'content-type': contentType(target) });
      response.end(JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  for (const name of names) process.env[name] = `http://127.0.0.1:${server.address().port}`;
}

async function makeOne(folder) {
  await answerAsWarmUpStage();
  const entry = require(join(folder, 'index.cjs'));
  // What the bundle set going at load (a list's search client) runs before the request.
  await new Promise((resolve) => setImmediate(resolve));
  await warmUp(entry, folder);
  writeFileSync(join(folder, 'bundle.cache'), entry.bundleScript.createCachedData());
}

async function makeAll() {
  const run = promisify(execFile);
  const queue = [...folders];
  const worker = async () => {
    for (let folder = queue.shift(); folder; folder = queue.shift()) {
      try {
        await run(process.execPath, [...process.execArgv, __filename, folder], { timeout: 60_000 });
      } catch (error) {
        throw new Error(`no compile cache for ${folder}: its bundle failed to load\n${error.stderr ?? error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), folders.length) }, worker));
}

if (require.main === module) {
  // Exits once done: a bundle that ran may have left timers or sockets behind.
  (folders.length === 1 ? makeOne(folders[0]) : makeAll()).then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}

// For the tests: what the warm-up's stage answers a call.
module.exports = { warmUpStageAnswer };
