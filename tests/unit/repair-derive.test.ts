// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTurnNow } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { createPageDriver } from '../../lib/page/driver';
import { readSources } from '../../lib/page/kits/source-reader';
import { deriveRepair, hooksOf, type JsonTurn, verify } from '../../lib/page/kits/repair-derive';
import { describeRepair, readingOnly, repairKit } from '../../lib/page/kits/repair-kit';
import { FlatText, markdownWords, showsExactly, wordsOf } from '../../lib/page/kits/repair-text';
import { parsePack } from '../../lib/packs/parse';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { live2026 } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';
import { renameHooks, threadTurnsByStructure } from '../support/repair-pages';

/**
 * Issue 24 on real pages: captures loaded from COMET_REAL_PERPLEXITY (never copied here), their hooks
 * renamed as a redesign might rename them, and a thread JSON made from the unchanged page's own text.
 */
const folder = process.env.COMET_REAL_PERPLEXITY;
const present = Boolean(folder && existsSync(folder));
const title = present ? `repair on real captures in ${folder}` : 'repair on real captures — skipped: COMET_REAL_PERPLEXITY names no folder';
const URL = 'https://www.perplexity.ai/search/a-captured-thread';
const read = (name: string) => readFileSync(join(folder as string, name), 'utf8');

const PAGES = [
  'search-thread-page-WebMCP-2026-08.html',
  'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
  'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
];

/** The JSON's turns, from the unchanged page's own text: what the site's record would hold. */
function jsonTurnsOf(html: string): JsonTurn[] {
  loadHtml(html, URL);
  return threadTurnsByStructure(document);
}

describe('repair text', () => {
  it('counts a Markdown answer and its rendering as the same words, chips and formulas allowed for', () => {
    document.body.innerHTML =
      '<div id="a"><p>Water boils at <strong>100 °C</strong> <span class="chip">example +1</span></p><p>Energy: <span><span><math><semantics><mi>E</mi><annotation encoding="application/x-tex">E=mc^2</annotation></semantics></math></span><span aria-hidden="true">E=mc2</span></span></p></div>';
    const words = markdownWords('Water boils at **100 °C** [1].\n\nEnergy: $E=mc^2$');
    expect(showsExactly(words, new FlatText().of(document.getElementById('a') as Element))).toBe(true);
    expect(showsExactly(words, wordsOf('Water boils at 100 °C. Energy: something else entirely').join(''))).toBe(false);
  });

  it('takes stable hooks only: data attributes, roles, counted ids by their prefix, class tokens that name a thing', () => {
    document.body.innerHTML = '<div id="markdown-content-3" role="article" data-kind="answer" data-n="42" data-state="open" class="flex min-w-0 group/answer-text richtext dark:richtext-invert css-1x2y"></div>';
    expect(hooksOf(document.body.firstElementChild as Element).sort()).toEqual(
      ['[class~="group/answer-text"]', '[class~="richtext"]', '[data-kind="answer"]', '[data-kind]', '[data-n]', '[id^="markdown-content-"]', '[role="article"]'].sort(),
    );
  });
});

describe.skipIf(!present)(title, () => {
  for (const name of PAGES) {
    it(`${name}: renamed hooks, the answer found again from the JSON, verified, and read through the repair`, () => {
      const json = jsonTurnsOf(read(name));
      expect(json.length).toBeGreaterThan(0);
      loadHtml(renameHooks(read(name)), URL);
      // The redesign as the reader meets it: no turn at all.
      const driver = createPageDriver(window, new SelectorCatalog());
      const base = driver.context().set;
      expect(turnsOf(document, base)).toHaveLength(0);

      const outcome = deriveRepair(document, base, json, 'gen-b-2026-12-derived');
      if (!outcome.ok) throw new Error(`${outcome.probe}: ${outcome.reason}`);
      const { set, replaced } = outcome.derived;
      for (const rule of Object.values(replaced)) expect(rule).not.toMatch(/:nth-|>|\.css-|\d/);
      expect(replaced.answer).toBeTruthy();
      const turns = turnsOf(document, set);
      const mounted = json.filter((j) => outcome.derived.turns.includes(j.index));
      expect(turns.map((t) => t.index)).toEqual(mounted.map((j) => j.index));
      for (const [i, t] of turns.entries()) {
        expect(showsExactly(markdownWords(mounted[i]?.answer ?? ''), markdownWords(readTurnNow(t, t.index, set).response).join(''))).toBe(true);
        if (mounted[i]?.question) expect(wordsOf(readTurnNow(t, t.index, set).question)).toEqual(wordsOf(mounted[i]?.question ?? ''));
      }
      // The pack file `comet-relay selectors add` takes.
      const info = describeRepair(outcome.derived, base, URL, new Date('2026-12-02T12:00:00Z'));
      expect(info.origin).toBe(`derived on 2026-12-02 from ${URL} against its thread JSON`);
      // #16 (review 2026-12-04): the pack, made to be shared, says the page's kind, not whose thread.
      expect(info.pack.comment).toMatch(/^derived on 2026-12-02 from https:\/\/www\.perplexity\.ai\/search\/… against its thread JSON/);
      expect(JSON.stringify(info.pack)).not.toContain(new globalThis.URL(URL).pathname.split('/')[2] as string);
      const pack = parsePack(info.pack);
      expect(pack.ok ? pack.name : pack.problems).toBe('gen-b-2026-12-derived');
    });

    it(`${name}: unchanged, the built-in set reads it and the kit finds nothing to repair`, async () => {
      loadHtml(read(name), URL);
      const driver = createPageDriver(window, new SelectorCatalog());
      const kit = repairKit({ win: window, driver: () => driver, catalog: new SelectorCatalog(), readers: undefined as never });
      expect(await kit['page.repair']?.({} as never, undefined as never)).toEqual({ status: 'fine', url: URL });
    });
  }

  it('several turns: citations derived from the JSON source URLs, sources read through the repair, reading only', async () => {
    const name = 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
    const json = jsonTurnsOf(read(name));
    const urls = json.at(-1)?.sources ?? [];
    expect(urls.length).toBeGreaterThan(0);
    loadHtml(renameHooks(read(name)), URL);
    const driver = createPageDriver(window, new SelectorCatalog());
    const kit = repairKit({ win: window, driver: () => driver, catalog: new SelectorCatalog(), readers: undefined as never });
    expect(await kit['page.repair']?.({} as never, undefined as never)).toEqual({ status: 'miss', probe: 'turn', url: URL });
    const done = (await kit['page.repair']?.({ turns: json } as never, undefined as never)) as { status: string; repair: { replaced: Record<string, string> } };
    expect(done.status).toBe('repaired');
    expect(done.repair.replaced.citationUrlAttr).toBe('data-cite-href');
    const poll = await driver.poll();
    expect(showsExactly(markdownWords(json.at(-1)?.answer ?? ''), markdownWords(poll.response).join(''))).toBe(true);
    expect(poll.questionText).toBe(json.at(-1)?.question);
    expect((poll as { repair?: string }).repair).toMatch(/^Read through a repair: selectors for .* derived on \d{4}-\d{2}-\d{2} from https:\/\/www\.perplexity\.ai\/search\/a-captured-thread against its thread JSON/);
    const sources = await readSources(driver.readingContext(), { expand: false, openTab: false });
    expect(sources.sources.map((s) => s.url)).toEqual(expect.arrayContaining([...urls]));
    // The set it reads through clicks nothing.
    expect(driver.readingContext().set.stepsToggle).toEqual(readingOnly(live2026).stepsToggle);
    // A second attempt on the same layout is not made; undo brings the miss back.
    expect(await kit['page.repairUndo']?.({} as never, undefined as never)).toEqual({ undone: true });
    expect(driver.repairInUse()).toBeNull();
    expect(await kit['page.repair']?.({} as never, undefined as never)).toMatchObject({ status: 'tried' });
  });

  it('a JSON whose text is nowhere on the page gives no repair, and says why', () => {
    loadHtml(renameHooks(read('search-thread-page-WebMCP-2026-08.html')), URL);
    const driver = createPageDriver(window, new SelectorCatalog());
    const outcome = deriveRepair(document, driver.context().set, [{ index: 0, question: 'What is the capital of Australia?', answer: 'Canberra is the capital of Australia [1].', sources: [] }], 'gen-b-2026-12-derived');
    expect(outcome).toEqual({ ok: false, probe: 'answer', reason: "no element on the page shows the text of any of the thread JSON's 1 finished answer(s)" });
  });

  it('a derived set that matches more than the JSON\'s turns is not used', () => {
    const name = 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
    const json = jsonTurnsOf(read(name));
    loadHtml(renameHooks(read(name)), URL);
    const base = createPageDriver(window, new SelectorCatalog()).context().set;
    const outcome = deriveRepair(document, base, json, 'gen-b-2026-12-derived');
    if (!outcome.ok) throw new Error(outcome.reason);
    // One turn fewer in the JSON than on the page: the set finds a turn the JSON does not vouch for.
    const fewer = json.slice(1).map((turn) => ({ turn, questionShown: turn.question !== '' }));
    expect(verify(document, outcome.derived.set, fewer)).toEqual({ probe: 'answer', reason: "it matches 3 answer element(s) where the page shows the JSON's answers in 2" });
    // An answer rule widened to every renderer reads the questions as answers.
    const wide = { ...outcome.derived.set, answer: ['[data-render-kind]'] };
    expect(verify(document, wide, json.map((turn) => ({ turn, questionShown: turn.question !== '' })))).toEqual({
      probe: 'answer',
      reason: "it matches 5 answer element(s) where the page shows the JSON's answers in 3",
    });
  });

  it('the Sep 2026 main excerpt, renamed: its answer is a rule only, so nothing can be found again and no repair is made', () => {
    const name = 'thread-page-main-excerpt-AI-conversations-in-json-2026-09-27.html';
    const json = jsonTurnsOf(read(name));
    loadHtml(renameHooks(read(name)), URL);
    const base = createPageDriver(window, new SelectorCatalog()).context().set;
    expect(turnsOf(document, base)).toHaveLength(0);
    expect(deriveRepair(document, base, json, 'gen-b-2026-12-derived')).toEqual({
      ok: false,
      probe: 'answer',
      reason: "the thread JSON's 1 finished turn(s) hold no answer text to look for",
    });
  });
});
