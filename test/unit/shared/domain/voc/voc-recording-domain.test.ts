/**
 * The pure parts of VOC recordings: storage keys, job deadlines, the declared-type check, the audio
 * probe on real bytes, the choice of analysis, and the mapping of Amazon Transcribe output to row
 * fields, against the output formats AWS documents ("Post-call analytics output", compiled
 * example; "Transcribing with speaker diarization").
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tinyWav } from '#infra/cli/recordings/tiny-wav';
import { NotAudioError, probeAudio } from '#shared/analysis/probe-audio';
import { s3Location } from '#shared/analysis/transcribe-analysis';
import { shapeRow } from '#shared/domain/reporting/report-rows';
import { analysisJobName, parseAnalysisJobName } from '#shared/domain/voc/analysis-job-names';
import { chooseAnalysis } from '#shared/domain/voc/analysis-kind';
import { declaredTypeMismatch } from '#shared/domain/voc/audio-probe';
import { type CallAnalyticsOutput, callAnalyticsFields } from '#shared/domain/voc/call-analytics-row';
import { analysisOverdueReason, overdueReason, type StoredVocJob } from '#shared/domain/voc/job-status';
import { recordingRow } from '#shared/domain/voc/recording-row';
import { parseRecordingKey, recordingKey } from '#shared/domain/voc/recording-upload';
import { type TranscriptionOutput, transcriptionFields } from '#shared/domain/voc/transcription-row';

const JOB = '01M89WW6HFQDQHKJHKZ4SFBVGX';
const stream = (bytes: Buffer) => new PassThrough().end(bytes);

describe('recording keys', () => {
  it('round-trip through the key S3 reports, one folder per tenant', () => {
    const key = recordingKey('acme.eu_1-x', JOB, 'audio/mpeg');
    expect(key).toBe(`recordings/acme.eu_1-x/${JOB}.mp3`);
    expect(parseRecordingKey(key)).toEqual({ tenantId: 'acme.eu_1-x', jobId: JOB });
  });

  it.each([
    `recordings/acme/${JOB}.exe`,
    `recordings/acme/sub/${JOB}.wav`,
    `analysis/acme/${JOB}.wav`,
    `recordings/acme/${JOB.toLowerCase()}.wav`,
    `recordings/-acme/${JOB}.wav`,
    `recordings//${JOB}.wav`,
  ])('%s is no recording key', (key) => {
    expect(parseRecordingKey(key)).toBeUndefined();
  });
});

describe('job deadlines', () => {
  const deadlines = { uploadGraceMs: 60_000, processingWindowMs: 3_600_000 };
  const job = (
    upload: Partial<NonNullable<StoredVocJob['upload']>>,
    status: StoredVocJob['status'] = 'started',
  ): StoredVocJob => ({
    id: JOB,
    status,
    started: 0,
    file: 'f',
    recordingId: 'r',
    upload: { contentType: 'audio/wav', sizeBytes: 1, fileName: 'a.wav', uploadExpiresAt: 1_000_000, ...upload },
  });

  it('an upload that never came fails after its URL expired plus the grace, not before', () => {
    expect(overdueReason(job({}), 1_060_000, deadlines)).toBeUndefined();
    expect(overdueReason(job({}), 1_060_001, deadlines)).toMatch(
      /not uploaded before its upload URL expired \(1970-01-01T00:16:40\.000Z\)/,
    );
  });

  it('processing fails after its window from the arrival, however late the URL expires', () => {
    expect(overdueReason(job({ uploadedAt: 500_000 }), 4_100_000, deadlines)).toBeUndefined();
    expect(overdueReason(job({ uploadedAt: 500_000 }), 4_100_001, deadlines)).toMatch(
      /did not finish within 60 minutes/,
    );
  });

  it('a finished job, or one imported without an upload, is never overdue', () => {
    expect(overdueReason(job({}, 'completed'), Number.MAX_SAFE_INTEGER, deadlines)).toBeUndefined();
    expect(
      overdueReason(
        { id: 'j', status: 'started', started: 0, file: 'f', recordingId: 'r' },
        Number.MAX_SAFE_INTEGER,
        deadlines,
      ),
    ).toBeUndefined();
  });
});

describe('the audio probe', () => {
  it('reads a WAV file: container, codec, duration, channels', async () => {
    const wav = tinyWav(2);
    const probe = await probeAudio(stream(wav), wav.length);
    expect(probe).toEqual({ container: 'WAVE', codec: 'PCM', durationSeconds: 2, channels: 1, sampleRate: 8000 });
    expect(declaredTypeMismatch('audio/wav', probe)).toBeUndefined();
    expect(declaredTypeMismatch('audio/ogg', probe)).toMatch(/declared audio\/ogg but holds WAVE \(PCM\)/);
  });

  it('accepts an MP4 file by any of its brands', () => {
    for (const container of ['M4A/isom/mp42', 'mp41/isom', 'isom/iso2/mp41', 'M4B']) {
      expect(
        declaredTypeMismatch('audio/mp4', { container, channels: 2, sampleRate: 44100 }),
        container,
      ).toBeUndefined();
    }
    expect(declaredTypeMismatch('audio/mp4', { container: 'WAVE', channels: 1, sampleRate: 8000 })).toMatch(
      /declared audio\/mp4/,
    );
  });

  it('a failing stream (the connection to storage) is no verdict on the file: its error is thrown as it is', async () => {
    const body = new PassThrough();
    body.write(tinyWav(1).subarray(0, 12));
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    setTimeout(() => body.destroy(reset), 10);
    await expect(probeAudio(body, 16_044)).rejects.toBe(reset);
  });

  it.each([
    ['text', Buffer.from('not audio at all '.repeat(10))],
    ['zeros', Buffer.alloc(4096)],
    ['a truncated WAV header', tinyWav(1).subarray(0, 20)],
  ])('refuses %s as not audio', async (_name, bytes) => {
    await expect(probeAudio(stream(bytes), bytes.length)).rejects.toBeInstanceOf(NotAudioError);
  });
});

/** The compiled example of AWS's "Post-call analytics output" page, its elided parts left out. */
const DOCUMENTED_OUTPUT: CallAnalyticsOutput & Record<string, unknown> = {
  JobStatus: 'COMPLETED',
  LanguageCode: 'en-US',
  Transcript: [
    { Content: '[PII], my name is [PII], how can I help?', BeginOffsetMillis: 0, ParticipantRole: 'AGENT' },
    {
      Content: 'Well, I would like to cancel my recipe subscription.',
      IssuesDetected: [{ CharacterOffsets: { Begin: 7, End: 51 } }],
      BeginOffsetMillis: 5960,
      ParticipantRole: 'CUSTOMER',
    },
    {
      Content: "That's very sad to hear. Can I offer you a 50% discount to have you stay with us?",
      BeginOffsetMillis: 12180,
      ParticipantRole: 'AGENT',
    },
    { Content: 'That is a very generous offer. And I accept.', BeginOffsetMillis: 17140, ParticipantRole: 'CUSTOMER' },
    { Content: 'Thank you very much, sir. Goodbye.', BeginOffsetMillis: 40040, ParticipantRole: 'CUSTOMER' },
  ],
  Categories: {
    MatchedDetails: {
      'positive-resolution': { PointsOfInterest: [{ BeginOffsetMillis: 40040, EndOffsetMillis: 42460 }] },
    },
    MatchedCategories: [' positive-resolution'],
  } as CallAnalyticsOutput['Categories'],
  ConversationCharacteristics: {
    NonTalkTime: { TotalTimeMillis: 0 },
    Interruptions: { TotalCount: 2, TotalTimeMillis: 10700 },
    TotalConversationDurationMillis: 42460,
    Sentiment: { OverallSentiment: { AGENT: 2.5, CUSTOMER: 2.1 } },
    TalkSpeed: {
      DetailsByParticipant: { AGENT: { AverageWordsPerMinute: 150 }, CUSTOMER: { AverageWordsPerMinute: 167 } },
    },
    TalkTime: {
      DetailsByParticipant: { AGENT: { TotalTimeMillis: 32750 }, CUSTOMER: { TotalTimeMillis: 18010 } },
      TotalTimeMillis: 50760,
    },
  },
};

describe('Call Analytics output -> VOC row fields', () => {
  it('maps the documented example', () => {
    expect(callAnalyticsFields(DOCUMENTED_OUTPUT)).toEqual({
      Media: 'voice',
      Duration: 42.46,
      Category: 'positive-resolution',
      CategoriesId: 'positive-resolution',
      Sentiment: 0.42,
      SentimentExplanation: 'Amazon Transcribe Call Analytics: customer overall sentiment 2.1 on -5..5, agent 2.5.',
      // Who raised the issue and when, never its words: the VOC list holds no transcript content.
      Problems: [{ name: 'Issue detected', participant: 'CUSTOMER', offsetMillis: 5960 }],
      KPIs: [
        { name: 'Agent talk time (s)', value: 32.75 },
        { name: 'Customer talk time (s)', value: 18.01 },
        { name: 'Non-talk time (s)', value: 0 },
        { name: 'Interruptions', value: 2 },
        { name: 'Agent words per minute', value: 150 },
        { name: 'Customer words per minute', value: 167 },
      ],
    });
  });

  it('takes the generated summary when call summarization ran', () => {
    const withSummary = {
      ...DOCUMENTED_OUTPUT,
      ContactSummary: {
        AutoGenerated: { OverallSummary: { Content: ' The customer wanted to cancel; a discount kept them. ' } },
      },
    };
    expect(callAnalyticsFields(withSummary).Summary).toBe('The customer wanted to cancel; a discount kept them.');
  });

  it('an output with nothing in it still makes a valid row, every unknown field null', () => {
    const fields = callAnalyticsFields({});
    // Nothing measured is nothing claimed: no transcript is no "no problems", no KPIs no zeros.
    expect(fields).toEqual({ Media: 'voice' });
    const shaped = shapeRow(
      'voc',
      'acme',
      recordingRow(
        { id: JOB, status: 'started', started: 1767258000000, file: 'f', recordingId: `rec-${JOB}` },
        fields,
      ),
    );
    expect(shaped.row).toMatchObject({
      ID: `rec-${JOB}`,
      TenantID: 'acme',
      DatetimeUTC: '2026-01-01T09:00:00.000Z',
      Sentiment: null,
      Summary: null,
      SourceSystem: 'cxm-upload',
    });
  });

  it('clamps a sentiment outside -5..5', () => {
    expect(
      callAnalyticsFields({ ConversationCharacteristics: { Sentiment: { OverallSentiment: { CUSTOMER: -9 } } } })
        .Sentiment,
    ).toBe(-1);
  });
});

describe('Transcribe job names and output locations', () => {
  it('a job name carries stage, job and tenant, and only this stage reads it back', () => {
    const name = analysisJobName('prod', 'acme.eu-1', JOB);
    expect(name).toMatch(/^[0-9a-zA-Z._-]{1,200}$/);
    expect(parseAnalysisJobName(name, 'prod')).toEqual({ tenantId: 'acme.eu-1', jobId: JOB });
    expect(parseAnalysisJobName(name, 'dev')).toBeUndefined();
  });

  it.each([
    ['s3://b/analysis/t/j/x.json', { Bucket: 'b', Key: 'analysis/t/j/x.json' }],
    ['https://s3.eu-west-1.amazonaws.com/b/analysis/t/j/x.json', { Bucket: 'b', Key: 'analysis/t/j/x.json' }],
    ['https://b.s3.eu-west-1.amazonaws.com/analysis/t/j/x.json', { Bucket: 'b', Key: 'analysis/t/j/x.json' }],
  ])('%s', (uri, expected) => {
    expect(s3Location(uri)).toEqual(expected);
  });
});

describe('which analysis a recording gets', () => {
  const probe = { container: 'WAVE', channels: 2, sampleRate: 8000, durationSeconds: 60 };

  it('two channels: Call Analytics; mono: a transcription with speaker labels', () => {
    expect(chooseAnalysis(probe, 1_000_000)).toEqual({ kind: 'call-analytics' });
    expect(chooseAnalysis({ ...probe, channels: 1 }, 1_000_000)).toEqual({ kind: 'transcription' });
  });

  it.each([
    ['more than two channels', { ...probe, channels: 6 }, 1_000, 'The recording has 6 channels'],
    ['a sample rate under 8 kHz', { ...probe, sampleRate: 6000 }, 1_000, 'sampled at 6000 Hz'],
    ['a sample rate over 48 kHz', { ...probe, sampleRate: 96_000 }, 1_000, 'sampled at 96000 Hz'],
    ['more than 4 hours', { ...probe, durationSeconds: 4 * 3600 + 1 }, 1_000, 'lasts 240 minutes'],
    ['more than 2 GB', probe, 2_000_000_001, 'at most 2 GB'],
  ])('refuses %s, saying what to do', (_name, probed, size, reason) => {
    const choice = chooseAnalysis(probed, size);
    expect(choice).toEqual({ refused: expect.stringContaining(reason) });
  });
});

/** A diarized transcript in the documented format: two speakers, times as strings of seconds. */
const DIARIZED: TranscriptionOutput = {
  results: {
    speaker_labels: {
      speakers: 2,
      segments: [
        { speaker_label: 'spk_0', start_time: '0.5', end_time: '3.5' },
        { speaker_label: 'spk_1', start_time: '4.0', end_time: '8.0' },
        { speaker_label: 'spk_0', start_time: '7.5', end_time: '9.0' },
      ],
    },
    items: [
      ...['Acme', 'support', 'how', 'can', 'I', 'help'].map((word, i) => ({
        type: 'pronunciation',
        speaker_label: 'spk_0',
        start_time: String(0.5 + i * 0.5),
        end_time: String(1 + i * 0.5),
        word,
      })),
      { type: 'punctuation' },
      ...['my', 'order', 'arrived', 'damaged'].map((word, i) => ({
        type: 'pronunciation',
        speaker_label: 'spk_1',
        start_time: String(4 + i),
        end_time: String(4.5 + i),
        word,
      })),
    ],
  },
};

describe('Transcription output (a mono call) -> VOC row fields', () => {
  it("each speaker's talk time and words per minute, in order of first speech, and the time no one spoke", () => {
    expect(transcriptionFields(DIARIZED, 12)).toEqual({
      Media: 'voice',
      Duration: 12,
      KPIs: [
        { name: 'Speaker 1 talk time (s)', value: 4.5 },
        { name: 'Speaker 1 words per minute', value: 80 },
        { name: 'Speaker 2 talk time (s)', value: 4 },
        { name: 'Speaker 2 words per minute', value: 60 },
        // 12 s less the union of 0.5-3.5 and 4.0-9.0.
        { name: 'Non-talk time (s)', value: 4 },
      ],
    });
  });

  it('without the file length, the duration is where the last word ends; nothing heard, nothing claimed', () => {
    expect(transcriptionFields(DIARIZED).Duration).toBe(7.5);
    expect(transcriptionFields({ results: {} }, 3.25)).toEqual({ Media: 'voice', Duration: 3.25 });
    expect(transcriptionFields({})).toEqual({ Media: 'voice' });
  });

  it('a row of a transcription leaves what only Call Analytics finds null', () => {
    const shaped = shapeRow(
      'voc',
      'acme',
      recordingRow(
        { id: JOB, status: 'started', started: 1767258000000, file: 'f', recordingId: `rec-${JOB}` },
        transcriptionFields(DIARIZED, 12),
      ),
    );
    expect(shaped.row).toMatchObject({
      Duration: 12,
      Sentiment: null,
      Summary: null,
      Category: null,
      Problems: null,
      SourceSystem: 'cxm-upload',
    });
  });
});

describe("an analysis under way is the processor's to end", () => {
  const deadlines = { uploadGraceMs: 60_000, processingWindowMs: 7_200_000 };
  const submitted: StoredVocJob = {
    id: JOB,
    status: 'started',
    started: 0,
    file: 'f',
    recordingId: 'r',
    analysis: 'call-analytics',
    upload: {
      contentType: 'audio/wav',
      sizeBytes: 1,
      fileName: 'a.wav',
      uploadExpiresAt: 1000,
      uploadedAt: 500,
      analysisSubmittedAt: 600,
    },
  };

  it('the status read never fails it (Transcribe may have finished, its event lost)', () => {
    expect(overdueReason(submitted, 500 + 7_200_001, deadlines)).toBeUndefined();
  });

  it('the sweep fails it past the processing window from the arrival, not before', () => {
    expect(analysisOverdueReason(submitted, 500 + 7_200_000, deadlines)).toBeUndefined();
    expect(analysisOverdueReason(submitted, 500 + 7_200_001, deadlines)).toBe(
      'The analysis did not finish within 120 minutes of the upload. Create a new upload to try again.',
    );
  });
});
