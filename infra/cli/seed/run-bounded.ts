/**
 * Runs tasks with at most `concurrency` in flight, taking each from the iterator only when a slot
 * is free (so a generator of a million writes is never materialised); after the first failure no
 * new task starts, and the failure is what this rejects with. Used by `cxm seed` and the bench.
 */
export async function runBounded<T>(
  tasks: Iterator<() => Promise<T>>,
  concurrency: number,
  onDone: (value: T) => void = () => {},
): Promise<void> {
  let failed = false;
  const worker = async () => {
    for (let next = tasks.next(); !failed && !next.done; next = tasks.next()) {
      try {
        onDone(await next.value());
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** `task(0)` to `task(count - 1)`, as tasks for runBounded. */
export function* indexedTasks<T>(count: number, task: (i: number) => Promise<T>): Generator<() => Promise<T>> {
  for (let i = 0; i < count; i++) yield () => task(i);
}
