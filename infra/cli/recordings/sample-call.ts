/**
 * A short customer call to upload as a VOC recording: two channels, the agent on the first and the
 * customer on the second, as Call Analytics takes it (an order arrived damaged, a refund, goodbye;
 * 14.7 s of synthetic English speech, 8 kHz, 16-bit FLAC, 144 KB). `cxm smoke` uploads it on a
 * stage to prove the analysis end to end, and `cxm recordings sample` writes it for a first upload.
 *
 * Made once with Debian's espeak-ng 1.51 and sox 14.4: each turn spoken
 * (`espeak-ng -v en-us -s 165` for the agent, `-v en-gb+f3` for the customer), resampled to 8 kHz
 * mono, laid on its speaker's channel with silence on the other while the other speaks and 0.3 s
 * between turns (`sox -M agent.wav customer.wav`), and written as FLAC (`sox -C 8`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../project-root.ts';

export const SAMPLE_CALL = {
  path: join(PROJECT_ROOT, 'infra/cli/recordings/sample-call.flac'),
  contentType: 'audio/flac',
  fileName: 'sample-call.flac',
  channels: 2,
} as const;

/**
 * The sample call's bytes.
 *
 * @example const flac = sampleCall(); // 143 760 bytes of two-channel FLAC
 */
export function sampleCall(): Buffer {
  return readFileSync(SAMPLE_CALL.path);
}
