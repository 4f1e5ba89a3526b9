/**
 * The body check's cost on hostile input: every JSON body the API keeps is
 * walked once for numbers, text and depth JSON.parse lets through. The goal: a 1 MiB worst case
 * within 50 ms and a few MB, so a hostile body costs no more than its size says.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { atMost, type Goal } from './bench-stats.ts';
import { runSectionProcess } from './run-section-process.ts';

const PROCESS_SCRIPT = fileURLToPath(new URL('body-check-process.ts', import.meta.url));
const GOAL_MS = 50;
/** "A few MB": the worst of the peak RSS growth and the heap the first check allocated, its short-lived garbage (one key list per object) included. */
const GOAL_MB = 8;

export interface BodyCheckCase {
  name: string;
  bodyMib: number;
  /** Whether the check let the body through (each case is a body the API must keep). */
  accepted: boolean;
  /** Median over the repeats. */
  ms: number;
  /** Growth of the process's peak RSS while the check ran: what a hostile body costs beyond its parse. */
  peakRssGrowthMb: number;
  /** Heap growth during the first check, its garbage included. */
  heapGrowthMb: number;
}

export interface BodyCheckFigures {
  cases: BodyCheckCase[];
  worstMs: number;
  worstMb: number;
  goal: { ms: Goal; mb: Goal };
}

export async function measureBodyCheck(
  node: string,
  repeats: number,
  track: (child: ChildProcess) => void,
): Promise<BodyCheckFigures> {
  const cases = await runSectionProcess<BodyCheckCase[]>(node, ['--expose-gc'], PROCESS_SCRIPT, { repeats }, track);
  const worstMs = Math.max(...cases.map((entry) => entry.ms));
  const worstMb = Math.max(...cases.map((entry) => Math.max(entry.peakRssGrowthMb, entry.heapGrowthMb)));
  return { cases, worstMs, worstMb, goal: { ms: atMost(worstMs, GOAL_MS), mb: atMost(worstMb, GOAL_MB) } };
}
