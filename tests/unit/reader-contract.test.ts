// @vitest-environment happy-dom
import { readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { askThrough } from '../../lib/page/kits/ask-kit';
import { createPageDriver } from '../../lib/page/driver';
import { sourcesThrough } from '../../lib/page/kits/source-reader';
import { formatWaitText, PAGE_MODES, pageMethods, type WaitResult } from '../../lib/protocol/page/page-methods';
import { MODES } from '../../lib/selectors/schema';
import { installExecCommand, wireChip } from '../fixtures/reader/fake-page';
import { loadFixture } from '../fixtures/reader/load';
import { conversationsThrough } from '../../lib/page/kits/panel-kit';
import { modeControl } from '../../lib/page/kits/mode-kit';

describe('driver results match the page-method schemas', () => {
  it('poll, wait, sources, conversations, mode, stop, probe', async () => {
    loadFixture('B-thread-streaming.html');
    wireChip('standard');
    const d = createPageDriver(window);
    pageMethods['page.poll'].result.parse(await d.poll());
    pageMethods['page.probe'].result.parse(d.selectorSet());
    pageMethods['page.mode'].result.parse(await modeControl(d).getMode());
    pageMethods['page.mode'].result.parse(await modeControl(d).setMode('create'));
    pageMethods['page.sources'].result.parse(await sourcesThrough(d, { openTab: false }));
    pageMethods['page.conversations'].result.parse(await conversationsThrough(d));
    pageMethods['page.wait'].result.parse(await d.wait({ afterTurn: 1, timeoutMs: 20 }));
    document.querySelector('button[aria-label^="Stop"]')?.addEventListener('click', (e) => (e.currentTarget as Element).remove());
    pageMethods['page.stop'].result.parse(await d.stop());
  });

  it('ask', async () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/');
    const exec = installExecCommand();
    const composer = document.getElementById('ask-input') as HTMLElement;
    composer.addEventListener('keydown', () => {
      composer.textContent = '';
      // The page takes it: a thread with the new turn showing the question.
      document.querySelector('main')?.insertAdjacentHTML(
        'afterbegin',
        '<div class="max-w-threadContentWidth"><div data-workflow-entry="0"><div class="group/query"><div class="select-text">x</div></div></div></div>',
      );
    });
    pageMethods['page.ask'].result.parse(await askThrough(createPageDriver(window), { prompt: 'x' }));
    exec.uninstall();
  });

  it('params defaults follow the comet_* reference', () => {
    expect(pageMethods['page.wait'].params.parse({})).toMatchObject({ timeoutMs: 120_000, stallMs: 10_000 });
    expect(pageMethods['page.ask'].params.parse({ prompt: 'p' })).toEqual({ prompt: 'p', newChat: false });
    expect(pageMethods['page.mode'].params.parse({})).toEqual({});
    expect(() => pageMethods['page.mode'].params.parse({ mode: 'copilot' })).toThrow();
  });

  it('the protocol mode list and the selector-set mode list are the same seven', () => {
    expect([...PAGE_MODES]).toEqual([...MODES]);
  });
});

describe('comet_wait texts from a wait result', () => {
  const base: WaitResult = {
    status: 'completed',
    response: 'The answer.',
    steps: ['Searching x', 'Reading y'],
    currentStep: '',
    turnIndex: 1,
    questionText: 'q',
    truncated: false,
    totalLength: 11,
    hasStopButton: false,
    url: 'https://www.perplexity.ai/search/x',
    elapsedMs: 5,
  };
  it('completed', () => {
    expect(formatWaitText(base)).toBe('The answer.\n\nSteps:\n  - Searching x\n  - Reading y');
  });
  it('timeout', () => {
    expect(formatWaitText({ ...base, status: 'timeout', response: 'part', currentStep: 'Reading y', hasStopButton: true })).toBe(
      'Agent is still working after timeout.\n\nSteps so far:\n  - Searching x\n  - Reading y\n\nPartial response:\npart',
    );
  });
  it('completed with nothing to show', () => {
    expect(formatWaitText({ ...base, response: '' })).toBe('Agent completed with no visible response.');
  });
  it('stopped says so in its own words: a cut-off answer never reads like a whole one (#20)', () => {
    const stopped = formatWaitText({ ...base, status: 'stopped' });
    expect(stopped).not.toBe(formatWaitText(base));
    expect(stopped).toBe('Agent was stopped: the answer below is cut off where it was stopped, not complete.\n\nThe answer.\n\nSteps before it was stopped:\n  - Searching x\n  - Reading y');
    expect(formatWaitText({ ...base, status: 'stopped', response: '', steps: [] })).toBe('Agent was stopped before it wrote an answer.');
  });
});

describe('content-script weight', () => {
  const bundle = (entry: string) =>
    build({
      entryPoints: [join(import.meta.dirname, entry)],
      bundle: true,
      minify: true,
      format: 'esm',
      write: false,
      platform: 'browser',
      metafile: true,
      // The content script's build points `wxt/browser` at Chromium's own API (lib/page/native-browser.ts);
      // WXT's wrapper adds about 0.3 kB gzip in the built file.
      external: ['wxt/browser'],
    });
  const gzip = (out: Awaited<ReturnType<typeof bundle>>) => gzipSync(out.outputFiles[0]?.contents ?? new Uint8Array(), { level: 9 }).length;
  const inputs = (out: Awaited<ReturnType<typeof bundle>>) => Object.keys(out.metafile.inputs);
  /** Code only thread tabs, the side panel, comet_mode, comet_ask (or a capture) need: it must never be in what every page runs. */
  const ON_DEMAND = [
    'panel-kit',
    'watch',
    'conversations',
    'thread-actions',
    'thread-answers',
    'thread-session',
    'thread-wait',
    'thread-json-reader',
    'thread-dom-reader',
    'thread-handlers',
    'json-path',
    'selectors/thread-json',
    'source-reader',
    'citations',
    'sources',
    'capture',
    'diagnose',
    'diagnostics-kit',
    'composer/mode',
    'mode-kit',
    'composer/actions',
    'composer/composer',
    'ask-kit',
  ];

  it('the driver bundles without zod, well under the 30 kB gzip budget', async () => {
    const out = await bundle('../../lib/page/driver.ts');
    expect(inputs(out).filter((i) => i.includes('node_modules'))).toEqual([]);
    // 15 kB until the driver learnt to read Computer tasks' prompts (several questions, sign-ins,
    // two-factor, forms: lib/page/checkpoints/thread-boxes.ts and its reader data), 16.8 kB then; binding waits
    // to their turn, cancellable asks and the mode pill took ~1.5 kB more (2026-12); the built-in
    // sets' French and Arabic words took ~1 kB. Reading sources moved to a kit (lib/protocol/page/page-kits.ts),
    // the thread readers' shelf came in: 17.2 kB measured 2026-12-01; the read cache (comet_poll and
    // page content served again while the page holds still, lib/page/answer/read-cache.ts) 0.46 kB more:
    // 17.7 kB; reading the live site's layouts (lib/page/dom/turns.ts, the live set, the composer's
    // stop control, the action row): 19.3 kB; typing through Lexical's own events and reading the mode
    // through whichever control the page shows (chip, radiogroup, slash menu): 20.0 kB, 2026-12-01.
    // Reading and switching the mode moved to the mode kit (lib/page/kits/mode-kit.ts): 18.3 kB (18,262
    // bytes), 2026-12-01. Formulas and the set probed again on navigation: 18,515. The built-in sets'
    // French and Arabic words moved to the worker, which hands them to every page (lib/selectors/words.ts):
    // 17,822 bytes, 2026-12-01. A snapshot assembling the turns once (the stop control and a bound wait
    // reuse them) and tool rows read by their label: 17,944 bytes, 2026-12-01. Every status from the page's
    // signs (the action row required where the set names one, a turn with neither sign handed to the thread
    // JSON with the miss it would raise, "Stop dictation" never the stop control): 18,371, 2026-12-02. The
    // Sep 2026 question block and steps headers, a taken prompt never "not taken"; the never-used unfolding
    // of a folded question (every caller passed expandQuestion: false) removed: 18,470. Merged 2026-12-02 with the
    // draft kept over Lexical's model, the repair's reading set, the page-access hook and the mode read: 19,104.
    // The ask itself (typing, submitting, confirming, the draft put back) moved to the ask kit
    // (lib/page/kits/ask-kit.ts), the driver keeping its queue and last ask: 16,701 bytes, 2026-12-02. A turn
    // stopped here kept stopped in comet_poll after its action row, and no longer once it works again (regenerated): 16,853.
    // The hooks by which a bound wait and comet_poll read the turn's own ask stream (issue 30; the reading is in the ask kit): 17,083; a page
    // that drew the turn's end while its stream is still open waits for the stream's end: 17,221, 2026-12-04.
    // A wait tells the moment it sees its turn end (comet_wait's thread JSON fetched then, issue 31 item 5), and
    // notes it for the bench's trace: 16,965, 2026-12-04. The error-code list no longer carried (RelayError from
    // lib/protocol/error/relay-error.ts), the ask queue and the ask's own checks in the ask kit: 16,594, 2026-12-04.
    expect(gzip(out)).toBeLessThan(17_500);
  });

  it('what every Perplexity page runs carries no ask, thread, sources, mode, side-panel or diagnostics code', async () => {
    const out = await bundle('../../entrypoints/perplexity.content.ts');
    expect(inputs(out).filter((i) => i.includes('node_modules'))).toEqual([]);
    expect(inputs(out).filter((i) => ON_DEMAND.some((name) => i.endsWith(`${name}.ts`)))).toEqual([]);
    // The words travel, they are not carried: none of the other languages' words is in the page script.
    // esbuild writes them as ASCII escapes (`Arr\xEAter`), read back here.
    const text = new TextDecoder()
      .decode(out.outputFiles[0]?.contents)
      .replace(/\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4}))/g, (_, x: string | undefined, u: string | undefined) => String.fromCharCode(Number.parseInt(x ?? u ?? '', 16)));
    expect(text).toContain('Stop response');
    // Nor the error-code list (lib/protocol/error/codes.ts): the page script knows its errors by their class's name.
    expect(inputs(out).filter((i) => /lib\/protocol\/(errors|error\/codes)\.ts$/.test(i))).toEqual([]);
    expect(text).not.toContain('CDP_CONNECTION_FAILED');
    for (const word of ['Arrêter la réponse', 'Recherche approfondie', 'إيقاف الرد', 'بحث معمّق']) expect(text).not.toContain(word);
  });

  it('the main-world tap every Perplexity page runs carries the fetch wrapper and its events, nothing else', async () => {
    const out = await bundle('../../entrypoints/perplexity-tap.content.ts');
    expect(inputs(out).filter((i) => !/lib\/page\/stream\/tap|lib\/selectors\/stream\/endpoints|lib\/protocol\/urls|perplexity-tap/.test(i))).toEqual([]);
  });

  // The budget is on what the browser loads: the built files, gzip -9, as bench row (d) measures them
  // (docs/measured.md). Until 2026-12-05 this guard measured an esbuild bundle of the same entries instead, which
  // runs ~0.6 kB above the page script's built file (esbuild's minifier against the build's) and ~0.1 kB below the
  // tap's, so the page script was held ~0.5 kB under a budget it met. How each figure grew: `git log -p` of this file.
  // `npm test` builds before it runs the unit tests; a build older than the code it was made from is refused here.
  const built = async (entry: string, file: string) => {
    const out = await bundle(`../../entrypoints/${entry}`);
    const path = join(import.meta.dirname, '../../.output/chrome-mv3/content-scripts', file);
    const made = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    expect(made, `${path} is missing: run npm run build`).toBeDefined();
    const root = join(import.meta.dirname, '../..');
    const newer = inputs(out).filter((i) => statSync(join(root, i)).mtimeMs > (made ?? 0));
    expect(newer, `${file} is older than its sources: run npm run build`).toEqual([]);
    return gzipSync(readFileSync(path), { level: 9 }).length;
  };

  it('the two scripts every Perplexity page runs stay under the 20 kB budget together, each under its own guard', async () => {
    const [page, tap] = await Promise.all([built('perplexity.content.ts', 'perplexity.js'), built('perplexity-tap.content.ts', 'perplexity-tap.js')]);
    // Guards just above today's figures, so any growth is seen and justified (2026-12-05: 18,459 + 1,034 = 19,493; 18,539 + 1,051 with captures review L3, L4, L1 and stream review #10;
    // 18,685 with the page's Markdown as the site's: bold, italics, tables; L3 taken back, day-4 review F1; 18,758 with
    // emphasis marks that hug their words and tables that stay tables, day-4 review F4, F5; 18,829 with every `|` of a
    // cell escaped and an emphasis that shows nothing, or ends in a break, written right: page review F1, F3, F4;
    // 18,859 with an emphasis closed at every break and opened again after a block's marker: day-7c review T1–T3;
    // 18,938 with the thread page reader's Deep Research report card, 2026-12-06: the reader is the page script's;
    // 18,950 with a stop mark that follows a new thread to its address by the turn's question, in place of the mark
    // by the turn's element: review 12a, #8; 18,967 with a question known by its letters and digits, as the Sep 2026
    // page draws a prompt's Markdown rendered: review 13a, Q1; 18,912 without the turn miss's own next step, which the
    // MCP layer now gives every miss; 18,964 with a question keyed by its symbols and marks too and a stop mark by
    // question taken once: review 13d, 1, 3; 18,343 with only the thread page reader's box fields in the page script,
    // the rest in the kits that read it, 2026-12-06; 18,411 with a list item's paragraph on its marker's line, review
    // 13a, L1); 18,465 with the built-in readers the worker gives kept for the threads kit (the threads kit −2,495).
    // The tap 1,074 (1,032 before) with only the page's own POSTs watched, review 14a, #3.
    // Code that grows them past 20,000 together must push something else into a kit.
    expect(page).toBeLessThan(18_480);
    expect(tap).toBeLessThan(1_100);
    expect(page + tap).toBeLessThanOrEqual(20_000);
  });

  it("WXT's content-script context is not built in, and no content script's main() takes it", () => {
    // wxt.config.ts points `wxt/utils/content-script-context` at an empty class (lib/page/no-context.ts) for the
    // content scripts: a main(ctx) would get nothing it could use.
    for (const entry of ['perplexity.content.ts', 'perplexity-tap.content.ts']) {
      const source = readFileSync(join(import.meta.dirname, '../../entrypoints', entry), 'utf8');
      expect(source, entry).toMatch(/\bmain\(\)\s*\{/);
    }
    const config = readFileSync(join(import.meta.dirname, '../../wxt.config.ts'), 'utf8');
    expect(config).toContain('content-script-context');
    expect(config).toContain('lib/page/no-context.ts');
  });

  it("the threads kit runs on the page script's readers, never a shelf of its own", async () => {
    // A kit carries its own copy of shared code; a module-level reader shelf copied into it would be
    // an empty second shelf that ignores the readers added as files (lib/page/checkpoints/thread-readers.ts).
    const out = await bundle('../../entrypoints/page-threads.ts');
    const output = Object.values(out.metafile.outputs)[0];
    const used = (file: string) => output?.inputs[file]?.bytesInOutput ?? 0;
    expect(used('lib/page/checkpoints/thread-readers.ts')).toBe(0);
    expect(used('lib/page/checkpoints/interactions.ts')).toBe(0);
  });

  it('the on-demand kits stay near their measured sizes', async () => {
    // Regression guards set just above the sizes measured 2026-12-01 (threads 20.5 kB, 21.3 kB with the composer's typing and mode controls, sources
    // 3.8 kB, diagnostics 2.9 kB, panel 5.8 kB, most of it its own copy of the turn reader): each is loaded once into a tab that needs it, so not budgeted like
    // the page script, but growth should be a decision, not an accident. The live site's turn reading
    // (each kit carries a copy), the composer's typing and mode controls, and the thread JSON reader on
    // the real shapes (questions and their answer items, the thread's kind, wake time and shared files)
    // grew them (2026-12-01). Measured 2026-12-01 after comet_mode's page side became the mode kit:
    // threads 23.9 kB (23,935 bytes), sources 5.0 kB, diagnostics 2.9 kB, panel 6.7 kB, mode 4.8 kB
    // (4,760: the mode code with its own copy of the composer's typing, for the slash menu). Measured
    // again 2026-12-01 when the built-in sets' other languages moved to the worker (no kit changed):
    // threads 24,324, sources 4,973, diagnostics 2,867, panel 6,763, mode 4,758. Threads then read a
    // Computer task's tool rows and its credits notice by their words, and turns by the page's own index: 24,629; the turns assembled once per snapshot: 24,705;
    // the action row found inside the answer block too, and the stop control's decoys (2026-12-02): threads 24,802, panel 6,803; the Sep 2026 question and steps header: threads 25,033; only the popover a citation opened: sources 5,111.
    // 2026-12-02: the mode controls told apart by order and the toggle's name or icon (both buttons
    // carry aria-pressed on the Sep 2026 page), read by the mode, panel and threads kits alike: threads
    // 25,564, panel 7,531, mode 5,525.
    // 2026-12-02, merged: the capture keeps no slug or somebody's text in a step header (diagnostics 3,505); sources
    // numbered as the page numbers them (5,230).
    // 2026-12-02: the ask kit (lib/page/kits/ask-kit.ts), the ask moved out of the page script: 7,313, most of it its own copy
    // of the composer's typing and of the turn reader it confirms the new turn with. The repair kit (issue 24), which
    // had no row: 8,305 (the built file 8,120); it loads with a tab's first wait on each conversation (its "fine" check).
    // 2026-12-04: the capture tells a generated id from a slug or a name with a digit (review #15): diagnostics 3,568;
    // the repair never takes the thread list for a question and names no thread in its pack (#9, #16): repair 8,535.
    // 2026-12-04: the library's list is a POST (issue 29), made by the panel kit (`library.post`) rather than the page
    // script, which stays a GET and under its guard: panel 8,112; the error codes the library added: mode 5,805.
    // 2026-12-04: the ask kit reads the page's own ask streams (SSE, JSON patches, the stream reader's data and the path
    // language: lib/page/stream/, issue 30): 11,058; confirming an ask by its stream, citations linked: 11,278. The sources kit gives a finished stream's web_results: 5,362;
    // doctor --page says what the tap saw: diagnostics 3,597 (3,650 with the capture's opaque-id rule).
    // 2026-12-04, after the evening's merges: threads 26,517 (over its guard on main); the ask kit takes a bound wait's
    // race with its turn's stream from the page script (StreamReading.wait): 11,550. 2026-12-04: the tab's ask queue and
    // the ask's own checks move here from the page script's driver (askThrough), for the page script's budget: 11,799; a traced bound wait notes its stream's moments
    // (bench (a)'s stream hops) and the SSE reader scans each piece once (+~100).
    // 2026-12-05: a poll of a streaming turn reads the page without its prose and keeps its answer while nothing moved
    // (StreamReading.pollThrough), the linked Markdown made once a frame (bench (b)): 12,022. A page on a conversation no
    // stream names reads no other thread's stream (the one rule for a thread's URL, lib/protocol/threads/thread-ids.ts): 12,286;
    // a terminate after the final frame stops nothing: 12,304; a taken prompt's TIMEOUT names its turn: 12,364; a cancel
    // after the submit puts the person's draft back (review 2026-12-05, page #1): 12,460.
    // 2026-12-05: the steps read from the box around their header (no guessed container; sim review #1) and selector
    // candidates no capture, report or sim page has dropped: ask 12,419, threads 26,601, repair 8,625. A running entry
    // the JSON knows only as running leaves the page to answer for it (review of the day's change #10): threads 26,688.
    // comet_get_page_content moved from the page script into the sources kit, for the page script's budget: sources
    // 6,908 (its own copy of the text renderer).
    // 2026-12-05 (later): the mode read that only looks, for the worker to queue one that would open the mode menu or
    // type "/" (late review #3), and a chip set's unmarked slash menu named as a miss (page review #4): threads 26,787
    // (mode.ts is in the threads kit for a new thread's mode), mode 5,674. The thread reader's "complete" by comet_poll's
    // rule, the action row (captures review H1; statusOf and answerFooter come into the kit): threads 26,940. A citation
    // chip's URL kept in the page's Markdown (captures review M2; text.ts, in every kit that renders): repair 8,710.
    // The thread JSON's later pages by cursor, 100 at a time, and a list cut at maxPages never read as the thread
    // (threads review M3): threads 27,096. The wait taking the page's end after two JSON reads that say only "running"
    // (threads review M1) and the refusal of files with a reply shared with the MCP tools (L2): threads 27,167. The
    // number of sources the page states ("15 sources", captures review M1), its words the set's: sources 7,136. A wait's
    // progress its caller's (threads review L6), a follow-up refused before typing says so (day-2 review H2), and the
    // page taken over the JSON only where the JSON calls the entry finished (day-2 M1): threads 27,216. A lagging JSON
    // asked twice as late each time, and a question on the page taken after one lagging read (day-3 L3): 27,276. The
    // kit grew ~530 bytes on 2026-12-05 for fixes: a trim pass is due before it grows again. It came: Computer mode for
    // a new thread is set by the worker through the mode kit, and the threads kit drops mode.ts: 24,410. A conversation's
    // address with no turn found left unconfirmed (captures review L3; reader.ts, which the sources kit carries): sources 7,175 (taken back: day-4 review F1);
    // a chip titled by its aria-label (L4) and a question's lines kept (L1): 7,257, the panel kit 8,216,
    // ask 12,542, repair 8,770, threads 24,499 (each carries its own copy of the reader). The page's Markdown with bold,
    // italics and tables as the site writes them (text.ts, in every kit that renders): threads 24,652, sources 7,388,
    // panel 8,321, repair 8,878, ask 12,654; emphasis and tables made right (day-4 review F4, F5): threads 24,798,
    // sources 7,487, panel 8,456, repair 9,030, ask 12,769. Every `|` of a cell escaped, an emphasis's marks written
    // only with its first word and closed before its trailing breaks (page review F1, F3, F4): threads 24,873, sources
    // 7,565, panel 8,523, repair 9,091, ask 12,812; an emphasis closed at every break and cell's end and opened again
    // after a block's marker (day-7c review T1–T3): threads 24,910, sources 7,586, panel 8,551, repair 9,114, ask
    // 12,842. The page's text without its conversation links for the public door (worker review F2; day-7h K1): sources 7,707.
    // One rule for an answer kept whole or in chunks, the stream's and the thread JSON's (review 10, sim F4): threads
    // 24,978. A prompt that waited behind an answer is not typed in a conversation the tab went to meanwhile (review 10,
    // router; actions.ts, in the ask and threads kits): threads 25,077, ask 12,981; told by the conversation's id, and from
    // home only while the answer being written is the page's last (review 11b, F1, F2): threads 25,208, ask 13,050;
    // whatever the address, and folded or not (review 11c, W1, W2): threads 25,257, ask 13,074. The renderer is in every
    // kit: a trim of it pays five times. 2026-12-06: several boxes answered each where the page shows it now (a5b53fb),
    // and the reader's Deep Research report card (data the threads kit carries with the reader): threads 25,437; the
    // card read for comet_wait (`page.report`), with the built-in probe alone: sources 7,971; the panel kit carries the
    // reader too: 8,645. A composer, a box or a notice the page drew anew while we awaited is found again (the composer
    // by the one shown now, a box by its id, a notice by its words; actions.ts is in the ask and threads kits): threads
    // 25,553, ask 13,150; never sent into a conversation the tab went to meanwhile, Submit found by the composer shown
    // at each look (review of those fixes): threads 25,655, ask 13,252; the report card of the turn the wait returned,
    // never the question's or the answer's words: sources 8,116. A refusal with the words of an earlier notice taken
    // at the ask's end, a box whose derived id changed found by its words, partial answers said: threads 25,858, ask
    // 13,270. The ask's second mends (a refusal at the end only while the prompt stayed, no Submit pressed in another
    // conversation, a task's slug by its id) and derived box ids no more trusted after a redraw: threads 26,060, ask
    // 13,372. The threads kit grew ~800 bytes on 2026-12-06 for these fixes: trim it before it grows again. page.report
    // knows a conversation by its id, as the ask does (sameConversation and the thread-id rules): sources 8,366. The
    // turn and its grouped chips found again after each await (review 12a, #4, #5): sources 8,474; a chip's events
    // sent to its trigger inside it (review 13a, C1): sources 8,503. A question known by its letters (13a, Q1) and a
    // report's citations among a page-read turn's sources (13a, S1): threads 26,106, ask 13,398. The trim is overdue.
    // The turn miss without its own next step (the MCP layer gives every miss one): sources 8,436; a read that stops
    // when the tab leaves the conversation (review 13d, 4): sources 8,595. The thread page reader's box fields on
    // their own (the page script's part of it): panel 7,966. A list item's paragraph on its marker's line (13a, L1),
    // in every kit that renders text: threads 26,198, sources 8,659, panel 8,031, ask 13,417, repair 9,197. A task
    // followed under another slug by its id (review 14b, F1): threads 26,247, sources 8,698, ask 13,440 (the threads kit's trim: the built-in thread JSON
    // reader, 5.1 kB of it before gzip, could come from the worker as the packs do). A stream is an answer only when
    // an answer was read from it; a renamed event, an event after the end, an endless frame each named (review 14a,
    // #1, #4–#6): ask 13,645; a newer stream with no frame yet kept in the binding's pool (#2): ask 13,676. The
    // thread JSON's own thread_status read (review 14b, F2): threads 26,276; a page reading's entry status from the
    // event table, in the worker (F3): threads 26,232; the JSON's own status only for a turn it calls finished
    // whose answer was not read (review 14d): threads 26,279. A uuid is no task id (review 14d, 4): sources 8,732,
    // ask 13,708. The threads kit's built-in thread JSON and page readers come from the worker with the packs
    // (reader-shelf.ts setBuiltIns), the trim due since 2026-12-06's first session: threads 23,784 (−2,495); panel 8,062.
    // The panel's watch reads boxes with the page script's reader, packs included: panel 8,091. One rule for cutting
    // text, which keeps an emoji whole (review 15a, F4), and one thread session for a task under a new slug (F3):
    // threads 23,854. One paging rule for every read of the thread JSON (review 15e, F5, F6) and the export's readers of
    // files and questions (F1, F3): threads 23,874.
    const limits = { 'page-threads': 23_880, 'page-sources': 8_750, 'page-diagnostics': 3_750, 'page-panel': 8_110, 'page-mode': 5_850, 'page-ask': 13_720, 'page-repair': 9_210 };
    for (const [entry, limit] of Object.entries(limits)) {
      const out = await bundle(`../../entrypoints/${entry}.ts`);
      expect(inputs(out).filter((i) => i.includes('node_modules'))).toEqual([]);
      // No kit carries the error-code list either.
      expect(inputs(out).filter((i) => /lib\/protocol\/(errors|error\/codes)\.ts$/.test(i)), entry).toEqual([]);
      expect(gzip(out), entry).toBeLessThan(limit);
    }
  });
});
