/**
 * One route of the warm-overhead section in a process of its own, as Lambda runs one function per
 * route, and on Lambda's Node while the bench itself runs on this machine's (the JIT is what this
 * section measures, and it changes between majors). Started by `measureWarmOverheadOn` with the
 * bench's environment (table names, silent logs); prints progress on stderr and the route's entry
 * as JSON on stdout.
 *   node --import tsx test/bench/warm-overhead-process.ts '{"rounds":10,"batch":25,"route":"addInternalNote","startedAtMs":0}'
 */
import { benchProgress } from './bench-progress.ts';
import { measureWarmOverhead } from './measure-warm-overhead.ts';

const { rounds, batch, route, startedAtMs } = JSON.parse(process.argv[2] ?? '{}') as {
  rounds?: number;
  batch?: number;
  route?: string;
  startedAtMs?: number;
};
if (
  typeof rounds !== 'number' ||
  typeof batch !== 'number' ||
  typeof route !== 'string' ||
  typeof startedAtMs !== 'number'
) {
  console.error(
    `usage: warm-overhead-process.ts '{"rounds":N,"batch":N,"route":"getCurrentDocument","startedAtMs":epoch ms}'`,
  );
  process.exit(2);
}
const entry = await measureWarmOverhead({ rounds, batch, route }, benchProgress(startedAtMs));
// exit: the SDK's sockets and timers would keep the process alive.
process.stdout.write(`${JSON.stringify(entry)}\n`, () => process.exit(0));
