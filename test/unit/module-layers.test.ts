/**
 * The layers hold (house style: pure domain, adapters at the edge): no import cycle among the
 * source files, and no layer importing one above it. Read from the import specifiers of the
 * files themselves (type-only and dynamic imports included: a type is a dependency too), with a
 * regex rather than a module-graph tool, so it stays fast and needs nothing installed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';
import { FUNCTION_ENV } from '#shared/settings/setting-names';

const SOURCE_ROOTS = ['shared', 'functions', 'infra'];
/** `from '…'` of an import or export, a bare `import '…'`, and `import('…')`. */
const SPECIFIER =
  /^\s*(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
/** package.json "imports": `#shared/x` is shared/x.ts, and so on. */
const ALIAS = /^#(shared|functions|infra|test)\/(.+)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Each source file (relative to the root, with `/`) and the project files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_ROOTS.flatMap(sourceFiles)) {
    const targets = new Set<string>();
    for (const match of readFileSync(join(PROJECT_ROOT, file), 'utf8').matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? '';
      const alias = ALIAS.exec(specifier);
      if (alias) targets.add(`${alias[1]}/${alias[2]}.ts`);
      else if (specifier.startsWith('.'))
        targets.add(
          relative(PROJECT_ROOT, resolve(PROJECT_ROOT, dirname(file), specifier))
            .split('\\')
            .join('/'),
        );
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The import cycles, one path each (a file repeated at its end), found by depth-first search. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') found.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

const under = (file: string, folder: string) => file.startsWith(`${folder}/`);

/** Every variable name in FUNCTION_ENV, the tables' included. */
function settingNames(names: object): string[] {
  return Object.values(names).flatMap((value) => (typeof value === 'string' ? [value] : settingNames(value)));
}

/** What the pure rules may not import: every adapter and edge of shared, and the layers above it. */
const ABOVE_THE_RULES = [
  'shared/api',
  'shared/store',
  'shared/http',
  'shared/secrets',
  'shared/reporting',
  'shared/mcp',
  'shared/analysis',
  'shared/webhooks',
  'infra',
  'functions',
];

/** Which imports each layer may not make: [importing files, imported files], as folders. */
const FORBIDDEN: Array<{ layer: string; from: (file: string) => boolean; mayNotImport: string[] }> = [
  {
    layer: 'shared (runs in the functions)',
    from: (file) => under(file, 'shared'),
    mayNotImport: ['infra', 'functions', 'test'],
  },
  {
    layer: 'shared/domain (pure rules)',
    from: (file) => under(file, 'shared/domain'),
    mayNotImport: ABOVE_THE_RULES,
  },
  {
    layer: 'shared/settings (the settings functions read: names, the parser, readers per area)',
    from: (file) => under(file, 'shared/settings'),
    mayNotImport: [...ABOVE_THE_RULES, 'shared/auth', 'shared/schemas', 'shared/openapi'],
  },
  {
    layer: 'shared/auth (key rules; the keys table is a port)',
    from: (file) => under(file, 'shared/auth'),
    mayNotImport: ['shared/store', 'shared/http'],
  },
  { layer: 'functions (handlers)', from: (file) => under(file, 'functions'), mayNotImport: ['infra', 'test'] },
  {
    layer: 'infra/cdk (the deployed stack)',
    from: (file) => under(file, 'infra/cdk'),
    mayNotImport: ['infra/local', 'infra/cli', 'infra/tenant-data'],
  },
  // The names both sides agree on, and the project root: read by the CLI and the local runtime
  // without loading the CDK app.
  {
    layer: "infra's own modules (stage-names.ts, search-log-policy-name.ts, project-root.ts)",
    from: (file) => under(file, 'infra') && !file.slice('infra/'.length).includes('/'),
    mayNotImport: ['infra/cdk', 'infra/local', 'infra/cli', 'infra/tenant-data'],
  },
  // The CLI drives a local stack (its state file, its store); the local stack never drives the CLI.
  { layer: 'infra/local (the local stack)', from: (file) => under(file, 'infra/local'), mayNotImport: ['infra/cli'] },
  // What the import, seed and the demo tenant write with: below both of its users.
  {
    layer: "infra/tenant-data (writing a tenant's data)",
    from: (file) => under(file, 'infra/tenant-data'),
    mayNotImport: ['infra/local', 'infra/cli'],
  },
];

describe('the module layers', () => {
  const graph = importGraph();

  it('reads the imports it checks (a regex that matched nothing would pass every rule)', () => {
    expect(graph.get('shared/store/keys-store.ts')).toContain('shared/auth/key-records.ts');
    expect(graph.get('infra/cli/seed/seed-command.ts')).toContain('infra/cli/seed/seed-writes.ts');
    for (const targets of graph.values()) for (const target of targets) expect(graph.has(target), target).toBe(true);
  });

  it('have no import cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it("read the functions' settings in shared/settings alone: no other module reads one by name", () => {
    // The reporting backend is read where it is written out, for esbuild to compile it in (function-stores.ts).
    const COMPILED_IN = /process\.env\.CXM_REPORTING_BACKEND\b/g;
    // Every function's entry is copied into its asset as it is, where no module of ours can be
    // imported: it reads the stage for its init line's metric.
    const ENTRY = 'infra/cdk/constructs/function-entry.cjs';
    const ENTRY_READ = /process\.env\.CXM_STAGE\b/g;
    const names = settingNames(FUNCTION_ENV).join('|');
    // A read, not a write: CDK and the local runtime write these names into a function's environment.
    const NOT_ASSIGNED = String.raw`(?!\s*(?:\?\?)?=[^=])`;
    const READ = new RegExp(
      [String.raw`\w\[FUNCTION_ENV\.[\w.]+\]`, String.raw`\benv\.(?:${names})\b`, String.raw`\[['"](?:${names})['"]\]`]
        .map((pattern) => pattern + NOT_ASSIGNED)
        .join('|'),
    );
    const readers = [...graph.keys()]
      .filter((file) => !under(file, 'shared/settings'))
      .filter((file) =>
        readFileSync(join(PROJECT_ROOT, file), 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(\*|\/\/)/.test(line))
          .some((line) => READ.test(line.replace(COMPILED_IN, '').replace(file === ENTRY ? ENTRY_READ : /$^/, ''))),
      );
    expect(readers).toEqual([]);
  });

  it('have no cycle between folders: none leans on one that leans back (a parent holds what uses its rooms)', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = dirname(file);
      const edges = folders.get(from) ?? [];
      for (const to of targets.map(dirname)) if (to !== from && !edges.includes(to)) edges.push(to);
      folders.set(from, edges);
    }
    expect(folders.get('shared/store')).toContain('shared/settings');
    expect(folders.get('infra/local')).toContain('infra/local/gateway');
    expect(cycles(folders).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it.each(FORBIDDEN)('$layer imports no layer above it', ({ from, mayNotImport }) => {
    const violations = [...graph]
      .filter(([file]) => from(file))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => mayNotImport.some((folder) => under(target, folder)))
          .map((target) => `${file} -> ${target}`),
      );
    expect(violations).toEqual([]);
  });
});
