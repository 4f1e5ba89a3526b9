/**
 * What a recording upload is: the audio types the analysis accepts, where a tenant's recording is
 * stored, and how long its job may wait. Object keys hold only characters that need no encoding
 * (tenant ids are `[A-Za-z0-9._-]`, job ids ULIDs, the extension ours), so the key S3 reports in its
 * event is the key we signed, whatever the client called the file.
 */

/** Declared content type -> the containers a file of that type may hold, and the key's extension. */
export const RECORDING_TYPES = {
  'audio/wav': { extension: 'wav', containers: ['WAVE'] },
  'audio/mpeg': { extension: 'mp3', containers: ['MPEG'] },
  // ISO base media brands an audio MP4 is written with (music-metadata names the container by them).
  'audio/mp4': {
    extension: 'm4a',
    containers: [
      'M4A',
      'M4B',
      'MPEG-4',
      'mp41',
      'mp42',
      'isom',
      'iso2',
      'iso4',
      'iso5',
      'iso6',
      'dash',
      'f4a',
      'qt',
      '3gp4',
      '3gp5',
      '3gp6',
      '3g2a',
    ],
  },
  'audio/flac': { extension: 'flac', containers: ['FLAC'] },
  'audio/ogg': { extension: 'ogg', containers: ['Ogg'] },
} as const satisfies Record<string, { extension: string; containers: readonly string[] }>;

export type RecordingContentType = keyof typeof RECORDING_TYPES;
export const RECORDING_CONTENT_TYPES = Object.keys(RECORDING_TYPES) as RecordingContentType[];

/** Every recording object lives under this prefix, one folder per tenant. */
export const RECORDINGS_PREFIX = 'recordings/';

/**
 * The stage defaults: 500 MB, a URL valid 15 minutes, and 20 minutes of grace after it before a job
 * whose file never came is failed: longer than the processor's events may wait (15 minutes,
 * infra/cdk/constructs/recordings.ts), so a file that came in time is never failed as missing.
 */
export const DEFAULT_RECORDING_LIMITS = { maxBytes: 500_000_000, uploadUrlTtlSeconds: 900, uploadGraceSeconds: 1200 };

export function recordingKey(tenantId: string, jobId: string, contentType: RecordingContentType): string {
  return `${RECORDINGS_PREFIX}${tenantId}/${jobId}.${RECORDING_TYPES[contentType].extension}`;
}

/** `recordings/<tenant>/<jobId>.<ext>` -> its tenant and job, or undefined for any other key. */
export function parseRecordingKey(key: string): { tenantId: string; jobId: string } | undefined {
  const match = /^recordings\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})\/([0-9A-HJKMNP-TV-Z]{26})\.([a-z0-9]{1,5})$/.exec(key);
  if (!match) return undefined;
  const [, tenantId, jobId, extension] = match;
  if (!Object.values(RECORDING_TYPES).some((type) => type.extension === extension)) return undefined;
  return { tenantId: tenantId!, jobId: jobId! };
}

export function isRecordingContentType(value: string): value is RecordingContentType {
  return Object.hasOwn(RECORDING_TYPES, value);
}

/** Human size for messages: `500 MB` (decimal units, as S3 and most tools print them). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1 && Number.isInteger(value / 1000)) {
    value /= 1000;
    unit++;
  }
  return `${value} ${units[unit]}`;
}
