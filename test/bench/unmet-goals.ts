/**
 * Why a goal of the bench is not met, where the cause is known: the one part of the performance
 * page (test/performance.md) kept by hand. The page prints the reason beside each goal its run
 * missed; a missed goal without one says so, so a new miss cannot pass unexplained.
 */

export interface UnmetGoalReason {
  /** The goals it explains, by their names in the bench's goal list (`goals()` in print-table.ts). */
  goals: RegExp;
  why: string;
}

export const UNMET_GOAL_REASONS: readonly UnmetGoalReason[] = [
  {
    goals: /^cold request mcpBots/,
    why:
      "With its code cache MCP's own code is read, not compiled; what its cold request pays beyond a bare read is the " +
      "official SDK's running. At its first import the SDK builds the zod schemas of the whole protocol, and at its " +
      "first validation those of the request's era, all of them: that is the run's profile's zod and most of its GC " +
      "(the bundle leaves out the Ajv the SDK's Node shims load, shared/mcp/sdk-shims.ts). The SDK's HTTP layer takes a web " +
      "`Request` and answers a web `Response`; Node's own would load all of undici, so the bundle carries " +
      "@whatwg-node/node-fetch's instead (shared/README.md); with Node's, this row measured about 1.5x. Tried and " +
      "left: zod's `jitless` (within noise, and it slows every warm validation).",
  },
  {
    goals: /^cold request list(Assistant|Voc)Conversations \(OpenSearch stage\)/,
    why:
      'The same list on a DynamoDB stage sends its queries over plain HTTP to DynamoDB Local; on an OpenSearch stage ' +
      "the first search opens a TLS connection to the domain (here the bench's HTTPS stub on loopback: the handshake " +
      "and the certificate's verification) and signs the search with SigV4, as a deployed stage does. The searches " +
      "go through the AWS SDK's HTTP handler, which the DynamoDB client has loaded already, not the platform's " +
      "fetch, whose first call loads undici (sent with fetch, these rows measured 1.37-1.48x). Node's first TLS " +
      'context alone takes 11-19 ms of CPU here, with the bundled roots or with five of them (`tls.createSecureContext`), ' +
      "so trusting fewer roots would not shorten it; on a stage the bare handler's DynamoDB call, over HTTPS, would " +
      'pay it too.',
  },
  {
    goals:
      /^cold request (createWebhookEndpoint|updateWebhookEndpoint|rotateWebhookSecret|replaceCurrentDocument|mergeCurrentDocument|restoreDocumentVersion)$/,
    why:
      'These first requests do more than a read: a registration and a rotation make and seal a signing secret ' +
      "(an X25519 key agreement, to the stage key's public key in their configuration: no Secrets Manager call) and " +
      'write it with its idempotency record; an update checks its target again; and a replace, merge or restore is ' +
      'a three-item transaction. All sit within 0.10x of the goal; ' +
      'runs of the same code here differ by up to 0.09x a row. When the registration and the rotation read their ' +
      "key from Secrets Manager, a second AWS client's first request, they measured 0.93-0.99x.",
  },
  {
    goals: /^(init|cold request) /,
    why:
      'Within the spread of two runs here (up to 0.09x a row). What the API functions carry beyond the bare ' +
      "handler is the chain itself (the route table, the chain's " +
      'middlewares, the error mapping, the store) and keepNames (esbuild, for names in stack traces, which the ' +
      "baseline and the peers are built without: the probe `baseline + the stack's esbuild settings` shows its " +
      'share); the code cache takes most of it back.',
  },
  {
    goals: /^warm overhead /,
    why:
      'What the chain adds is spread over its parts, and each part left is a rule of the contract or of the ' +
      "operations guide. Each part's share of the ratio, measured by taking it out (two source trees' chains in " +
      'one process against the bare function, requests back to back), on a get: the log context and the ' +
      "authorization 0.06, the deadline 0.03, the answer's own URL and the raw body 0.02, middy and its other steps " +
      "0.02-0.04. Alone in a loop each costs far less (the parameters' validator 0.3 µs, the log context's begin " +
      "and end 0.25 µs, a note's body parse 0.9 µs): in place, the SDK's working set leaves the CPU's caches while " +
      "a part runs, and the store call after it takes longer. The bare function's own store call takes 40-110 µs " +
      'more after an idle wait or a busy loop of 60 µs; a request invoked through the Runtime API finds the caches ' +
      'as a Lambda function does, which is why the section measures so, and back to back the ratios read 0.05-0.2 ' +
      "higher. It is not the chain's garbage (a note's chain and its bare function make as many scavenges), the " +
      "deadline's signal, the JIT's tier (TurboFan from 300 calls, or 12 000 calls of warm-up: the same spread) " +
      'or the shared SDK (each side bundled as deployed with an SDK of its own: the same). Parts with no rule ' +
      "behind them are out of the chain: Powertools' log-context middleware gives way to the request logger " +
      '(shared/http/request-logger.ts), a timer and a race per request to one timer per process ' +
      '(shared/http/run-with-deadline.ts), closures made per request (bundled with keepNames, each costs a call ' +
      "that names it), a docId's encoding and a URL parse per request to plain checks, and a note's NoteCreated " +
      "count (0.05 of its ratio) to the webhooks' fan-out, which counts it from the conversations stream. Smaller " +
      "cuts measured nothing: one key append instead of two and the common headers' names lowercased once read " +
      "1.01 ± 0.02 of the chain, a keyed note's answer text made once 1.00. Runs of the same code differ by up to " +
      "0.1 a process (the section's 'each process'). The run profiles each route that misses (under the warm " +
      "table): the chain's extra by package and by our file.",
  },
  {
    goals: /^throughput getCurrentDocument$/,
    why:
      "The local gateway's functions reach DynamoDB Local through the gate that checks each request's SigV4 signature " +
      '(infra/local/emulators/local-dynamo-gate.ts, in the same process): one more HTTP hop and a signature check per store call, ' +
      'which the bare server does not make. With the gate bypassed for an experiment, the same run met the goal; a ' +
      'signer kept per key (no signing key derived per request) gained nothing, so the hop is the cost. A deployed ' +
      'stage has no gate.',
  },
  {
    goals: /^pagination depth$/,
    why:
      'Both pages read exactly 1 001 items in one query each: the difference is DynamoDB Local seeking to a deep ' +
      "ExclusiveStartKey in its SQLite store after the run's seeding and import. DynamoDB's own cost per page does not " +
      'depend on depth.',
  },
  {
    goals: /^webhooks calm tenant p99 beside a noisy one$/,
    why:
      'A calm note waits for a free batch of the delivery mapping: its 20 batches at once (shared/webhook-functions.ts) ' +
      "are all held by the noisy tenant's receivers, 2000 ms each, and the noisy batches start together, so they end " +
      'together. The fair queue hands the calm note the first batch that ends, which can be most of one hold away. ' +
      'Traced in one run of `npm run bench -- --only webhooks` (p99 1955 ms), logging how long each task waited once ' +
      'due: calm tasks waited up to 1302 ms, each time with 19 of the 20 batches busy. The rest of a calm p99 is the ' +
      'path every note takes (the p50, about 600 ms). So the figure is at most about one hold plus that path, and the ' +
      'goal equals one hold: runs here measured 1377-2117 ms. Nothing a tenant does can preempt a batch under way; ' +
      'more batches at once, or a cap on the batches one tenant holds, would lower it.',
  },
  {
    goals: /^import peak memory$/,
    why:
      "V8's young generation on Node 24 is sized by the machine's memory; the CLI caps it (`--max-semi-space-size=16` " +
      'in its shebang), which a run that misses this goal did not start with.',
  },
];

/**
 * The reason a missed goal is missed, or undefined when none is written.
 *
 * @example whyUnmet('cold request mcpBots') // 'The first request pays for ...'
 */
export function whyUnmet(goal: string): string | undefined {
  return UNMET_GOAL_REASONS.find((reason) => reason.goals.test(goal))?.why;
}
