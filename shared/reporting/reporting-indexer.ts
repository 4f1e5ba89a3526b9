/**
 * The reporting indexer, declared once like the routes: CDK builds it and its event source mapping
 * from this (infra/cdk/constructs/indexer.ts), and the local runtime hands it the reporting table's
 * stream records the same way when the local stack serves reporting from OpenSearch.
 */
export const REPORTING_INDEXER = {
  /** Its name within a stage (`cxm-<stage>-reporting-indexer`), and the principal of its calls. */
  id: 'reporting-indexer',
  handler: 'functions/indexer/index-reporting-rows.ts',
  /** Records per invocation: one bulk request carries up to this many rows. */
  batchSize: 500,
  /**
   * A failing batch is retried until its records are this old, then goes to the dead-letter queue:
   * an engine that stops answering (a node lost, a blue/green, throttling) loses no row for that
   * long. Only what a retry can change fails a batch (opensearch-index-rows.ts): a record that can
   * never be indexed is counted and passed, not retried, so it holds back no later record.
   */
  maxRecordAgeHours: 6,
} as const;
