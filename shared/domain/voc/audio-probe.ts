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
  // An MP4 file names its container by all its brands (`M4A/isom/mp42`): any known one will do.
  const names = probe.container.split('/');
  if (!names.some((name) => containers.includes(name))) {
    return `The file was declared ${contentType} but holds ${probe.container}${probe.codec ? ` (${probe.codec})` : ''} audio. Upload it again with its own content type.`;
  }
  return undefined;
}
