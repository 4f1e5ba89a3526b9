/**
 * What JSON.parse accepts but a stored document would not keep: numbers that overflow to
 * Infinity (serialised as null) or integers past 2^53 (rounded), text with lone surrogates
 * (`"\ud800"`: I-JSON forbids it and DynamoDB, which stores UTF-8, cannot hold it), and nesting so
 * deep that serialising or merging it would exhaust the stack.
 *
 * Walked iteratively (no recursion to exhaust) and in one pass: one frame per open container and
 * one shared path, so the cost is linear in the body and the memory is a constant per level of
 * nesting. The member path is spelled out only for the message, once something is wrong. (A walk
 * that copied the path for every element and checked depth after pushing all siblings took 0.9 GB
 * and 1.5 s of CPU for 1 MiB of nested arrays.)
 */
export const MAX_JSON_DEPTH = 100;

/** In `u` mode a surrogate pair is one code point, so only a lone half matches. */
const LONE_SURROGATE = /\p{Surrogate}/u;

type PathPart = string | number;

/** An open array or object: its members are visited by position, its keys read once. */
interface Frame {
  container: readonly unknown[] | Record<string, unknown>;
  keys: readonly string[] | undefined;
  next: number;
}

function notUnicode(path: readonly PathPart[]): string {
  return `'${memberPath(path)}' holds text that is not valid Unicode (a lone UTF-16 surrogate such as \\ud800); send well-formed characters.`;
}

function memberPath(path: readonly PathPart[]): string {
  return (
    path
      .map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`))
      .join('')
      .replace(/^\./, '') || 'the body'
  );
}

/** Why a scalar cannot be kept as sent, or undefined when it can. */
function describeScalar(value: unknown, path: readonly PathPart[]): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? notUnicode(path) : undefined;
  if (typeof value !== 'number') return undefined;
  if (!Number.isFinite(value))
    return `'${memberPath(path)}' holds a number too large for JSON (it would be stored as null).`;
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return `'${memberPath(path)}' holds an integer beyond ±9007199254740991, which cannot be stored exactly; send it as a string.`;
  }
  return undefined;
}

const EMPTY: readonly unknown[] = [];

function isContainer(value: unknown): value is readonly unknown[] | Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/**
 * Opens `container` at level `depth`: the frame of that level, reused by every container opened
 * there, so a wide or deep body allocates no frame per container, only each object's key list.
 * A module function, not a closure made per body: a named closure costs every request its
 * creation and, bundled with keepNames, a call that names it.
 */
function openFrame(frames: Frame[], depth: number, container: readonly unknown[] | Record<string, unknown>): void {
  const keys = Array.isArray(container) ? undefined : Object.keys(container);
  const frame = frames[depth];
  if (frame) {
    frame.container = container;
    frame.keys = keys;
    frame.next = 0;
  } else frames.push({ container, keys, next: 0 });
}

/** Why the parsed body cannot be kept as sent, or undefined when it can. */
export function describeUnfaithfulJson(body: unknown): string | undefined {
  if (!isContainer(body)) return describeScalar(body, []);
  const path: PathPart[] = [];
  const frames: Frame[] = [];
  openFrame(frames, 0, body);
  let depth = 1;
  while (depth > 0) {
    const frame = frames[depth - 1]!;
    const { container, keys } = frame;
    const size = keys ? keys.length : (container as readonly unknown[]).length;
    if (frame.next >= size) {
      // Let go of what the level held, so nothing outlives its walk.
      frame.container = EMPTY;
      frame.keys = undefined;
      depth--;
      path.pop();
      continue;
    }
    const index = frame.next++;
    // The body is level 0, so this member sits at level `depth`.
    if (depth > MAX_JSON_DEPTH) return `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`;
    const key = keys ? keys[index]! : index;
    if (keys && LONE_SURROGATE.test(key as string)) return notUnicode([...path, key]);
    const value = keys
      ? (container as Record<string, unknown>)[key as string]
      : (container as readonly unknown[])[index];
    path.push(key);
    if (isContainer(value)) {
      openFrame(frames, depth++, value);
      continue;
    }
    const problem = describeScalar(value, path);
    path.pop();
    if (problem) return problem;
  }
  return undefined;
}
