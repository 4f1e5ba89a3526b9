/**
 * The bench's progress lines on stderr, `[bench  12 s] message`, timed from the start of the run.
 * The start is an epoch time rather than `performance.now()`, so that a child process of the bench
 * (test/bench/warm-overhead-process.ts) prints on the same clock.
 */
export type Progress = (message: string) => void;

export function benchProgress(startedAtMs: number): Progress {
  return (message) =>
    process.stderr.write(`[bench ${((Date.now() - startedAtMs) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
}
