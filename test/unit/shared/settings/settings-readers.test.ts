/** The readers of shared/settings that have no other test: each from an environment given, never the process's. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_VERSION_RETENTION, daysToMs } from '#shared/domain/documents/document-versions';
import { documentVersionRetention } from '#shared/settings/document-settings';
import { transcribeSettings } from '#shared/settings/recording-settings';
import { FUNCTION_ENV } from '#shared/settings/setting-names';
import { stageName } from '#shared/settings/stage-settings';
import { webhookQueueUrl } from '#shared/settings/webhook-settings';

describe('settings readers', () => {
  it('name the stage, local where nothing says', () => {
    expect(stageName({ [FUNCTION_ENV.stage]: 'prod' })).toBe('prod');
    expect(stageName({})).toBe('local');
    expect(stageName({ [FUNCTION_ENV.stage]: '' })).toBe('local');
  });

  it("read the document history's retention, refusing a value out of range by name", () => {
    expect(documentVersionRetention({})).toEqual(DEFAULT_VERSION_RETENTION);
    expect(
      documentVersionRetention({
        [FUNCTION_ENV.documentVersionsKeep]: '3',
        [FUNCTION_ENV.documentVersionsMaxAgeDays]: '30',
      }),
    ).toEqual({ keep: 3, maxAgeMs: daysToMs(30) });
    expect(() => documentVersionRetention({ [FUNCTION_ENV.documentVersionsKeep]: '0' })).toThrow(
      'CXM_DOCUMENT_VERSIONS_KEEP=0 is not valid; give a whole number from 1 to 10000.',
    );
    expect(() => documentVersionRetention({ [FUNCTION_ENV.documentVersionsMaxAgeDays]: '1e3' })).toThrow(
      /CXM_DOCUMENT_VERSIONS_MAX_AGE_DAYS=1e3 is not valid/,
    );
  });

  it("read what the processor asks of Transcribe: summaries only when the stage says 'true'", () => {
    expect(transcribeSettings({})).toEqual({ dataAccessRoleArn: '', callSummaries: false });
    expect(
      transcribeSettings({
        [FUNCTION_ENV.transcribeRoleArn]: 'arn:aws:iam::1:role/t',
        [FUNCTION_ENV.recordingCallSummaries]: 'true',
      }),
    ).toEqual({ dataAccessRoleArn: 'arn:aws:iam::1:role/t', callSummaries: true });
  });

  it("name the delivery queue's variable when it is missing", () => {
    expect(webhookQueueUrl({ [FUNCTION_ENV.webhookQueueUrl]: 'http://127.0.0.1:9/q' })).toBe('http://127.0.0.1:9/q');
    expect(() => webhookQueueUrl({})).toThrow('environment variable CXM_WEBHOOK_QUEUE_URL');
  });
});
