/**
 * Collects the JSON lines a test's code writes to stdout and stderr: Powertools' logger and its
 * metrics (EMF) both write through their own Console straight to the process streams, where
 * vitest's console capture does not see them. Other output passes through untouched.
 */
import { vi } from 'vitest';

export interface CapturedLines {
  lines: Array<Record<string, unknown>>;
  /** Everything written while capturing, JSON or not, for "never appears" checks. */
  text(): string;
  restore(): void;
}

export function captureJsonLines(): CapturedLines {
  const lines: Array<Record<string, unknown>> = [];
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    return vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      chunks.push(text);
      const parsed = text
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, unknown>;
          } catch {
            return undefined;
          }
        });
      if (parsed.length > 0 && parsed.every((line) => line !== undefined)) {
        lines.push(...(parsed as Array<Record<string, unknown>>));
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  });
  return {
    lines,
    text: () => chunks.join(''),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
