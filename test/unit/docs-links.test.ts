import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentationPages } from '../../scripts/docs/pages';

// Every relative link of README.md and docs/*.md names a file that exists and, when it has a
// #fragment, a heading of that page (GitHub's anchors).

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** A page's text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = (heading ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  for (const page of documentationPages(repoRoot)) {
    it(`${page}: every relative link and anchor resolves`, () => {
      const text = readFileSync(join(repoRoot, page), 'utf8');
      const broken = relativeLinks(text).filter((link) => {
        const [path = '', fragment] = link.split('#');
        const target = path === '' ? join(repoRoot, page) : join(repoRoot, dirname(page), path);
        if (!existsSync(target)) return true;
        if (fragment === undefined) return false;
        if (!statSync(target).isFile() || !target.endsWith('.md')) return true;
        return !anchorsOf(readFileSync(target, 'utf8')).has(fragment);
      });
      expect(
        broken,
        `broken links in ${page} (relative to ${relative(repoRoot, dirname(page)) || '.'})`,
      ).toEqual([]);
    });
  }
});
