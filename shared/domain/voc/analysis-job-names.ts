/**
 * What a recording's analysis job is called on Amazon Transcribe and where it writes: one job per
 * VOC job, named after it (so a retried event finds the job it submitted), writing under the
 * recordings bucket's `analysis/<tenant>/<jobId>/`. The processor's IAM, its event rules and the
 * bucket's lifecycle all hold these names.
 */

/** Output of a job lands beside the recordings, under its own prefix. */
export const ANALYSIS_PREFIX = 'analysis/';

/**
 * `cxm.<stage>.<jobId>.<tenantId>`: Transcribe job names allow `[0-9a-zA-Z._-]`, which holds every
 * tenant id; the stage and job id hold no dot, so the name splits back unambiguously.
 *
 * @example analysisJobName('dev', 'acme', '01KB2D3E4F5G6H7J8K9M0N1P2Q') // 'cxm.dev.01KB2D3E4F5G6H7J8K9M0N1P2Q.acme'
 */
export function analysisJobName(stage: string, tenantId: string, jobId: string): string {
  return `${analysisJobNamePrefix(stage)}${jobId}.${tenantId}`;
}

/**
 * The prefix of every Transcribe job name of a stage.
 *
 * @example analysisJobNamePrefix('dev') // 'cxm.dev.'
 */
export function analysisJobNamePrefix(stage: string): string {
  return `cxm.${stage}.`;
}

/**
 * A job name of this stage -> its tenant and job, else undefined.
 *
 * @example parseAnalysisJobName('cxm.dev.01KB2D3E4F5G6H7J8K9M0N1P2Q.acme', 'dev') // { jobId: '01KB2D3E4F5G6H7J8K9M0N1P2Q', tenantId: 'acme' }
 */
export function parseAnalysisJobName(name: string, stage: string): { tenantId: string; jobId: string } | undefined {
  const match = /^cxm\.([a-z0-9-]+)\.([0-9A-Z]{26})\.([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(name);
  if (!match || match[1] !== stage) return undefined;
  return { jobId: match[2]!, tenantId: match[3]! };
}

/**
 * Where a job's output goes, as a key prefix of the recordings bucket.
 *
 * @example analysisOutputKey('acme', '01KB2D3E4F5G6H7J8K9M0N1P2Q') // 'analysis/acme/01KB2D3E4F5G6H7J8K9M0N1P2Q/'
 */
export function analysisOutputKey(tenantId: string, jobId: string): string {
  return `${ANALYSIS_PREFIX}${tenantId}/${jobId}/`;
}
