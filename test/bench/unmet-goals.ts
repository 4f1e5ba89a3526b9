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
    goals: /^(init|cold request) mcpBots/,
    why:
      "The first request pays for Node's fetch implementation (the first web `Request` of the process, 74-104 ms of CPU " +
      "under `--cpu-prof`) and the MCP SDK's module evaluation (about 64 ms, most of it its zod schemas). Neither can be " +
      'cut while the official SDK serves the request: both its HTTP entries take a web `Request`, and its schemas are ' +
      'built when it loads. Issue 45 (a compile cache shipped with each function) is the lead.',
  },
  {
    goals: /^(init|cold request) list(Assistant|Voc)Conversations/,
    why:
      "An export's first page signs a cursor with keys read from Secrets Manager on the first request (two " +
      'GetSecretValue calls through Powertools Parameters and the SDK client, about 0.1x); a DynamoDB list also counts ' +
      "its window with several queries, and an OpenSearch stage's pays SigV4 and a TLS handshake to the stub.",
  },
  {
    goals: /^(init|cold request) /,
    why:
      "What the API functions carry beyond the middy + Powertools peer is the chain itself (the route table, the chain's " +
      'middlewares, the error mapping, the store: some 35 KB) and Powertools Metrics, about 3 ms of init CPU, the size of ' +
      "the run-to-run noise here; rows other than getCurrentDocument's also do more on their first request than the " +
      "peers' GetItem (a write is a transaction). Our bundles keep their names (esbuild's keepNames, for stack traces), " +
      "which the baseline and the peers are built without: the probe `baseline + the stack's esbuild settings` shows " +
      'its share. Issue 45 is the lead.',
  },
  {
    goals: /^warm overhead /,
    why:
      "The chain's per-request work (the event copy, middy's request object, the log keys' merge, a counted metric, the " +
      'deadline, the Idempotency-Key fingerprint) against a bare function that does none of it; runs of this section ' +
      'alone differ by 20 µs and more on this VM.',
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
    why: 'The import at 500 000 rows on Node 24 grew past the goal; finding what grew is part of issue 45.',
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
