/**
 * The body-check section in a process of its own, on Lambda's Node with `--expose-gc`: each hostile
 * body of about 1 MiB is parsed, the heap collected, and then only the check runs, so its time and
 * the peak memory it adds are its own. Prints the cases as JSON on stdout.
 *   node --expose-gc --import tsx test/bench/body-check-process.ts '{"repeats":5}'
 */
import { describeUnfaithfulJson } from '#shared/domain/json/describe-unfaithful-json';
import { median, round } from './bench-stats.ts';
import type { BodyCheckCase } from './measure-body-check.ts';

const MIB = 1024 * 1024;

/** Hostile bodies as a client could send them, each filling about 1 MiB (the API's body limit is larger than none of them need). */
function hostileBodies(): Array<{ name: string; text: string }> {
  const zeros = (count: number) => Array(count).fill('0').join(',');
  const deepArrays = `${'['.repeat(99)}[${zeros(520_000)}]${']'.repeat(99)}`;
  const wideObject = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
  const deepObjects = `[${Array(9_000)
    .fill(`${'{"a":'.repeat(9)}[0]${'}'.repeat(9)}`)
    .join(',')}]`;
  const longText = JSON.stringify({ text: 'é'.repeat(MIB / 2) });
  return [
    { name: '100 nested arrays holding 520 000 zeros', text: deepArrays },
    { name: 'one object of 60 000 members', text: wideObject },
    { name: '9 000 objects nested 10 deep', text: deepObjects },
    { name: 'one string of 512 Ki characters', text: longText },
  ];
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('body-check-process.ts needs --expose-gc');
  process.exit(2);
}
const { repeats } = JSON.parse(process.argv[2] ?? '{}') as { repeats?: number };
if (typeof repeats !== 'number') {
  console.error(`usage: body-check-process.ts '{"repeats":N}'`);
  process.exit(2);
}

const cases: BodyCheckCase[] = [];
for (const { name, text } of hostileBodies()) {
  let body: unknown = JSON.parse(text);
  gc();
  // Memory from the first check, the one a request pays: maxRSS is the process's peak in KB, so
  // its growth is what the check added; the heap's growth counts its garbage too.
  const peakBefore = process.resourceUsage().maxRSS;
  const heapBefore = process.memoryUsage().heapUsed;
  const verdict = describeUnfaithfulJson(body);
  const heapAfter = process.memoryUsage().heapUsed;
  const peakAfter = process.resourceUsage().maxRSS;
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const started = performance.now();
    describeUnfaithfulJson(body);
    times.push(performance.now() - started);
  }
  cases.push({
    name,
    bodyMib: round(Buffer.byteLength(text) / MIB),
    accepted: verdict === undefined,
    ms: round(median(times), 1),
    peakRssGrowthMb: round((peakAfter - peakBefore) / 1024, 1),
    heapGrowthMb: round(Math.max(0, heapAfter - heapBefore) / MIB, 1),
  });
  body = undefined;
}
process.stdout.write(`${JSON.stringify(cases)}\n`, () => process.exit(0));
