// One Lambda execution environment of bundle mode (infra/local/runtime/function-pool.ts starts it on
// Lambda's Node, in the function's code directory, with the function's environment). Plain
// JavaScript on purpose: it runs on the bare Node that runs the bundle, without tsx.
//
// As Lambda's Node runtime does: the handler module (`_HANDLER`, `index.handler`) is imported once
// (init), then invocations arrive one at a time; each gets the event and a context whose
// getRemainingTimeInMillis counts down to the function's timeout. The handler's promise settles the
// invocation; a thrown error becomes a function error ({errorType, errorMessage, trace}).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const send = (message) => process.send?.(message);

function describeError(error) {
  if (error instanceof Error)
    return {
      errorType: error.name || 'Error',
      errorMessage: error.message,
      trace: String(error.stack ?? '').split('\n'),
    };
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

/** `index.handler` -> the file Lambda would load (`index.mjs`, `.js` or `.cjs` in the task root) and its export. */
function locateHandler(handlerSetting, taskRoot) {
  const at = handlerSetting.lastIndexOf('.');
  if (at <= 0)
    throw Object.assign(new Error(`Bad handler ${handlerSetting}: expected <module>.<export>`), {
      name: 'Runtime.MalformedHandlerName',
    });
  const base = handlerSetting.slice(0, at);
  const exportName = handlerSetting.slice(at + 1);
  const file = ['.mjs', '.js', '.cjs']
    .map((ext) => join(taskRoot, base + ext))
    .find((candidate) => existsSync(candidate));
  if (!file)
    throw Object.assign(new Error(`Cannot find module '${base}' in ${taskRoot}`), {
      name: 'Runtime.ImportModuleError',
    });
  return { file, exportName };
}

let handler;

async function init() {
  const started = performance.now();
  try {
    const { file, exportName } = locateHandler(
      process.env._HANDLER ?? '',
      process.env.LAMBDA_TASK_ROOT ?? process.cwd(),
    );
    const module = await import(pathToFileURL(file).href);
    handler = module[exportName];
    if (typeof handler !== 'function') {
      throw Object.assign(new Error(`${process.env._HANDLER} is undefined or not exported`), {
        name: 'Runtime.HandlerNotFound',
      });
    }
    send({ type: 'ready', initMs: performance.now() - started });
  } catch (error) {
    send({ type: 'init-error', initMs: performance.now() - started, error: describeError(error) });
  }
}

function contextFor(invocation) {
  const { deadline, ...fields } = invocation.context;
  return {
    ...fields,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    // Lambda's Node 24 runtime does not offer the callback-era completion methods; they throw if used.
    done: () => {
      throw new Error('context.done is not supported: return a promise from the handler');
    },
    fail: () => {
      throw new Error('context.fail is not supported: throw from the handler');
    },
    succeed: () => {
      throw new Error('context.succeed is not supported: return a promise from the handler');
    },
  };
}

/** Lambda's bound on a synchronous invocation's response; past it the invocation is a function error. */
const MAX_RESPONSE_BYTES = 6291556;

process.on('message', async (message) => {
  if (message?.type !== 'invoke') return;
  const started = performance.now();
  try {
    const result = await handler(message.event, contextFor(message));
    // Serialised here, once: Lambda measures the JSON it would send, and the pool parses it.
    const json = JSON.stringify(result ?? null);
    if (Buffer.byteLength(json) > MAX_RESPONSE_BYTES) {
      const errorMessage = `Response payload size exceeded maximum allowed payload size (${MAX_RESPONSE_BYTES} bytes).`;
      send({
        type: 'error',
        id: message.id,
        error: { errorType: 'Function.ResponseSizeTooLarge', errorMessage, trace: [] },
        durationMs: performance.now() - started,
        maxRssKb: process.resourceUsage().maxRSS,
      });
      return;
    }
    send({
      type: 'result',
      id: message.id,
      json,
      durationMs: performance.now() - started,
      maxRssKb: process.resourceUsage().maxRSS,
    });
  } catch (error) {
    send({
      type: 'error',
      id: message.id,
      error: describeError(error),
      durationMs: performance.now() - started,
      maxRssKb: process.resourceUsage().maxRSS,
    });
  }
});

// What escapes the handler kills the environment, as in Lambda (Runtime.ExitError for the request).
const crash = (code) => (error) => {
  if (process.send) process.send({ type: 'crash', error: describeError(error) }, () => process.exit(code));
  else process.exit(code);
};
process.on('uncaughtException', crash(129));
process.on('unhandledRejection', crash(128));
// The pool ends the environment by closing the channel (or killing it, past a timeout).
process.on('disconnect', () => process.exit(0));

await init();
