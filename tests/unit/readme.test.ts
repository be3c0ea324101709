import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is the first hour: short enough to be read (under 16,000 bytes; detail lives in docs/), with
 * its path intact, and every link of it and of docs/ landing on a file and a heading that exist.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of read(file).split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.+)$/.exec(line);
    if (heading) out.add(slug(heading[1] as string));
  }
  return out;
}

/** Relative links `[text](target)` of a markdown file, outside code. */
function links(file: string): string[] {
  const text = read(file).replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z]+:/.test(target));
}

describe('the README', () => {
  it('stays under 16,000 bytes: detail goes to docs/', () => {
    expect(Buffer.byteLength(README)).toBeLessThan(16_000);
  });

  it('keeps the first hour: set-up in two commands, real use, the tools, the side panel, how it works', () => {
    expect(README).toContain('npm ci && npm run demo');
    expect(README).toContain('npm test ');
    for (const heading of ['## Set-up (a fresh machine)', '## Real use', '## Tools', '## The side panel', '## How it works']) {
      expect(README).toContain(`\n${heading}\n`);
    }
    expect(README).toContain('comet-relay install');
    expect(README).toContain('comet-relay extension');
    expect(README).toContain('--install-browser');
  });
});

describe('links in README.md and docs/', () => {
  const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

  it('land on a file that exists, and on a heading of it when they name one', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of links(file)) {
        const [where, anchor] = target.split('#') as [string, string | undefined];
        const resolved = where === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), where));
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads the anchors GitHub makes', () => {
    expect(slug('The page as it is (checked 2026-12-01)')).toBe('the-page-as-it-is-checked-2026-12-01');
    expect(slug("The README's screenshots")).toBe('the-readmes-screenshots');
    expect(slug('Clients proven by their own CLI')).toBe('clients-proven-by-their-own-cli');
  });
});
