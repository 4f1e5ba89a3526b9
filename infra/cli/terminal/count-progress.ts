/**
 * The CLI's one progress renderer for its long counted runs (`cxm import`, `cxm keys sync`,
 * `cxm seed`, `cxm reporting recount`), on stderr (stdout keeps only the summary line): on a
 * terminal one line redrawn in place a few times a second; elsewhere (CI logs, a file) a plain
 * line every few seconds, so a long run shows it is alive without flooding the log, and one that
 * ends within the first interval prints nothing at all.
 */
import type { CliOutput } from './cli-io.ts';

export interface ProgressOptions {
  /** What is being done, e.g. `checking`, `importing` or `seeding`. */
  label: string;
  /** The count that means done, when known (for the ETA). */
  total?: number;
  /** Counted in bytes (the first pass of an import reads the file) or items. */
  unit: 'bytes' | 'items';
  /** On a terminal: one line redrawn in place. */
  tty: boolean;
  /** Milliseconds between plain lines when not on a terminal. */
  everyMs?: number;
  /** Anything else worth a line's end (e.g. writes throttled so far), when there is. */
  detail?: () => string | undefined;
  /** Where the line goes: stderr (progressOn). */
  write: (text: string) => void;
}

export interface Progress {
  /** The count so far (absolute, not an increment). */
  update(done: number): void;
  /** Final figures; a `note` (e.g. a resume) goes at the end of the line, and is shown even after a short run. */
  finish(note?: string): void;
}

const REDRAW_MS = 200;

/**
 * Where a progress line goes, and whether it is redrawn there: the run's stderr.
 *
 * @example countProgress({ label: 'seeding', unit: 'items', total, ...progressOn(cli.stderr) })
 */
export function progressOn(output: CliOutput): Pick<ProgressOptions, 'tty' | 'write'> {
  return { tty: output.isTTY === true, write: (text) => output.write(text) };
}

function amount(n: number, unit: ProgressOptions['unit']): string {
  return unit === 'bytes' ? `${(n / 1_048_576).toFixed(n >= 10_485_760 ? 0 : 1)} MB` : String(n);
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes} min ${Math.round(seconds % 60)} s`
    : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * `from`: the count the run started at (a resumed import starts past what an earlier run stored),
 * so the rate and ETA count only this run's work.
 */
export function countProgress(options: ProgressOptions, from = 0): Progress {
  const { label, total, unit, tty, write, everyMs = 5_000 } = options;
  const started = performance.now();
  let shownAt = started;
  let shown = false;
  let done = from;

  const line = () => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? (done - from) / seconds : 0;
    const perSecond = unit === 'bytes' ? `${amount(rate, unit)}/s` : `${Math.round(rate)} items/s`;
    const of = total === undefined ? '' : ` of ${amount(total, unit)}`;
    const percent = total ? ` (${Math.floor((100 * done) / total)}%)` : '';
    const eta =
      total !== undefined && rate > 0 && done < total ? `, about ${duration((total - done) / rate)} left` : '';
    const detail = options.detail?.();
    return `${label}: ${amount(done, unit)}${of}${unit === 'items' ? ' items' : ''}${percent}, ${perSecond}${eta}${detail ? `; ${detail}` : ''}`;
  };

  const draw = (final: boolean, note = '') => {
    if (tty) write(`\r${line()}${note}\x1b[K${final ? '\n' : ''}`);
    else write(`${line()}${note}\n`);
    shown = true;
  };

  return {
    update(count) {
      done = count;
      const now = performance.now();
      if (now - shownAt < (tty ? REDRAW_MS : everyMs)) return;
      shownAt = now;
      draw(false);
    },
    finish(note) {
      // A short run that showed nothing stays quiet unless there is news; one that did ends on its final figures.
      if (shown || note || options.detail?.() || (tty && performance.now() - started >= REDRAW_MS))
        draw(true, note ? `; ${note}` : '');
    },
  };
}
