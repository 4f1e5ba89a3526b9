/**
 * The application's own CloudWatch metrics (namespace `CXM`, dimensions `service` and `stage`):
 * written by the functions as EMF log lines (metrics.ts), read by the dashboard and alarms
 * (infra/cdk/constructs/observability.ts). Free of imports, so infra can read it without Powertools.
 */
export const METRICS_NAMESPACE = 'CXM';

export const APP_METRICS = {
  /**
   * An internal note committed: counted by the webhooks' fan-out from the conversations stream,
   * once per note record it keeps (shared/webhooks/run-webhook-functions.ts), not by the note's function.
   */
  noteCreated: 'NoteCreated',
  /** A caller refused: the authorizer's 401s, and the chain's 401 and 403. */
  authFailure: 'AuthFailure',
  /**
   * Every 503 ServiceUnavailable of ours: a store stayed throttled, or unavailable (conflicts, AWS
   * unavailable errors), through its retries. Emitted as `Throttled`, the name it had when it only
   * meant throttling: the README and the dashboards know it by that name.
   */
  serviceUnavailable: 'Throttled',
  /**
   * A reporting row the indexer gave up on: its stream record is no reporting row, or the engine
   * refuses its document as it is. The lists lack it until it is written again.
   */
  reportingRowNotIndexed: 'ReportingRowNotIndexed',
} as const;

/**
 * A new environment's init, by what its compile cache did (dimension `compileCache`: accepted,
 * rejected, absent): counted from the entry's init line by a metric filter on each function's log
 * group (infra/cdk/constructs/api-function.ts), not written by the functions.
 */
export const INIT_METRIC = 'FunctionInit';

export type AppMetric = (typeof APP_METRICS)[keyof typeof APP_METRICS];
