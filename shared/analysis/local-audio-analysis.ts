/**
 * The local stand-in for the analysis (no Amazon Transcribe here): what the audio says of itself.
 * It fills Duration and Media and leaves every field of the conversation's content (Summary,
 * Sentiment, Category, Problems, KPIs...) null, as it cannot listen.
 */
import type { RecordingAnalysis } from './recording-analysis.ts';

export function createLocalAudioAnalysis(): RecordingAnalysis {
  return {
    async start({ probe }) {
      return {
        kind: 'done',
        fields: {
          ...(probe.durationSeconds !== undefined && { Duration: Math.round(probe.durationSeconds * 1000) / 1000 }),
          Media: 'voice',
        },
      };
    },
  };
}
