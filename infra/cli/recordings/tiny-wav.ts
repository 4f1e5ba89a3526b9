/**
 * A small valid WAV file (16-bit PCM, 8 kHz by default, a quiet tone on every channel): what the
 * tests upload, and `cxm recordings sample --tone` writes, for a recording of any length and number
 * of channels. The header is RIFF/WAVE as the format defines it, so any reader (ours uses
 * music-metadata) finds its duration and channels in the header.
 *
 * @example tinyWav(2) // 2 s mono; tinyWav(1, { channels: 2 }) // 1 s of two-channel audio
 */
export function tinyWav(
  seconds: number,
  { sampleRate = 8000, channels = 1 }: { sampleRate?: number; channels?: number } = {},
): Buffer {
  const frames = Math.round(seconds * sampleRate);
  const blockAlign = 2 * channels;
  const data = Buffer.alloc(frames * blockAlign);
  for (let i = 0; i < frames; i++) {
    const sample = Math.round(4000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
    for (let channel = 0; channel < channels; channel++) data.writeInt16LE(sample, i * blockAlign + channel * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
