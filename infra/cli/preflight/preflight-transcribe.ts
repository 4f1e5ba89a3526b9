/**
 * `cxm preflight`'s Amazon Transcribe checks: whether Call Analytics answers in the region at all
 * (the recording processor starts its jobs there), and whether the region offers the generative
 * call summaries the stage asks for (infra/cdk/stage/call-summary-regions.ts; the stack refuses such a stage
 * at synth or deploy, preflight says so first). A region without Transcribe shows as no endpoint;
 * credentials or rights Transcribe refuses are reported as that, never as a missing feature.
 */
import { ListCallAnalyticsCategoriesCommand, type TranscribeClient } from '@aws-sdk/client-transcribe';
import {
  CALL_SUMMARY_REGIONS,
  callSummariesOffered,
  callSummariesRefusal,
} from '#infra/cdk/stage/call-summary-regions';
import type { StageConfig } from '#infra/cdk/stage/config';
import { checkRow, networkFailure, notChecked, type PreflightCheck } from './preflight-finding.ts';

const SERVICE_CHECK = { id: 'transcribe', name: 'Amazon Transcribe' };
const SUMMARIES_CHECK = { id: 'call-summaries', name: 'Generative call summaries' };

/**
 * Ok when Call Analytics answers in the region; blocked when the region has no Transcribe endpoint.
 *
 * @example await checkTranscribe(new TranscribeClient({}), 'eu-west-1') // { id: 'transcribe', finding: 'ok', ... }
 */
export async function checkTranscribe(transcribe: TranscribeClient, region: string): Promise<PreflightCheck> {
  try {
    await transcribe.send(new ListCallAnalyticsCategoriesCommand({ MaxResults: 1 }));
  } catch (error) {
    const network = networkFailure(error);
    if (network?.code === 'ENOTFOUND') {
      return checkRow(
        SERVICE_CHECK,
        'blocked',
        `no Amazon Transcribe endpoint in ${region} (${network.host} does not resolve): the stage's VOC recordings could never be analysed`,
        {
          fix: `deploy the stage to a region with Amazon Transcribe Call Analytics (${CALL_SUMMARY_REGIONS.join(' and ')} offer summaries too), or check --region / AWS_REGION`,
          // Nothing answered: with every other check unanswered too, the network or the region is wrong.
          checked: false,
        },
      );
    }
    return notChecked(
      SERVICE_CHECK,
      { operation: 'ListCallAnalyticsCategories', action: 'transcribe:ListCallAnalyticsCategories' },
      error,
    );
  }
  return checkRow(SERVICE_CHECK, 'ok', `Call Analytics answers in ${region}`);
}

/**
 * Ok when the stage asks for no summaries or the region offers them; blocked, with
 * `callSummariesRefusal`, when it asks for them where there are none. Reads no AWS API.
 *
 * @example checkCallSummaries(stageConfig('dev'), 'eu-west-1').finding // 'blocked'
 */
export function checkCallSummaries(config: StageConfig, region: string): PreflightCheck {
  if (!config.recordings.callSummaries)
    return checkRow(SUMMARIES_CHECK, 'ok', 'not asked for (recordings.callSummaries is false)');
  if (callSummariesOffered(region))
    return checkRow(SUMMARIES_CHECK, 'ok', `asked for (recordings.callSummaries), offered in ${region}`);
  return checkRow(
    SUMMARIES_CHECK,
    'blocked',
    `asked for (recordings.callSummaries), offered only in ${CALL_SUMMARY_REGIONS.join(' and ')}, not in ${region}`,
    {
      fix: callSummariesRefusal(config.stage, region),
    },
  );
}
