/**
 * Where a function finds the reporting search cluster: set by CDK on the indexer and on the list
 * functions of stages that use OpenSearch. Read at cold start, so a misconfigured function fails
 * loudly there instead of answering 503 to every request.
 */
export const OPENSEARCH_ENDPOINT_VAR = 'CXM_OPENSEARCH_ENDPOINT';
export const OPENSEARCH_INDEX_PREFIX_VAR = 'CXM_OPENSEARCH_INDEX_PREFIX';

export interface OpenSearchSettings {
  /** `https://<domain endpoint>`, or `http://host:port` for a local cluster. */
  endpoint: string;
  /** Indexes are `<prefix>-assistant` and `<prefix>-voc`, e.g. `cxm-<stage>-reporting`. */
  indexPrefix: string;
}

export function opensearchSettings(env: NodeJS.ProcessEnv = process.env): OpenSearchSettings {
  const read = (name: string) => {
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  };
  return { endpoint: read(OPENSEARCH_ENDPOINT_VAR), indexPrefix: read(OPENSEARCH_INDEX_PREFIX_VAR) };
}
