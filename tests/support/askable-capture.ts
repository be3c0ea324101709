/**
 * A real thread capture made askable: the page captured from the live perplexity.ai on 2026-09-26
 * (`search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html`, and the one-turn
 * page of the same day), served unchanged at a perplexity.ai conversation URL, with a script of ours
 * (askable-page.ts) that behaves as the live page does when a prompt is sent: a new turn cloned from
 * the page's own last one, an answer streamed in with "Stop response (Esc)" in Submit's place, the
 * action row when it ends, and dictation on ("Stop dictation", the same icon). askable-page.ts says
 * what it emulates and from which note. The capture's bytes are read from COMET_REAL_PERPLEXITY at
 * test time and never enter the repository; the script is ours and is served beside them, in the
 * bare document the capture (one element's outerHTML) is wrapped in, as real-captures.ts wraps it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { browserBundle } from '../sim/bundle';
import type { SimSite } from '../sim/site';
import { type RealCapture, servingCaptures } from './real-captures';

export type { AnswerPlan, AskableAnswer, AskableState } from './askable-page';

/** Where the script is served, on the captures' own host. */
const SCRIPT_PATH = '/_askable/page.js';

/** The captures this works on: thread pages of the Sep 2026 layout with a follow-up composer. */
export const ASKABLE_CAPTURES = [
  'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
  'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
] as const;

/** The capture `file` of `dir`, wrapped in a bare document that loads our script, at `/search/<slug>`. */
export function askableCapture(dir: string, file: string): RealCapture | { skip: string } {
  const at = path.join(dir, file);
  if (!fs.existsSync(at)) return { skip: `${file} is not in ${dir}: the folder of real perplexity.ai captures lacks the page this test makes askable` };
  const bytes = fs.readFileSync(at, 'utf8');
  const slug = file.replace(/\.html$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const html =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Perplexity</title>' +
    `<script src="${SCRIPT_PATH}" defer></script></head><body>${bytes}</body></html>`;
  return { file, path: `/search/${slug}`, html };
}

/** askable-page.ts with the real Lexical, bundled once, as the sim bundles its own page script. */
const pageScript = (): Promise<string> => browserBundle(new URL('./askable-page.ts', import.meta.url));

/** The site, answering the captures at their paths and our script at its own (everything else is the sim's). */
export function servingAskable(site: SimSite, captures: RealCapture[]): SimSite {
  const pages = servingCaptures(site, captures);
  return Object.assign(Object.create(pages) as SimSite, {
    async handle(req: Parameters<SimSite['handle']>[0]) {
      const url = new URL(req.url, 'https://www.perplexity.ai');
      if (url.hostname === 'www.perplexity.ai' && url.pathname === SCRIPT_PATH) {
        return { status: 200, contentType: 'text/javascript; charset=utf-8', body: await pageScript(), headers: { 'cache-control': 'no-store' } };
      }
      return pages.handle(req);
    },
  });
}
