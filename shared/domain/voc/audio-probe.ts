/**
 * What the processor learns by reading a recording itself, and whether that is what the upload
 * declared. A file is accepted only as readable audio in a container of its declared type.
 */
import { RECORDING_TYPES, type RecordingContentType } from './recording-upload.ts';

export interface AudioProbe {
  /** Container as the reader names it: WAVE, MPEG, M4A, FLAC, Ogg... */
  container: string;
  codec?: string;
  /** Seconds, when the file says (or its size and bit rate tell). */
  durationSeconds?: number;
  channels: number;
  sampleRate: number;
}

/** Why the probe does not fit the declared type, or undefined when it does. */
export function declaredTypeMismatch(contentType: RecordingContentType, probe: AudioProbe): string | undefined {
  const containers: readonly string[] = RECORDING_TYPES[contentType].containers;
  const family = probe.container.split('/')[0]!;
  if (!containers.includes(probe.container) && !containers.includes(family)) {
    return `The file was declared ${contentType} but holds ${probe.container}${probe.codec ? ` (${probe.codec})` : ''} audio. Upload it again with its own content type.`;
  }
  return undefined;
}
