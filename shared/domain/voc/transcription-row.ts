/**
 * Amazon Transcribe (standard, batch) output of a mono call -> VOC row fields, following the output
 * format AWS documents ("Transcribing with speaker diarization"): `results.speaker_labels.segments`
 * (who spoke when, `spk_0`, `spk_1`, times as strings of seconds) and `results.items` (each word
 * with its speaker). A mono recording cannot say which voice is the agent's, and a standard job
 * detects no sentiment, issues, categories or summary: those stay null.
 *
 * Filled: Duration (seconds: the file's own length, else the end of its last word), Media ('voice')
 * and KPIs (each speaker's talk time and words per minute, in order of first speech, and the time no
 * one spoke). Left null: everything Call Analytics adds (Sentiment, Summary, Category, Problems) and
 * what no recording says (Direction, identities, Groups, Tags, CSat, tickets).
 */
import type { RecordingAnalysisFields } from './recording-row.ts';

interface TimedSegment {
  speaker_label?: string;
  start_time?: string;
  end_time?: string;
}

interface TranscriptWord {
  type?: string;
  speaker_label?: string;
  start_time?: string;
  end_time?: string;
}

export interface TranscriptionOutput {
  results?: {
    speaker_labels?: { speakers?: number; segments?: TimedSegment[] };
    items?: TranscriptWord[];
  };
}

const seconds = (value: string | undefined): number | undefined => {
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
};
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** Total length of the union of [start, end) intervals. */
function coveredSeconds(intervals: [number, number][]): number {
  let total = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    const from = Math.max(start, reach);
    if (end > from) total += end - from;
    reach = Math.max(reach, end);
  }
  return total;
}

/**
 * The row fields of a finished transcription job; `audioSeconds` is the file's length as the
 * processor read it (a transcript ends with its last word, not with the call).
 *
 * @example transcriptionFields({ results: { items: [] } }, 12.5) // { Media: 'voice', Duration: 12.5 }
 */
export function transcriptionFields(output: TranscriptionOutput, audioSeconds?: number): RecordingAnalysisFields {
  const segments = (output.results?.speaker_labels?.segments ?? []).flatMap((segment) => {
    const start = seconds(segment.start_time);
    const end = seconds(segment.end_time);
    return segment.speaker_label && start !== undefined && end !== undefined && end >= start
      ? [{ speaker: segment.speaker_label, start, end }]
      : [];
  });
  const words = (output.results?.items ?? []).filter((item) => item.type === 'pronunciation');
  const lastWordEnd = Math.max(0, ...words.map((word) => seconds(word.end_time) ?? 0));
  const duration = audioSeconds ?? (lastWordEnd > 0 ? lastWordEnd : undefined);
  const fields: RecordingAnalysisFields = { Media: 'voice' };
  if (duration !== undefined) fields.Duration = round(duration, 3);
  if (segments.length === 0) return fields;

  const speakers = [...new Set(segments.map((segment) => segment.speaker))];
  const kpis: { name: string; value: number }[] = [];
  speakers.forEach((speaker, index) => {
    const talk = coveredSeconds(
      segments.filter((segment) => segment.speaker === speaker).map((segment) => [segment.start, segment.end]),
    );
    kpis.push({ name: `Speaker ${index + 1} talk time (s)`, value: round(talk, 3) });
    const spoken = words.filter((word) => word.speaker_label === speaker).length;
    if (talk > 0) kpis.push({ name: `Speaker ${index + 1} words per minute`, value: Math.round(spoken / (talk / 60)) });
  });
  if (duration !== undefined) {
    const talking = coveredSeconds(segments.map((segment) => [segment.start, segment.end]));
    kpis.push({ name: 'Non-talk time (s)', value: round(Math.max(0, duration - talking), 3) });
  }
  fields.KPIs = kpis;
  return fields;
}
