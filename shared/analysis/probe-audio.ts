/**
 * Reads a recording's own headers (music-metadata): the container is detected from the bytes, never
 * taken from the declared type, so a mislabelled file is caught. Reading stops once the headers are
 * parsed, except where a format keeps its length at the end (Ogg).
 */
import type { Readable } from 'node:stream';
import { parseStream } from 'music-metadata';
import type { AudioProbe } from '#shared/domain/voc/audio-probe';

export class NotAudioError extends Error {
  override readonly name = 'NotAudioError';
}

export async function probeAudio(body: Readable, sizeBytes: number): Promise<AudioProbe> {
  // A failure of the stream itself (the connection to storage) says nothing of the file: it is
  // thrown as it is, for the event to be retried.
  let streamError: unknown;
  body.once('error', (error) => (streamError ??= error));
  try {
    const { format } = await parseStream(
      body,
      { size: sizeBytes },
      { duration: false, skipCovers: true, skipPostHeaders: true },
    );
    if (!format.container || !format.hasAudio) throw new NotAudioError('it holds no audio this service can read');
    // A header cut short names its container but no stream: nothing an analysis could listen to.
    if (!format.numberOfChannels || !format.sampleRate)
      throw new NotAudioError(`its ${format.container} headers describe no audio stream`);
    return {
      container: format.container,
      ...(format.codec && { codec: format.codec }),
      ...(typeof format.duration === 'number' &&
        Number.isFinite(format.duration) && { durationSeconds: format.duration }),
      channels: format.numberOfChannels,
      sampleRate: format.sampleRate,
    };
  } catch (error) {
    if (streamError !== undefined) throw streamError;
    if (error instanceof NotAudioError) throw error;
    // The reader's own errors (unknown format, truncated or corrupt headers) mean the same to a caller.
    throw new NotAudioError(error instanceof Error ? error.message.replace(/\.$/, '').toLowerCase() : String(error));
  } finally {
    body.destroy();
  }
}
