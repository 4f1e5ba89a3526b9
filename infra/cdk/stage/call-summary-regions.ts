/**
 * Where Amazon Transcribe Call Analytics offers generative call summaries (the VOC row's `Summary`):
 * AWS names US East (N. Virginia) and US West (Oregon), for English calls only (Amazon Transcribe
 * Developer Guide, "Generative call summarization"; checked 2026-11-26). A stage that asks for
 * summaries elsewhere is refused: at synth when its region is known, else by the template's rule
 * when CloudFormation meets the region (recordings.ts), and by `cxm preflight` before either.
 */
export const CALL_SUMMARY_REGIONS: readonly string[] = ['us-east-1', 'us-west-2'];

/**
 * Whether a region offers generative call summaries.
 *
 * @example callSummariesOffered('eu-west-1') // false
 */
export function callSummariesOffered(region: string): boolean {
  return CALL_SUMMARY_REGIONS.includes(region);
}

/** What to do when a stage asks for summaries where there are none, in one sentence. */
export function callSummariesRefusal(stage: string, region: string): string {
  return (
    `stage ${stage} asks for generative call summaries (recordings.callSummaries), which Amazon Transcribe offers only in ${CALL_SUMMARY_REGIONS.join(' and ')}, not in ${region}: ` +
    `set recordings.callSummaries to false for this stage in infra/cdk/stage/config.ts (rows then have no Summary), or deploy it to one of those regions`
  );
}
