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
      "With its code cache MCP's own code is read, not compiled; what its cold request still pays is Node's: the " +
      "official SDK's HTTP transport takes a web `Request`, and the first one of a process loads Node's fetch " +
      'implementation (undici) and its encoding and stream modules, which Node compiles from its own cache and no ' +
      'cache of ours can hold. Profile of one cold request with the cache (`--cpu-prof`, 100 µs samples, Node ' +
      "24.21.0, warm-up request against refused endpoints): 184 ms sampled, of which Node's built-in modules loaded " +
      'on demand 70 ms inclusive (`compileForInternalLoader`; undici 22 ms, the `TextDecoder` getter 30 ms), the bundle ' +
      "running (the SDK's zod schemas and request handling) 74 ms inclusive, compiling the bundle with the cache " +
      '(`vm.Script`) 12 ms, GC 17 ms. Neither of the first two is ours to cut while the SDK serves the request.',
  },
  {
    goals: /^cold request list(Assistant|Voc)Conversations \(OpenSearch stage\)/,
    why:
      'The same list on a DynamoDB stage meets its goal in the same run; on an OpenSearch stage the first search ' +
      "opens a TLS connection to the domain (here the bench's HTTPS stub on loopback: the handshake and the " +
      "certificate's verification) and signs it with SigV4, and the first page's cursor is signed with keys read " +
      'from Secrets Manager. A deployed domain costs the same handshake.',
  },
  {
    goals:
      /^cold request (createWebhookEndpoint|updateWebhookEndpoint|rotateWebhookSecret|replaceCurrentDocument|mergeCurrentDocument|restoreDocumentVersion)$/,
    why:
      "These first requests do more than a read: a registration resolves the target's host (its warm-up request's " +
      "example host resolves nowhere, so its cache stops at that check and the store's write is compiled on the " +
      'first request) and seals a new signing secret, a rotation reads the sealing key from Secrets Manager and ' +
      'seals one, an update checks its target again, and a replace, merge or restore is a three-item transaction. ' +
      'All but the registration sit within 0.10x of the goal; runs of the same code here differ by up to 0.09x a row.',
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
      "The chain's per-request work against a bare function that does none of it: about 60 µs over the bare " +
      "function's 230-260. Profiled (`--cpu-prof` of the section's process, self time of our chain's modules over " +
      "the run): Powertools' Logger and commons a quarter (the Lambda context's keys, the per-request keys and their " +
      "reset, the log level's refresh), middy's request object, the response headers, the JSON body's parse and " +
      "its faithfulness check, the validators, the metric, the deadline and, keyed, the Idempotency-Key's " +
      "fingerprint; no single part is more than a quarter. Getting within 1.10x means a chain without Powertools' " +
      'per-request logger and without middy, which this issue did not take on.',
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
