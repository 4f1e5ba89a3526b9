/**
 * The warm-overhead section in a process of its own, so that it runs on Lambda's Node while the
 * bench itself runs on this machine's (the JIT is what this section measures, and it changes
 * between majors). Started by `measureWarmOverheadOn` with the bench's environment (table names,
 * silent logs); prints progress on stderr and the section's report as JSON on stdout.
 *   node --import tsx test/bench/warm-overhead-process.ts '{"rounds":10,"batch":25,"startedAtMs":0}'
 */
import { benchProgress } from './bench-progress.ts';
import { measureWarmOverhead } from './measure-warm-overhead.ts';

const { rounds, batch, startedAtMs } = JSON.parse(process.argv[2] ?? '{}') as {
  rounds?: number;
  batch?: number;
  startedAtMs?: number;
};
if (typeof rounds !== 'number' || typeof batch !== 'number' || typeof startedAtMs !== 'number') {
  console.error(`usage: warm-overhead-process.ts '{"rounds":N,"batch":N,"startedAtMs":epoch ms}'`);
  process.exit(2);
}
const report = await measureWarmOverhead({ rounds, batch }, benchProgress(startedAtMs));
// exit: the SDK's sockets and timers would keep the process alive.
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
