/**
 * `cxm recordings sample <file>`: writes a short recording to upload as a first VOC recording, so
 * none need be at hand (the curl lines of functions/README.md upload it): by default the sample
 * call (two-channel speech, FLAC: Call Analytics on a stage), or with `--tone` a mono test tone as
 * WAV (a transcription job on a stage).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../terminal/cli-context.ts';
import { wholeNumberOption } from '../terminal/whole-number-option.ts';
import { SAMPLE_CALL, sampleCall } from './sample-call.ts';
import { tinyWav } from './tiny-wav.ts';

/**
 * Adds `cxm recordings sample` to the program, for the run `cli`.
 *
 * @example registerSampleRecordingCommand(program, cli) // then: cxm recordings sample call.flac
 */
export function registerSampleRecordingCommand(program: Command, cli: CliContext): void {
  program
    .command('recordings')
    .description('VOC recordings')
    .command('sample')
    .description(
      'write a sample recording to upload: a two-channel call as FLAC (agent left, customer right), or with --tone a mono test tone as WAV',
    )
    .argument('<file>', 'where to write it')
    .option('--tone', 'a mono test tone (16-bit PCM WAV, 8 kHz) instead of the call')
    .option('--seconds <n>', 'length of the tone in seconds, 1 to 600', '2')
    .action((file: string, options: { tone?: boolean; seconds: string }) => {
      if (!options.tone) {
        const call = sampleCall();
        writeFileSync(cli.resolvePath(file), call);
        cli.print(
          `Wrote ${file}: a two-channel call (agent left, customer right), ${SAMPLE_CALL.contentType}, ${call.length} bytes.`,
        );
        return;
      }
      const seconds = wholeNumberOption('seconds', options.seconds, 1, 600);
      const wav = tinyWav(seconds);
      writeFileSync(cli.resolvePath(file), wav);
      cli.print(`Wrote ${file}: ${seconds} s of audio/wav (a mono tone), ${wav.length} bytes.`);
    });
}
