// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { looksFinished, takeSnapshot } from '../../lib/page/answer/observer';
import { answerRoots, readQuestionNow, readTurnNow } from '../../lib/page/answer/reader';
import { questionKey, questionMatch } from '../../lib/page/answer/question';
import { turnsOf } from '../../lib/page/dom/turns';
import { readSources } from '../../lib/page/kits/source-reader';
import { readThreadDom } from '../../lib/page/threads/thread-dom-reader';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { fromInlineCitations, groupedCount, mergeSources, normalizeUrl } from '../../lib/page/answer/sources';
import { chooseSelectorSet, live2026 } from '../../lib/selectors';
import { loadHtml, setUrl } from '../fixtures/reader/load';
import { listConversations } from '../../lib/page/kits/conversations';
import { pageContent } from '../support/page-content';

/**
 * The readers against pages other people saved from the live perplexity.ai (their folder is named
 * by COMET_REAL_PERPLEXITY; .ci/run sets it when ../shared/real-perplexity exists). Nothing of them
 * is copied here: what a test expects, it finds in the capture itself with a plain structural
 * query, independent of the selector sets, and holds the reader's result against it.
 */
const folder = process.env.COMET_REAL_PERPLEXITY;
const present = Boolean(folder && existsSync(folder));
const title = present
  ? `real perplexity.ai captures in ${folder}`
  : 'real perplexity.ai captures — skipped: COMET_REAL_PERPLEXITY names no folder (set it to the real-perplexity captures folder to run these)';

const THREAD_PAGES = [
  'search-thread-page-WebMCP-2026-08.html',
  'search-thread-page-obsidian-AI-exporter-2026-02-27.html',
  'search-thread-page-obsidian-AI-exporter-2026-02-02.html',
  'deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html',
  'deep-research-thread-page-obsidian-AI-exporter-2026-02-02.html',
];
const URL = 'https://www.perplexity.ai/search/a-captured-thread';

const load = (name: string) => loadHtml(readFileSync(join(folder as string, name), 'utf8'), URL);
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const after = (a: Node, b: Node) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;

/** What the capture says, found without the selector sets: the last question, and what follows it. */
function lastTurnByStructure() {
  const questions = [...document.querySelectorAll('[class~="group/query"], [class~="group/user-bubble"]')];
  const question = questions.at(-1) as Element;
  const textOf = question.querySelector('[class*="whitespace-pre-line"], .select-text') ?? question;
  const answers = [...document.querySelectorAll('[data-workflow-final-text], div[id^="markdown-content-"]')].filter(
    (a) => after(question, a) && (a.textContent ?? '').trim() !== '',
  );
  const answer = answers.at(-1) as Element;
  // A Deep Research turn's report: prose in a card of its own between the question and the answer block, which then
  // holds only a summary pointing to it (the Feb 2026 report page). What the person reads as the answer is both.
  const reports = [...document.querySelectorAll('.prose')].filter(
    (p) => after(question, p) && after(p, answer) && !answer.contains(p) && !p.parentElement?.closest('.prose'),
  );
  const roots = [...reports, answer];
  const headers = [...document.querySelectorAll('button')].filter(
    (b) => after(question, b) && /^(Reviewed \d+ sources|\d+ steps completed|Completed \d+ steps)$/.test(squash(b.textContent ?? '')),
  );
  const cited = roots.flatMap((root) => [...root.querySelectorAll('[data-pplx-citation-url]')].map((c) => c.getAttribute('data-pplx-citation-url') as string));
  // Every piece of text the answer shows, apart from buttons, icons and citation chips (checked as URLs).
  const pieces: string[] = [];
  for (const root of roots) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement?.closest('button, svg, figcaption, .citation, .citation-nbsp, style, script')) continue;
      // A formula is drawn twice (MathML and glyphs) beside its hidden TeX: the answer holds it once, as TeX.
      if (n.parentElement?.closest('.katex') && !n.parentElement.closest('annotation[encoding="application/x-tex"]')) continue;
      const t = squash(n.nodeValue ?? '');
      if (t) pieces.push(t);
    }
  }
  // The page's "done": an action row (Copy / Helpful) after the answer's start. A trimmed capture may have lost it.
  const row = [...document.querySelectorAll('[data-workflow-text-footer], button[aria-label="Helpful"], button[aria-label="Utile"]')].some((r) => after(answer, r) || answer.contains(r));
  return { question: squash(textOf.textContent ?? ''), pieces, header: headers.at(-1) ? squash(headers.at(-1)?.textContent ?? '') : undefined, cited, row };
}

if (!present) console.warn(title);

describe.skipIf(!present)(title, () => {
  afterEach(() => {
    document.body.innerHTML = '';
  });

  for (const name of THREAD_PAGES) {
    describe(name, () => {
      it('is recognised as the live site, and its last turn reads as the capture shows it', async () => {
        load(name);
        const expected = lastTurnByStructure();
        expect(chooseSelectorSet(document, 150).set.name).toBe(live2026.name);
        const poll = await createPageDriver(window).poll();
        expect(expected.pieces.length).toBeGreaterThan(0);
        const response = squash(poll.response);
        for (const piece of expected.pieces) expect(response, piece).toContain(piece);
        expect(squash(poll.questionText)).toBe(expected.question);
        expect(response).not.toContain(expected.question);
      });

      it('reads the steps header of the last turn, or none where the capture shows none', () => {
        load(name);
        const expected = lastTurnByStructure();
        const turns = turnsOf(document, live2026);
        const last = turns.at(-1);
        expect(last).toBeDefined();
        const state = readTurnNow(last as NonNullable<typeof last>, 0, live2026);
        expect(state.stepsHeader).toBe(expected.header);
        if (expected.header) expect(state.stepsFinished).toBe(true);
      });

      it('keeps each citation’s URL in the answer’s Markdown, as the thread JSON and the stream do (captures review M2)', async () => {
        load(name);
        const response = (await createPageDriver(window).poll()).response;
        for (const url of new Set(lastTurnByStructure().cited)) expect(response).toContain(`](${url})`);
      });

      it('finds every URL the last answer cites', async () => {
        load(name);
        const expected = [...new Set(lastTurnByStructure().cited.map((u) => normalizeUrl(u)))];
        const read = await readSources({ win: window, doc: document, set: live2026, waitFor: async () => null }, { expand: false, openTab: false });
        expect(read.sources.map((s) => normalizeUrl(s.url ?? '')).sort()).toEqual(expected.sort());
      });

      it('titles each source by the aria-label its chip’s trigger carries, where it carries one (captures review L4)', async () => {
        load(name);
        // The capture's own pairs: a chip (its URL) and the label of a [data-state] span around it or inside it.
        const labelled = new Map<string, string>();
        for (const chip of document.querySelectorAll('[data-pplx-citation-url]')) {
          const trigger = chip.parentElement?.matches('[data-state][aria-label]') ? chip.parentElement : chip.querySelector('[data-state][aria-label]');
          const label = trigger?.getAttribute('aria-label')?.trim();
          const url = normalizeUrl(chip.getAttribute('data-pplx-citation-url') ?? '') ?? '';
          if (label && !labelled.has(url)) labelled.set(url, label);
        }
        const read = await readSources({ win: window, doc: document, set: live2026, waitFor: async () => null }, { expand: false, openTab: false });
        const titles = new Map(read.sources.map((s) => [normalizeUrl(s.url ?? '') ?? '', s.title]));
        for (const [url, label] of labelled) if (titles.has(url)) expect(titles.get(url), url).toBe(label);
        // Every Feb 2026 chip has its trigger around it: where the last answer cites, its titles are checked.
        if (name.includes('obsidian') && lastTurnByStructure().cited.length > 0) expect([...labelled.keys()].filter((u) => titles.has(u)).length).toBeGreaterThan(0);
      });

      it('is not working: no stop control, a finished snapshot, and a wait that completes at once', async () => {
        load(name);
        const driver = createPageDriver(window);
        if (!lastTurnByStructure().row) {
          // The capture was trimmed of the last answer's action row: the page shows no sign either way, so
          // the page says so (the worker asks the thread JSON next), never "completed" from the quiet.
          const poll = await driver.poll();
          expect(poll.status).not.toBe('completed');
          expect(poll.unconfirmed).toMatch(/^stopButton\/answerFooter: none of /);
          return;
        }
        const poll = await driver.poll();
        expect(poll).toMatchObject({ status: 'completed', hasStopButton: false, hasLoadingSpinner: false });
        expect(looksFinished(takeSnapshot(document, live2026))).toBe(true);
        const wait = await driver.wait({ timeoutMs: 3000, stallMs: 3000 });
        expect(wait.status).toBe('completed');
        expect(squash(wait.response)).toBe(squash(poll.response));
      });
    });
  }

  /**
   * The pages of Sep 2026 (added 2026-12-02). What each test expects was read from the capture by hand
   * (its last question block, answer block, steps header and citations), written here as the facts a
   * person sees on it, not as markup: the question without the time and buttons before it, the answer,
   * the header's words, the URLs the last answer cites, and a page that has finished.
   */
  const SEPTEMBER: {
    file: string;
    question: string;
    answerHas: string[];
    header: string;
    cited: string[];
  }[] = [
    {
      file: 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
      question: 'What is the capital of France? Reply in one word.',
      answerHas: ['Paris'],
      header: 'Researched 4s',
      cited: [],
    },
    {
      // Virtualised: the earliest turn shown (index 2) lost its question block; the last is turn 4.
      file: 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
      question: 'Invented question 4?',
      answerHas: ['Answer 4 part 1.', '## Heading 4.2', '---', 'Answer 4 part 37.'],
      header: 'Researched',
      cited: ['https://example.com/source-9', 'https://example.com/source-10'],
    },
    {
      // The question block reads "26 sept., 23:39" and the Edit/Copy query buttons first; the answer is a rule alone.
      file: 'thread-page-main-excerpt-AI-conversations-in-json-2026-09-27.html',
      question: 'Insère un séparateur horizontal Markdown. Réponds uniquement avec le séparateur.',
      answerHas: ['---'],
      header: 'Recherche terminée',
      cited: [],
    },
  ];

  for (const page of SEPTEMBER) {
    describe(`${page.file} (Sep 2026)`, () => {
      it('the last answer and its question, without the time and the Edit/Copy query buttons before it', async () => {
        load(page.file);
        expect(chooseSelectorSet(document, 150).set.name).toBe(live2026.name);
        const poll = await createPageDriver(window).poll();
        expect(squash(poll.questionText)).toBe(page.question);
        for (const piece of page.answerHas) expect(poll.response).toContain(piece);
        expect(poll.response).not.toContain(page.question);
        expect(poll.response).not.toMatch(/\b(Copy|Share|Helpful|Fork|sources|Copier|Partager|Utile)\b/);
      });

      it('the steps header, read as finished', () => {
        load(page.file);
        const last = turnsOf(document, live2026).at(-1);
        const state = readTurnNow(last as NonNullable<typeof last>, 0, live2026);
        expect(state.stepsHeader).toBe(page.header);
        expect(state.stepsFinished).toBe(true);
        expect(state.stepsStopped).toBe(false);
      });

      it('the URLs the last answer cites, and how many sources the page says it has (captures review M1)', async () => {
        load(page.file);
        const read = await readSources({ win: window, doc: document, set: live2026, waitFor: async () => null }, { expand: false, openTab: false });
        expect(read.sources.map((s) => s.url).sort()).toEqual([...page.cited].sort());
        // The last action row's "N sources" button, where the capture has one.
        const row = [...document.querySelectorAll('[data-workflow-text-footer]')].at(-1);
        const said = [...(row?.querySelectorAll('button') ?? [])].map((b) => /^(\d+) sources$/.exec(squash(b.textContent ?? ''))?.[1]).find(Boolean);
        expect(read.stated).toBe(said === undefined ? undefined : Number(said));
        if (page.file.includes('several-turns')) expect(read.stated).toBe(15);
      });

      it('not working: the action row is up, no stop control; poll and wait say completed at once, with the same answer', async () => {
        load(page.file);
        const driver = createPageDriver(window);
        const poll = await driver.poll();
        expect(poll).toMatchObject({ status: 'completed', hasStopButton: false, hasLoadingSpinner: false });
        expect(poll.unconfirmed).toBeUndefined();
        const snap = takeSnapshot(document, live2026);
        expect(snap.footer).toBe(true);
        expect(looksFinished(snap)).toBe(true);
        const started = Date.now();
        const wait = await driver.wait({ timeoutMs: 3000, stallMs: 3000 });
        expect(wait.status).toBe('completed');
        expect(Date.now() - started).toBeLessThan(1000);
        expect(squash(wait.response)).toBe(squash(poll.response));
      });
    });
  }

  describe('answer-citations-excerpt-SaysWho-2026-08-11.html (a bare .prose, cut down by its authors)', () => {
    it('reads each nested citation once, by the URL its outer span carries', () => {
      load('answer-citations-excerpt-SaysWho-2026-08-11.html');
      const urls = new Set([...document.querySelectorAll('[data-pplx-citation-url]')].map((c) => c.getAttribute('data-pplx-citation-url')));
      const prose = document.querySelector('.prose') as Element;
      const read = mergeSources(fromInlineCitations(prose, live2026, URL));
      expect(read.map((s) => s.url)).toEqual([...urls]);
      expect(document.querySelectorAll('a[href]').length).toBe(1); // the page's own settings link only
    });

    it('answer prose no turn explains fails every read with SELECTOR_MISS turn, naming what was tried', async () => {
      load('answer-citations-excerpt-SaysWho-2026-08-11.html');
      const driver = createPageDriver(window);
      const miss = /^turn: none of `\[data-workflow-entry\]`.* matched on https:\/\/www\.perplexity\.ai\/search\/\S+ \(question blocks, then answer blocks\), although answer prose is on the page/;
      await expect(driver.poll()).rejects.toMatchObject({ code: 'SELECTOR_MISS', message: expect.stringMatching(miss) });
      await expect(driver.wait({ timeoutMs: 500 })).rejects.toMatchObject({ code: 'SELECTOR_MISS', message: expect.stringMatching(miss) });
      await expect(driver.run('reading sources', () => readSources(driver.context(), {}))).rejects.toMatchObject({ code: 'SELECTOR_MISS' });
    });
  });

  describe('search-thread-page-WebMCP-2026-08.html: a question typed on several lines', () => {
    it('keeps its lines, as the page shows them (white-space: pre-line), in the turn’s question (captures review L1)', () => {
      load('search-thread-page-WebMCP-2026-08.html');
      // What the capture's class sets in the page's own stylesheet (Tailwind's utility), which the capture does not carry.
      document.head.insertAdjacentHTML('beforeend', '<style>.whitespace-pre-line { white-space: pre-line; }</style>');
      const shown = document.querySelector('[class~="group/user-bubble"] [class*="whitespace-pre-line"]') as Element;
      const lines = (shown.textContent ?? '').split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
      expect(lines.length).toBeGreaterThan(5);
      const turn = turnsOf(document, live2026).find((t) => t.question?.contains(shown));
      expect(readQuestionNow(turn as NonNullable<typeof turn>, live2026)).toBe(lines.join('\n'));
    });
  });

  describe('list items drawn as <li><p> (2026-02-27 and 2026-09-26 pages)', () => {
    for (const [file, at] of [
      ['deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html', -1],
      ['search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html', 0],
    ] as const) {
      it(`${file}: each item reads "- item" on one line, as the site's own Markdown writes it (review 13a, L1)`, () => {
        load(file);
        const turn = turnsOf(document, live2026).at(at) as NonNullable<ReturnType<typeof turnsOf>[number]>;
        const items = answerRoots(turn, live2026).flatMap((root) => [...root.querySelectorAll('li')]).filter((li) => li.firstElementChild?.tagName === 'P');
        expect(items.length).toBeGreaterThan(2); // the capture's own shape
        const response = readTurnNow(turn, turn.index, live2026).response;
        expect(response).not.toMatch(/^\s*(?:[-*]|\d+\.)\s*$/m);
        for (const li of items) {
          const head = squash(li.firstElementChild?.textContent ?? '').slice(0, 6); // its first words (a chip's name follows unspaced)
          expect(response).toMatch(new RegExp(`^\\s*(?:-|\\d+\\.) (?:\\*\\*)?${head.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'));
        }
      });
    }
  });

  describe('answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html (one chip, its title in an aria-label)', () => {
    it('a chip’s source is titled by its aria-label, not its short name; its "Trusted domain" badge is no title (captures review L4)', () => {
      load('answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html');
      const chip = document.querySelector('[data-pplx-citation-url]') as Element;
      const labelled = [...chip.querySelectorAll('[aria-label]')].filter((e) => e.getAttribute('role') !== 'img');
      expect(labelled).toHaveLength(1);
      const prose = document.querySelector('.prose') as Element;
      expect(fromInlineCitations(prose, live2026, URL)).toEqual([
        { title: labelled[0]?.getAttribute('aria-label'), url: chip.getAttribute('data-pplx-citation-url'), cited: true },
      ]);
      expect(squash(chip.textContent ?? '')).not.toBe(labelled[0]?.getAttribute('aria-label'));
    });
  });

  describe('search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html: grouped chips', () => {
    it('a chip whose name and "+N" the page writes on lines of their own counts as grouped (captures review L5)', () => {
      load('search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html');
      const chips = [...document.querySelectorAll('[data-pplx-citation-url]')];
      const plus = chips.map((c) => Number(/\+\s*(\d+)\s*$/.exec(c.textContent ?? '')?.[1] ?? 0));
      expect(plus.filter((n) => n > 0).length).toBeGreaterThan(0);
      expect(chips.map((c) => groupedCount(c.textContent ?? '', live2026))).toEqual(plus);
    });

    it('the tab moved to another conversation while the chips were opened: none of that page is returned (review 13d, 4)', async () => {
      loadHtml(readFileSync(join(folder as string, 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html'), 'utf8'), 'https://www.perplexity.ai/search/mine-abc');
      let clicks = 0;
      document.addEventListener('click', () => clicks++);
      let waits = 0;
      const waitFor = async () => {
        // The person opens another conversation from the sidebar: its turn at the same place.
        if (waits++ === 0) setUrl('https://www.perplexity.ai/search/theirs-xyz');
        return null;
      };
      const read = readSources({ win: window, doc: document, set: live2026, waitFor }, { expand: true, openTab: false });
      await expect(read).rejects.toMatchObject({ code: 'AGENT_ERROR', message: expect.stringMatching(/left the conversation whose sources were being read \(it was https:\/\/www\.perplexity\.ai\/search\/mine-abc, it is now .*theirs-xyz\); nothing of that page is returned/) });
      // The first chip's click only: none on the other conversation's.
      expect(clicks).toBe(1);
    });

    it('each grouped chip is hovered and clicked on its trigger, the [data-state] span inside it, where the page listens (review 13a, C1)', async () => {
      load('search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html');
      const heard: string[] = [];
      const triggers = [...document.querySelectorAll('[data-pplx-citation-url] > [data-state]')];
      for (const trigger of triggers) for (const type of ['pointerover', 'click']) trigger.addEventListener(type, (e) => e.target === trigger && heard.push(type));
      const read = await readSources({ win: window, doc: document, set: live2026, waitFor: async () => null }, { expand: true, openTab: false });
      expect(read.grouped).toBeGreaterThan(1);
      // Each grouped chip of the last turn: hovered, then clicked, on its own trigger.
      expect(heard.filter((t) => t === 'pointerover')).toHaveLength(read.grouped);
      expect(heard.filter((t) => t === 'click')).toHaveLength(read.grouped);
    });

    it('each grouped chip is clicked where the page shows it now, after a redraw of the answer (review 12a, #5)', async () => {
      load('search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html');
      const blocks = (turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>).blocks;
      // React listens at its root: a click on a dropped element reaches nobody.
      let reached = 0;
      document.addEventListener('click', (e) => {
        if ((e.target as Element).closest('[data-pplx-citation-url]')) reached++;
      });
      let waits = 0;
      const waitFor = async () => {
        if (waits++ === 0) for (const block of blocks) block.replaceWith(block.cloneNode(true));
        return null;
      };
      const read = await readSources({ win: window, doc: document, set: live2026, waitFor }, { expand: true, openTab: false });
      expect(read.grouped).toBeGreaterThan(1);
      expect(reached).toBe(read.grouped);
    });

    it('an action row the page draws while the grouped chips are opened is read: the turn is found again after (review 12a, #4)', async () => {
      load('search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html');
      // The answer ends while comet_get_sources opens its chips: the row ("15 sources") is not there yet when the read starts.
      const row = [...document.querySelectorAll('[data-workflow-text-footer]')].at(-1) as Element;
      const parent = row.parentElement as Element;
      const at = [...parent.childNodes].indexOf(row);
      parent.setAttribute('data-row-was-here', '');
      row.remove();
      const blocks = (turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>).blocks;
      let waits = 0;
      const waitFor = async () => {
        if (waits++ > 0) return null;
        // React mounts the turn anew as it ends (its blocks are new elements), with the row.
        for (const block of blocks) block.replaceWith(block.cloneNode(true));
        const now = document.querySelector('[data-row-was-here]') as Element;
        now.insertBefore(row, now.childNodes[at] ?? null);
        return null;
      };
      const read = await readSources({ win: window, doc: document, set: live2026, waitFor }, { expand: true, openTab: false });
      expect(waits).toBeGreaterThan(0);
      expect(read.stated).toBe(15);
    });
  });

  describe('sidebar-top-excerpt-AI-conversations-in-json-2026-09-27.html (the sidebar alone, no thread column)', () => {
    it('at a conversation address, neither turn nor prose: idle, no miss (a thread still drawing; review 2026-12-05 day 4, F1)', async () => {
      load('sidebar-top-excerpt-AI-conversations-in-json-2026-09-27.html');
      expect(document.querySelector('[class~="group/query"], [data-workflow-final-text], .prose')).toBeNull();
      const poll = await createPageDriver(window).poll();
      expect(poll).toMatchObject({ status: 'idle', turnCount: 0 });
      expect(poll.unconfirmed).toBeUndefined();
    });
    it('the public door without the library reads none of its thread titles, the projects’ names neither (day-7i review I1)', async () => {
      load('sidebar-top-excerpt-AI-conversations-in-json-2026-09-27.html');
      // A collapsed project opened, as a click would: its wrapper loses its zero height, visibility:hidden, inert, aria-hidden.
      for (const folded of Array.from(document.querySelectorAll('[inert]'))) {
        folded.removeAttribute('inert');
        folded.removeAttribute('aria-hidden');
        (folded as HTMLElement).style.visibility = '';
        (folded.parentElement as HTMLElement).style.height = '';
      }
      const driver = createPageDriver(window);
      // Each title's head: the row's visible text may be cut where its aria-label is whole.
      const titles = listConversations(driver.context()).map((c) => c.title.slice(0, 30));
      expect(titles.length).toBeGreaterThan(0);
      const whole = (await pageContent(driver, 100_000)).text;
      const own = (await pageContent(driver, 100_000, false)).text;
      for (const title of titles) {
        expect(whole).toContain(title);
        expect(own).not.toContain(title);
      }
      expect(whole).toContain('Bookmarks');
      expect(own).not.toContain('Bookmarks');
    });
  });
});

/**
 * Folding controls on the captures that are not the steps' header (review 2026-12-05 of the day's steps change, #2–#5
 * and #7): the reader never takes them for one, never reads their content as steps, and a read clicks nothing.
 */
describe.skipIf(!present)(`${title}: folds that are not steps`, () => {
  const FR = 'thread-page-main-excerpt-AI-conversations-in-json-2026-09-27.html';
  const EN = 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
  const SEVERAL = 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
  const REPORT = 'deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html';
  afterEach(() => {
    document.body.innerHTML = '';
  });
  /** Counts clicks on every button of the page. */
  const clicksOn = () => {
    const clicked: string[] = [];
    for (const b of document.querySelectorAll('button')) b.addEventListener('click', () => clicked.push(squash(b.getAttribute('aria-label') ?? b.textContent ?? '')));
    return clicked;
  };
  const lastTurn = () => turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>;

  it('a turn whose answer block is not drawn yet: the context pane’s Sources fold is no header; nothing is clicked', async () => {
    load(FR);
    document.querySelector('[data-workflow-final-text]')?.remove();
    const clicked = clicksOn();
    const poll = await createPageDriver(window).poll();
    expect(poll.steps).toEqual([]);
    expect(readTurnNow(lastTurn(), 0, live2026).stepsHeader).toBeUndefined();
    expect(clicked).toEqual([]);
  });

  it('an answer block with neither prose nor header: Share (a dialog) and More actions (a menu) are no header, and a wait’s read clicks neither', async () => {
    load(EN);
    const answer = document.querySelector('[data-workflow-final-text]') as Element;
    for (const p of answer.querySelectorAll('.prose')) p.remove();
    for (const b of answer.querySelectorAll('button[aria-expanded]')) if (/Researched/.test(b.textContent ?? '')) b.remove();
    const clicked = clicksOn();
    const { readTurn } = await import('../../lib/page/answer/reader');
    const read = await readTurn(createPageDriver(window).context(), -1);
    expect(read?.stepsHeader).toBeUndefined();
    expect(clicked).toEqual([]);
  });

  it('a finished turn’s folded header is read, and never clicked open', async () => {
    load(EN);
    const clicked = clicksOn();
    const { readTurn } = await import('../../lib/page/answer/reader');
    const read = await readTurn(createPageDriver(window).context(), -1);
    expect(read?.stepsFinished).toBe(true);
    expect(clicked).toEqual([]);
  });

  it('February’s report card: its Export menu is no header when the real header reads words no pattern knows', () => {
    load(REPORT);
    const header = [...document.querySelectorAll('button')].find((b) => /steps completed/.test(b.textContent ?? ''));
    if (header) header.textContent = 'Recherche en cours…';
    const state = readTurnNow(lastTurn(), 0, live2026);
    expect(state.stepsHeader ?? '').not.toMatch(/Export/);
    expect(state.steps).toEqual([]);
  });

  it('an answer block holding only its steps header (the French `group/step-header`, no prose yet) has no answer text', () => {
    load(FR);
    const answer = document.querySelector('[data-workflow-final-text]') as Element;
    answer.querySelector('[data-workflow-text-footer]')?.remove();
    answer.querySelector('.prose')?.closest('[dir="auto"]')?.remove();
    const state = readTurnNow(lastTurn(), 0, live2026);
    expect(state.stepsHeader).toMatch(/^Recherche/);
    expect(state).toMatchObject({ response: '', hasAnswer: false });
  });

  it('no prose class on the page (a repaint): the answer is never read as steps', () => {
    load(SEVERAL);
    for (const p of document.querySelectorAll('.prose')) p.classList.remove('prose');
    expect(readTurnNow(lastTurn(), 0, live2026).steps).toEqual([]);
  });
});

/**
 * The thread tools' page reading (the threads kit, used where the thread JSON cannot answer) says a turn is complete
 * only on the page's own sign, by the rule comet_poll uses (reader.ts statusOf): the action row where the set names
 * one, never a stop control's absence or a finished steps header (captures review 2026-12-05, H1).
 */
describe.skipIf(!present)(`${title}: the thread reader's "complete"`, () => {
  const ONE_TURN = 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
  const lastReading = async () => {
    const { readThreadDom } = await import('../../lib/page/threads/thread-dom-reader');
    const { threadPage2026 } = await import('../../lib/selectors/thread-page');
    return readThreadDom(createPageDriver(window).context(), threadPage2026, { threadId: 'x', stopped: () => false }).turns.at(-1);
  };

  it('a turn with its action row is complete', async () => {
    load(ONE_TURN);
    expect(await lastReading()).toMatchObject({ event: 'complete' });
  });

  it('the same turn before its action row (the answer still being written, research done): not complete', async () => {
    load(ONE_TURN);
    for (const row of document.querySelectorAll('[data-workflow-text-footer]')) row.remove();
    expect(await lastReading()).toMatchObject({ event: null });
  });

  it('a captured last turn with no action row (WebMCP, Aug 2026): not complete, as comet_poll says', async () => {
    load('search-thread-page-WebMCP-2026-08.html');
    expect((await createPageDriver(window).poll()).unconfirmed).toBeTruthy();
    expect(await lastReading()).toMatchObject({ event: null });
  });
});

/**
 * Since Sep 2026 the page draws the question with the answer's own renderer (`[data-renderer="lm"]` holding a `<p>` of
 * the answer prose's class): a prompt in Markdown shows without its marks. No capture holds such a question, so the
 * capture's question paragraph is given one, drawn as that renderer draws Markdown (review 13a, Q1).
 */
describe.skipIf(!present)(`${title}: a question written in Markdown, drawn rendered`, () => {
  const ONE = 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html';
  const typed = 'Which branch does `git init` create by **default**? See [the docs](https://git-scm.com/docs):\n1. one word\n- no more';
  const drawn = '<p>Which branch does <code>git init</code> create by <strong>default</strong>? See <a href="https://git-scm.com/docs">the docs</a>:</p><ol><li>one word</li></ol><ul><li>no more</li></ul>';
  const loadRendered = () => {
    load(ONE);
    const rendered = document.querySelector('[data-workflow-entry] [data-renderer="lm"]');
    expect(rendered, 'the capture draws its question with the renderer').not.toBeNull();
    (rendered as Element).innerHTML = drawn;
  };

  it('is the turn of the prompt typed, for the ask and the wait alike', async () => {
    loadRendered();
    const turn = turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>;
    expect(questionMatch(readQuestionNow(turn, live2026), questionKey(typed))).toBe('same');
    const waited = await createPageDriver(window).wait({ turnIndex: 0, conversationUrl: URL, questionKey: questionKey(typed), timeoutMs: 3000 });
    expect(waited.status).toBe('completed');
  });

  it('another question is still another', () => {
    loadRendered();
    const turn = turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>;
    expect(questionMatch(readQuestionNow(turn, live2026), questionKey('Which branch does git clone create by default?'))).toBe('different');
  });
});

describe.skipIf(!present)(`${title}: a Deep Research report drawn beside its answer block`, () => {
  it('comet_poll reads the report card and the summary, and comet_get_sources gives the report’s citations (captures review H2)', async () => {
    load('deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html');
    const poll = await createPageDriver(window).poll();
    const report = [...document.querySelectorAll('.prose')].sort((a, b) => (b.textContent ?? '').length - (a.textContent ?? '').length)[0] as Element;
    const title = squash(report.querySelector('h1')?.textContent ?? '');
    expect(title.length).toBeGreaterThan(0);
    expect(squash(poll.response)).toContain(title);
    // The summary the answer block holds comes after the report, as on the page.
    const summary = squash(document.querySelector('#markdown-content-0')?.textContent ?? '');
    expect(squash(poll.response).indexOf(summary.slice(0, 40))).toBeGreaterThan(squash(poll.response).indexOf(title));
    const cited = new Set([...report.querySelectorAll('[data-pplx-citation-url]')].map((c) => normalizeUrl(c.getAttribute('data-pplx-citation-url') as string)));
    expect(cited.size).toBeGreaterThan(10);
    const read = await readSources({ win: window, doc: document, set: live2026, waitFor: async () => null }, { expand: false, openTab: false });
    expect(new Set(read.sources.map((s) => normalizeUrl(s.url ?? '')))).toEqual(cited);
  });

  it('read_thread from the page lists the report’s citations as its sources, as comet_get_sources does (review 13a, S1)', async () => {
    load('deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html');
    const ctx = { win: window, doc: document, set: live2026, waitFor: async () => null } as never;
    const turn = readThreadDom(ctx, threadPage2026, { threadId: 'a-captured-thread', stopped: () => false }).turns.at(-1);
    const read = await readSources(ctx, { expand: false, openTab: false });
    expect(read.sources.length).toBeGreaterThan(10);
    expect(turn?.sources.map((s) => normalizeUrl(s.url)).sort()).toEqual(read.sources.map((s) => normalizeUrl(s.url ?? '')).sort());
  });

  it('its tables read as Markdown tables and its bold as **…**, as the thread JSON writes them', async () => {
    load('deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html');
    const response = (await createPageDriver(window).poll()).response;
    const tables = [...document.querySelectorAll('.prose table')];
    expect(tables.length).toBeGreaterThan(0);
    const rows = response.split('\n').filter((line) => line.startsWith('| ') && line.endsWith(' |'));
    // Every row of every table, and a `| --- |` line under each header row.
    expect(rows.length).toBe(tables.reduce((n, t) => n + t.querySelectorAll('tr').length + t.querySelectorAll('thead tr').length, 0));
    for (const table of tables) {
      const head = [...(table.querySelector('thead tr')?.children ?? [])].map((th) => squash(th.textContent ?? ''));
      const at = rows.indexOf(`| ${head.join(' | ')} |`);
      expect(at, head.join(' | ')).toBeGreaterThanOrEqual(0);
      expect(rows[at + 1]).toBe(`|${' --- |'.repeat(head.length)}`);
    }
    for (const strong of document.querySelectorAll('.prose strong')) expect(response).toContain(`**${squash(strong.textContent ?? '')}**`);
  });
});
