/**
 * Renders an EventBridge Pipes input template against one source record, as Pipes does for the
 * forms a template of ours may use: `<$.a.b[0].c>` placeholders (dot paths, array indices).
 * - A placeholder inside a JSON string gets the value's text, JSON-escaped: Pipes substitutes "to
 *   ensure a valid JSON output", and quoting string placeholders is what its documentation asks.
 * - A placeholder outside quotes gets the value as JSON (objects, arrays, numbers).
 * Anything else (reserved `<aws.pipes.*>` variables, wildcards, a path that finds nothing) throws:
 * a template this cannot render faithfully must fail its test, never pass it.
 */
const PLACEHOLDER = /<([^<>]*)>/g;

function valueAt(record: unknown, path: string): unknown {
  if (!/^\$(\.[A-Za-z0-9_-]+|\[\d+\])*$/.test(path)) throw new Error(`unsupported placeholder path <${path}>`);
  let node = record;
  for (const [, key, index] of path.slice(1).matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)) {
    const step = key ?? Number(index);
    if (node === null || typeof node !== 'object' || !(step in node))
      throw new Error(`<${path}> finds nothing in the record`);
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

/** Whether `offset` in `template` lies inside a JSON string literal (a `"` not escaped opens or closes one). */
function insideString(template: string, offset: number): boolean {
  let inside = false;
  for (let i = 0; i < offset; i++) {
    if (template[i] === '\\') i++;
    else if (template[i] === '"') inside = !inside;
  }
  return inside;
}

export function renderPipeTemplate(template: string, record: unknown): string {
  return template.replace(PLACEHOLDER, (_match, path: string, offset: number) => {
    const value = valueAt(record, path);
    if (!insideString(template, offset)) return JSON.stringify(value);
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return JSON.stringify(text).slice(1, -1);
  });
}
