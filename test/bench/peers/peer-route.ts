/**
 * The route every peer handler serves: the path of our `getCurrentDocument`, in the `:name`
 * syntax Hono and Express share. Written out rather than taken from shared/api/route-table.ts,
 * which would put our route table into the peers' bundles.
 */
export const PEER_DOCUMENT_PATH = '/api/v1/provisioning/tenants/:tenantId/:collection/:docId/versions/current';
