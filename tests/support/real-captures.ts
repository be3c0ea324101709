/**
 * Pages captured from the live perplexity.ai by people outside this project, loaded at test time from
 * the folder named by COMET_REAL_PERPLEXITY (`.ci/run` sets it when `../shared/real-perplexity` exists).
 * Their bytes never enter the repository: they are read from that folder and served as they are.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SimSite } from '../sim/site';

export const REAL_CAPTURES_ENV = 'COMET_REAL_PERPLEXITY';

export interface RealCapture {
  /** The file's name in the folder (it names the source project and the capture date). */
  file: string;
  /** Where the sim serves it: a conversation URL path, as the live site would. */
  path: string;
  html: string;
}

/** The folder of captures, or why there is none (the spec skips with that reason). */
export function realCapturesFolder(): { dir: string } | { skip: string } {
  const dir = process.env[REAL_CAPTURES_ENV];
  if (!dir) return { skip: `${REAL_CAPTURES_ENV} is not set: set it to the folder of real perplexity.ai captures (e.g. ../shared/real-perplexity) to run these tests` };
  if (!fs.existsSync(dir)) return { skip: `${REAL_CAPTURES_ENV}=${dir} does not exist: point it at the folder of real perplexity.ai captures` };
  return { dir };
}

/**
 * Every thread page of the folder (`*-thread-page-*.html`). Most are one element's outerHTML, not a
 * document: they are wrapped in a bare document, as the browser would parse them anyway.
 */
export function realThreadPages(dir: string): RealCapture[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /-thread-page-.*\.html$/.test(f))
    .sort()
    .map((file) => {
      const bytes = fs.readFileSync(path.join(dir, file), 'utf8');
      const slug = file.replace(/\.html$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const html = /<html[\s>]/i.test(bytes) ? bytes : `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Perplexity</title></head><body>${bytes}</body></html>`;
      return { file, path: `/search/${slug}`, html };
    });
}

/** The site, with these pages answered as they are at their paths (everything else is the sim's). */
export function servingCaptures(site: SimSite, captures: RealCapture[]): SimSite {
  const byPath = new Map(captures.map((c) => [c.path, c]));
  return Object.assign(Object.create(site) as SimSite, {
    async handle(req: Parameters<SimSite['handle']>[0]) {
      const url = new URL(req.url, 'https://www.perplexity.ai');
      const capture = url.hostname === 'www.perplexity.ai' ? byPath.get(url.pathname) : undefined;
      if (capture && req.method.toUpperCase() === 'GET') {
        return { status: 200, contentType: 'text/html; charset=utf-8', body: capture.html, headers: { 'cache-control': 'no-store' } };
      }
      return site.handle(req);
    },
  });
}

/**
 * Share of `expected`'s words found in `actual` in the same order, a word searched from where the previous
 * one ended. `flatten` takes the separators out of `actual` (whitespace by default), so a reader that glues a
 * citation marker to a word, or a language written without spaces, still matches.
 */
export function inOrderShare(expected: string[], actual: string, flatten = (text: string) => text.replace(/\s+/g, '')): number {
  if (expected.length === 0) return 1;
  const flat = flatten(actual);
  let at = 0;
  let found = 0;
  for (const word of expected) {
    const i = flat.indexOf(word, at);
    if (i < 0) continue;
    found += 1;
    at = i + word.length;
  }
  return found / expected.length;
}
