/**
 * The signal a request's store calls get to stop at the chain's deadline (run-with-deadline.ts):
 * the SDK's one-slot form (`aborted` and `onabort`, @smithy/types AbortSignal), which every SDK
 * layer that listens accepts beside the DOM's EventTarget form.
 *
 * Why not an AbortController's signal: the SDK races every store call against the signal, and
 * with an EventTarget it adds and removes a listener each time. Around a warm note's store call
 * (the conversations store over the real client, answered from canned responses, Lambda's Node,
 * 60 interleaved batches) an AbortController's signal added 17-19 us of CPU per call, this one
 * 6-9 us.
 *
 * The slot keeps every handler assigned to it, not the last one only: calls running side by side
 * under one deadline must all stop. A handler whose call has ended is harmless when it fires: it
 * rejects a promise already settled, or destroys an HTTP request already completed (a no-op).
 */
import type { AbortHandler, AbortSignal as OneSlotAbortSignal } from '@smithy/types';

type Handler = (this: OneSlotAbortSignal) => void;
type SlotValue = AbortHandler | ((...args: never[]) => unknown) | null;

export class DeadlineSignal implements OneSlotAbortSignal {
  #aborted = false;
  readonly #handlers: Handler[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Reads as null: the handlers are kept, not exposed. */
  get onabort(): null {
    return null;
  }

  set onabort(handler: SlotValue) {
    if (typeof handler === 'function') this.#handlers.push(handler as Handler);
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    // Each handler is one call's: one that throws must not keep the others from stopping.
    for (const handler of this.#handlers.splice(0)) {
      try {
        handler.call(this);
      } catch {
        // That call ends by its own error or timeout; the deadline's 504 leaves all the same.
      }
    }
  }
}

/** A signal that never aborts, for invocations without a deadline (no Lambda context: tests, tools): it keeps no handler. */
class NeverAborted implements OneSlotAbortSignal {
  readonly aborted = false;

  get onabort(): null {
    return null;
  }

  set onabort(_handler: SlotValue) {}
}

export const NEVER_ABORTED: OneSlotAbortSignal = new NeverAborted();
