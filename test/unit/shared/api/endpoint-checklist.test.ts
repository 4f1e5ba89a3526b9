/**
 * The checklist of shared/README.md ("Add an endpoint") against the code: the number of places it
 * says an endpoint takes is the number it lists, and every registry the code keeps per route (a
 * `Record<RouteId, …>`, an area's docs by its ids) is one of them. A registry added without a line
 * there fails here, so the checklist stays the whole list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

const CODE_ROOTS = ['shared', 'functions', 'infra', 'test'];
/** What keeps one entry per route: a record keyed by the route ids, or an area's docs keyed by its own. */
const PER_ROUTE = /\bRecord<RouteId\b|\bAreaDocs<\(typeof \w+Routes\)/;
const AREA_FILE = /^shared\/api\/[a-z]+-(routes|docs)\.ts$/;

function codeFiles(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The section, its stated count and its numbered items' texts. */
function checklist(): { stated: number; items: string[]; text: string } {
  const readme = readFileSync(join(PROJECT_ROOT, 'shared/README.md'), 'utf8');
  const text = readme.split(/^## /m).find((section) => section.startsWith('Add an endpoint')) ?? '';
  const stated = Number(/takes (\d+) places/.exec(text)?.[1]);
  const items = text.split(/^\d+\. /m).slice(1);
  return { stated, items, text };
}

/** Where the checklist names a registry: an area's file by its pattern, any other by its path. */
const placeOf = (file: string) =>
  AREA_FILE.test(file) ? file.replace(/\/[a-z]+-(routes|docs)\.ts$/, '/<area>-$1.ts') : file;

describe('the checklist for adding an endpoint (shared/README.md)', () => {
  const { stated, items, text } = checklist();
  const registries = CODE_ROOTS.flatMap(codeFiles).filter((file) =>
    PER_ROUTE.test(readFileSync(join(PROJECT_ROOT, file), 'utf8')),
  );

  it('lists as many places as it says an endpoint takes', () => {
    expect(stated).toBeGreaterThan(0);
    expect(items).toHaveLength(stated);
  });

  it("names every registry the code keeps per route, and the area's route entries", () => {
    // The search finds what it must: the docs of each area, the smoke checks, the bench, the fixtures.
    expect(registries).toEqual(
      expect.arrayContaining(['shared/api/webhooks-docs.ts', 'test/support/route-fixtures.ts']),
    );
    const places = [...new Set([...registries.map(placeOf), 'shared/api/<area>-routes.ts'])];
    expect(places.filter((place) => !text.includes(`\`${place}\``))).toEqual([]);
  });
});
