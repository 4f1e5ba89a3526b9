/**
 * `cxm recordings sample <file>`: writes a short test tone as a WAV file, so a first VOC upload
 * needs no recording at hand (the curl lines of functions/README.md upload it; `cxm smoke` uploads
 * the same).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { tinyWav } from './tiny-wav.ts';
import { wholeNumberOption } from './whole-number-option.ts';

export function registerSampleRecordingCommand(program: Command): void {
  program
    .command('recordings')
    .description('VOC recordings')
    .command('sample')
    .description('write a test tone as a WAV file (16-bit PCM, mono, 8 kHz) to upload as a VOC recording')
    .argument('<file>', 'where to write it')
    .option('--seconds <n>', 'length in seconds, 1 to 600', '2')
    .action((file: string, options: { seconds: string }) => {
      const seconds = wholeNumberOption('seconds', options.seconds, 1, 600);
      const wav = tinyWav(seconds);
      writeFileSync(file, wav);
      console.log(`Wrote ${file}: ${seconds} s of audio/wav, ${wav.length} bytes.`);
    });
}
