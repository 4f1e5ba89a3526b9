/**
 * What a store call takes to stop early, passed on to the SDK as it is: the chain's deadline
 * signal (the SDK's one-slot form, shared/http/deadline-signal.ts) or a standard AbortSignal.
 */
import type { AbortSignal as OneSlotAbortSignal } from '@smithy/types';

export type StopSignal = AbortSignal | OneSlotAbortSignal;
