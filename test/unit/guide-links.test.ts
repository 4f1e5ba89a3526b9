/**
 * The guides' links lead somewhere: every relative link of every README (and of the performance page
 * the bench writes) names a file of the project, and its `#anchor` a heading of that file, as GitHub
 * makes anchors from headings. A guide moved or a section renamed then fails here, not for a reader.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#infra/project-root';

const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', 'dist', '.cxm']);

/** Every Markdown file of the project, relative to its root. */
function guides(dir = ''): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : guides(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));
}

/** The relative links of a guide, outside code blocks: `[text](target)`. */
function linksOf(file: string): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

/** What is wrong with a link of `file`, or undefined when it leads somewhere. */
function brokenLink(file: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const resolved = path === '' ? file : relative(PROJECT_ROOT, join(PROJECT_ROOT, dirname(file), path));
  const absolute = join(PROJECT_ROOT, resolved);
  if (!existsSync(absolute)) return `${file}: ${target} names no file`;
  if (anchor === undefined || statSync(absolute).isDirectory()) return undefined;
  return anchorsOf(resolved).has(anchor) ? undefined : `${file}: ${target} names no heading of ${resolved}`;
}

describe('the guides', () => {
  it('link only to files of the project and headings that exist', () => {
    const files = guides();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'test/README.md', 'functions/README.md']));
    const broken = files.flatMap((file) => linksOf(file).flatMap((target) => brokenLink(file, target) ?? []));
    expect(broken).toEqual([]);
  });

  it('would find a broken one', () => {
    expect(brokenLink('README.md', 'test/README.md#no-such-section')).toMatch(/names no heading/);
    expect(brokenLink('README.md', 'no/such/file.md')).toMatch(/names no file/);
    expect(brokenLink('README.md', 'test/README.md#the-bench')).toBeUndefined();
    expect(anchorOf('Retrying safely: `Idempotency-Key`')).toBe('retrying-safely-idempotency-key');
  });
});
