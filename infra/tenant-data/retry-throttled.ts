/**
 * One more layer of patience for long imports: the SDK retries a throttled request a few times
 * from a shared retry quota, and under sustained throttling (a stage at its provisioned or
 * account limits) that quota runs dry and the error reaches us. A throttled write is safe to send
 * again (every import write is idempotent by id), so it is retried here, with jittered
 * exponential backoff, before the import gives up.
 */
import { isThrottlingError } from '@smithy/service-error-classification';
import { type BackoffPolicy, backoff } from '#shared/store/write-retry';

type SdkLikeError = Parameters<typeof isThrottlingError>[0];

const ATTEMPTS = 8;
/** A stage at its limits: waits of seconds, up to 20 s, before the import gives up. */
const THROTTLED_IMPORT: BackoffPolicy = { baseMs: 250, capMs: 20_000 };

export async function retryThrottled<T>(work: () => Promise<T>, onThrottled?: () => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= ATTEMPTS || !(error instanceof Error) || !isThrottlingError(error as SdkLikeError)) throw error;
      onThrottled?.();
      await backoff(attempt, THROTTLED_IMPORT);
    }
  }
}
