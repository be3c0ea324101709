// @vitest-environment happy-dom
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PageWatcher } from '../../lib/page/answer/observer';
import { turnsOf } from '../../lib/page/dom/turns';
import { readSources } from '../../lib/page/kits/source-reader';
import { all } from '../../lib/page/dom/dom';
import { modeOf } from '../../lib/page/composer/mode';
import { chooseSelectorSet, live2026, SELECTOR_SETS } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';
import { AskStream } from '../../lib/page/stream/ask-stream';
import { applyPatch, type PatchOp } from '../../lib/page/stream/json-patch';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { readThreadJson } from '../../lib/page/threads/thread-json-reader';
import { entryStateOf } from '../../lib/worker/threads/json-answer';
import { finishedTurns } from '../../lib/worker/calls/repairs';

/**
 * What review 10 (the sim against the captures) found only the captures show, held against them (read from
 * COMET_REAL_PERPLEXITY, never copied here): on a February thread of several turns every turn's Links panel carries
 * one and the same id, which the Links tab names, so the page's first panel answered for the last turn's (sim F1); in
 * the September mode menu Model council is a plain menuitem beside the radio rows, so it could not be chosen (sim F3);
 * an answer still written keeps `text: ""` beside its chunks, which the thread JSON readers took for the answer
 * while the stream's reader read the chunks (sim F4).
 */
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
if (!present) console.warn('real-review10: COMET_REAL_PERPLEXITY names no folder of real perplexity.ai captures; skipping.');

afterEach(() => {
  document.body.innerHTML = '';
});

describe.skipIf(!present)('the Links tab on a real February thread of three turns', () => {
  it("reads the last turn's own panel, though all three share one id", async () => {
    loadHtml(readFileSync(join(folder, 'search-thread-page-obsidian-AI-exporter-2026-02-27.html'), 'utf8'), 'https://www.perplexity.ai/search/a-captured-thread');
    const panels = [...document.querySelectorAll('[role="tabpanel"][id$="-content-sources"]')];
    expect(panels).toHaveLength(3);
    expect(new Set(panels.map((p) => p.id)).size).toBe(1);
    expect(turnsOf(document, live2026)).toHaveLength(3);
    // What the page's tabs do on the Links click: every turn's panel opens, each with its own turn's sources.
    for (const tab of document.querySelectorAll('[role="tab"][id$="-trigger-sources"]')) {
      tab.addEventListener('click', () => {
        panels.forEach((p, i) => {
          p.removeAttribute('hidden');
          p.setAttribute('data-state', 'active');
          p.innerHTML = `<a href="https://turn-${i}.example.org/only-source">Turn ${i} source</a>`;
        });
      });
    }
    const set = chooseSelectorSet(document, null, SELECTOR_SETS).set;
    const watcher = new PageWatcher(window, () => set);
    const got = await readSources({ win: window, doc: document, set, waitFor: watcher.waitFor }, { expand: false, openTab: true });
    expect(got.fromTab).toBe(true);
    const urls = got.sources.map((s) => s.url ?? '');
    expect(urls[0]).toBe('https://turn-2.example.org/only-source');
    expect(urls).not.toContain('https://turn-0.example.org/only-source');
  });
});

describe.skipIf(!present)('the mode menu of 2026-09-24', () => {
  it('offers Model council, a plain menuitem with a "Max" badge, beside the radio rows', () => {
    loadHtml(readFileSync(join(folder, 'mode-menu-open-Perplexity-Comet-MCP-jcalderonzumba-2026-09-24.html'), 'utf8'), 'https://www.perplexity.ai/');
    const set = chooseSelectorSet(document, null, SELECTOR_SETS).set;
    const menu = document.querySelector('[role="menu"]') as Element;
    expect(all(menu, set.modeMenuItem).map((item) => modeOf(item, set))).toEqual(['standard', 'deep-research', 'model-council', 'learn']);
  });
});


describe.skipIf(!present)('an answer entry of 2026-08-04 while it is written (text "" beside its chunks)', () => {
  type Block = Record<string, unknown> & { intended_usage: string; diff_block?: { field: string; patches: PatchOp[] } };
  const messages = () =>
    readFileSync(join(folder, 'sse-perplexity-ask-perplexity-client-complete-2026-08-04.sse'), 'utf8')
      .split('\r\n\r\n')
      .filter((e) => e.startsWith('event: message'))
      .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as { blocks: Block[] } & Record<string, unknown>);

  it('every thread JSON reader reads the chunks, as the stream does, for a turn stopped before its text was filled', () => {
    const frames = messages().slice(0, 11);
    const stream = new AskStream(askStream2026, {}, 0);
    for (const f of frames) stream.push(`event: message\r\ndata: ${JSON.stringify(f)}\r\n\r\n`);
    const sofar = stream.markdown();
    // The entry as the site stores it: the first frame whole, each later frame's patches applied to its block (after
    // the stream has its copy: the patches' values become part of the entry, and later patches change them).
    const entry = structuredClone(frames[0]) as { blocks: Block[]; status?: string };
    for (const f of frames.slice(1)) {
      for (const b of f.blocks) {
        if (!b.diff_block) continue;
        let have = entry.blocks.find((x) => x.intended_usage === b.intended_usage);
        if (!have) {
          have = { intended_usage: b.intended_usage };
          entry.blocks.push(have);
        }
        have[b.diff_block.field] = applyPatch((have[b.diff_block.field] ?? {}) as object, b.diff_block.patches);
      }
    }
    expect(sofar).toMatch(/^The capital of Australia is \*\*Canberra\*\*/);
    const flow = entry.blocks.find((b) => b.intended_usage === 'workflow_root')?.workflow_block as { status: string; steps: unknown };
    expect(JSON.stringify(flow.steps)).toContain('"text":""');
    flow.status = 'WORKFLOW_CANCELED';
    entry.status = 'COMPLETED';

    const turn = readThreadJson([{ entries: [entry] }], threadJson2026, { threadId: 't', url: 'u' }).turns[0];
    expect(turn).toMatchObject({ event: 'cancelled', answer: sofar });
    const finished = { url: 'u', turnIndex: 0, questionText: 'what is the capital of Australia' };
    expect(entryStateOf([entry], finished as never, threadJson2026)).toEqual({ state: 'stopped', answer: sofar });
    flow.status = 'WORKFLOW_COMPLETED';
    expect(finishedTurns([entry], threadJson2026)[0]?.answer).toBe(sofar);
  });
});
