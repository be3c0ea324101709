// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { takeSnapshot } from '../../lib/page/answer/observer';
import { readTurnNow, stopButton } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { live2026 } from '../../lib/selectors';
import { flush, loadHtml } from '../fixtures/reader/load';

/**
 * The reader on the live site's layout (lib/selectors/README.md, "The live site"), in markup of our
 * own: question and answer as sibling blocks, the stop control in the composer, the action row as
 * the "done" sign, and only the latest turns mounted.
 */
const question = (n: number, text: string) =>
  `<div data-workflow-entry="${n}"><div class="group/user-bubble"><span class="whitespace-pre-line">${text}</span></div></div>`;
const answer = (text: string) =>
  `<div class="group/final-text" data-workflow-final-text=""><div class="prose" data-renderer="lm"><p>${text}</p></div></div>`;
const footer = '<div class="contents"><div data-workflow-text-footer=""><button aria-label="Copy"></button><button aria-label="Helpful"></button></div></div>';
const stop = '<button aria-label="Stop response"><svg><use xlink:href="#pplx-icon-player-stop-filled"></use></svg></button>';
const page = (turns: string, composerButtons = '<button aria-label="Submit"></button>', elsewhere = '') => `
  <main>${elsewhere}<div class="max-w-threadContentWidth"><div class="flex flex-col">${turns}</div></div>
  <div data-ask-input-container="true"><div id="ask-input" contenteditable="true" data-lexical-editor="true"></div>
  <span data-testid="ask-input-mode-toggle-width-wrapper"><button data-state="closed" aria-pressed="true">Search</button></span>${composerButtons}</div></main>`;

afterEach(() => {
  document.body.innerHTML = '';
});

describe('the live layout: sibling blocks', () => {
  it('a question block and the answer and action row after it are one turn; each turn reads its own', () => {
    loadHtml(page(question(0, 'first?') + answer('One.') + footer + question(1, 'second?') + answer('Two.') + footer));
    const turns = turnsOf(document, live2026);
    expect(turns.map((t) => t.index)).toEqual([0, 1]);
    expect(turns[1]?.blocks).toHaveLength(3);
    expect(takeSnapshot(document, live2026)).toMatchObject({ turnCount: 2, turnIndex: 1, footer: true, hasStopButton: false });
  });

  it('only the latest turns mounted: the latest is told by the page’s index, not by counting blocks', async () => {
    const mounted = [5, 6, 7, 8, 9].map((n) => question(n, `q${n}`) + answer(`a${n}`) + footer).join('');
    loadHtml(page(mounted));
    const poll = await createPageDriver(window).poll();
    expect(poll).toMatchObject({ turnCount: 10, lastTurnIndex: 9, questionText: 'q9', response: 'a9', status: 'completed' });
  });

  it('an answer whose question is not mounted is a turn of its own, numbered after the one before', () => {
    loadHtml(page(question(3, 'q3') + answer('a3') + footer + answer('a4') + footer));
    expect(turnsOf(document, live2026).map((t) => [t.index, t.question !== null])).toEqual([
      [3, true],
      [4, false],
    ]);
  });

  it('an empty answer block mounted beside the real one does not split the turn', () => {
    loadHtml(page(`${question(0, 'q')}<div id="markdown-content-0"></div>${answer('The answer.')}${footer}`));
    const turns = turnsOf(document, live2026);
    expect(turns).toHaveLength(1);
    expect(turns[0]?.answers[0]?.textContent).toBe('The answer.');
  });
});

describe('liveness from the right signals', () => {
  it('the stop control is the composer’s button with the stop icon or the "Stop response" label; dictation and read-aloud stops are not it', () => {
    const decoys = '<button aria-label="Stop dictation"></button>';
    const readAloud = '<div><button aria-label="Stop">read aloud</button><button aria-label="Stop response (Esc)">x</button></div>';
    loadHtml(page(question(0, 'q') + answer('Partial'), decoys, readAloud));
    expect(stopButton(document, live2026, turnsOf(document, live2026).at(-1) ?? null)).toBeNull();
    loadHtml(page(question(0, 'q') + answer('Partial'), `${decoys}${stop}`, readAloud));
    expect(stopButton(document, live2026, null)?.getAttribute('aria-label')).toBe('Stop response');
    // Localized label: the icon still says it.
    loadHtml(page(question(0, 'q') + answer('Partial'), '<button aria-label="Arrêter la réponse"><svg><use href="#pplx-icon-player-stop-filled"></use></svg></button>'));
    expect(stopButton(document, live2026, null)).not.toBeNull();
  });

  it('the answer block mounted with its first token is not "done": the wait ends when the action row appears', async () => {
    // A follow-up: the earlier turn's action row is what tells the live site's set from the simulated generation B's.
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'q') + answer('First words'), stop));
    const driver = createPageDriver(window);
    expect(driver.selectorSet().name).toBe(live2026.name);
    const waiting = driver.wait({ afterTurn: 1, timeoutMs: 5000, stallMs: 5000 });
    await flush();
    expect((await driver.poll()).status).toBe('working');
    const list = document.querySelector('.flex.flex-col') as Element;
    document.querySelector('[data-ask-input-container] button[aria-label="Stop response"]')?.remove();
    (list.querySelectorAll('.prose p')[1] as Element).textContent = 'First words, and the rest.';
    list.insertAdjacentHTML('beforeend', footer);
    const out = await waiting;
    expect(out).toMatchObject({ status: 'completed', response: 'First words, and the rest.' });
  });

  it('where the row never comes, the text holding still is no "done": the wait hands the turn to the JSON, naming what it tried (#1)', async () => {
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'q') + answer('Some'), stop));
    const driver = createPageDriver(window);
    expect(driver.selectorSet().name).toBe(live2026.name);
    const waiting = driver.wait({ afterTurn: 1, timeoutMs: 8000, stallMs: 8000 });
    await flush();
    document.querySelector('[aria-label="Stop response"]')?.remove();
    await flush();
    (document.querySelectorAll('.prose p')[1] as Element).textContent = 'Some more words.';
    const out = await waiting;
    expect(out.status).not.toBe('completed');
    expect(out.unconfirmed).toMatch(/^stopButton\/answerFooter: none of .*\[data-workflow-text-footer\].* matched on https:\/\/www\.perplexity\.ai\/search\/x for a turn with text \(selector set gen-b-2026-10-live\)$/);
    const poll = await driver.poll();
    expect(poll).toMatchObject({ status: 'working', hasStopButton: false });
    expect(poll.unconfirmed).toContain('stopButton/answerFooter: none of');
  });

  it('a turn comet_stop stopped reads as stopped at once: our click on its stop control is the sign, before the page draws any other', async () => {
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'Write forever') + answer('Once upon a'), stop));
    const driver = createPageDriver(window);
    expect(await driver.poll()).toMatchObject({ status: 'working', hasStopButton: true });
    const button = document.querySelector('[aria-label="Stop response"]');
    button?.addEventListener('click', () => button.remove());
    expect(await driver.stop()).toMatchObject({ stopped: true, message: 'Agent stopped.' });
    // No stopped header, no action row yet: the page shows neither sign; our stop is the one.
    const after = await driver.poll();
    expect(after).toMatchObject({ status: 'completed', stopped: true, hasStopButton: false });
    expect(after.unconfirmed).toBeUndefined();
  });

  it('a turn comet_stop stopped stays stopped once the page draws its action row under the cut-off answer: the row says "ended", our click says how', async () => {
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'Write forever') + answer('Once upon a'), stop));
    const driver = createPageDriver(window);
    const button = document.querySelector('[aria-label="Stop response"]');
    // As the capture made askable does (tests/support/askable-page.ts): the stop control gives way, the row comes.
    button?.addEventListener('click', () => {
      button.remove();
      document.querySelector('.flex.flex-col')?.insertAdjacentHTML('beforeend', footer);
    });
    expect(await driver.stop()).toMatchObject({ stopped: true, message: 'Agent stopped.' });
    expect(await driver.poll()).toMatchObject({ status: 'completed', stopped: true, response: 'Once upon a', hasStopButton: false });
  });

  it('a stopped turn the person then regenerates reads completed once its new answer ends, never "stopped" with the whole answer', async () => {
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'Write forever') + answer('Once upon a'), stop));
    const driver = createPageDriver(window);
    const button = document.querySelector('[aria-label="Stop response"]');
    const turn = document.querySelector('.flex.flex-col');
    button?.addEventListener('click', () => {
      button.remove();
      turn?.insertAdjacentHTML('beforeend', footer);
    });
    await driver.stop();
    expect(await driver.poll()).toMatchObject({ status: 'completed', stopped: true, response: 'Once upon a' });
    // The person regenerates it in place: the row goes, the stop control and a new answer stream in its place.
    [...document.querySelectorAll('.contents')].at(-1)?.remove();
    const prose = [...document.querySelectorAll('.prose p')].at(-1);
    if (prose) prose.textContent = 'A new';
    document.querySelector('[data-ask-input-container]')?.insertAdjacentHTML('beforeend', stop);
    expect(await driver.poll()).toMatchObject({ status: 'working', hasStopButton: true });
    document.querySelector('[aria-label="Stop response"]')?.remove();
    if (prose) prose.textContent = 'A new answer, written to its end.';
    turn?.insertAdjacentHTML('beforeend', footer);
    const read = await driver.poll();
    expect(read).toMatchObject({ status: 'completed', response: 'A new answer, written to its end.' });
    expect(read.stopped).toBeUndefined();
  });

  it('a stop control the set does not know leaves a streaming answer unconfirmed, never "completed" with part of it (#1)', async () => {
    const unknownStop = '<button aria-label="Stop generating"><svg><use xlink:href="#pplx-icon-square"></use></svg></button>';
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'Tides?') + answer('Tides are caused by the Moon and'), unknownStop));
    const driver = createPageDriver(window);
    const poll = await driver.poll();
    expect(poll.status).not.toBe('completed');
    expect(poll.unconfirmed).toBeDefined();
    const started = Date.now();
    const out = await driver.wait({ afterTurn: 1, timeoutMs: 5000, stallMs: 5000 });
    expect(out.status).not.toBe('completed');
    expect(out.unconfirmed).toBeDefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('an answer block renamed, its action row up: never idle or stalled, the answer miss named (#5)', async () => {
    const renamed = '<div data-answer-v2=""><div class="markdown-v2"><p>The finished answer.</p></div></div>';
    loadHtml(page(question(0, 'q') + answer('Earlier.') + footer + question(1, 'Why?') + renamed + footer));
    const driver = createPageDriver(window);
    const poll = await driver.poll();
    expect(poll.status).not.toBe('idle');
    expect(poll.unconfirmed).toMatch(/^answer: none of `\[data-workflow-final-text\]`.* beside the action row/);
    const out = await driver.wait({ afterTurn: 1, timeoutMs: 3000, stallMs: 3000 });
    expect(out.status).not.toBe('stalled');
    expect(out.unconfirmed).toMatch(/^answer: none of/);
  });

  it('the action row inside the answer block after the prose (Sep 2026) is the "done" sign; one inside the prose is not', () => {
    const block = (inProse: string, afterProse: string) =>
      `<div data-workflow-final-text=""><div class="prose" data-renderer="lm"><p>Paris</p>${inProse}</div>${afterProse}</div>`;
    loadHtml(page(question(0, 'q') + block('', footer)));
    expect(takeSnapshot(document, live2026)).toMatchObject({ footer: true });
    loadHtml(page(question(0, 'q') + block(footer, '')));
    expect(takeSnapshot(document, live2026)).toMatchObject({ footer: false });
  });

  it('"Stop dictation" carries the stop icon in the composer’s box and is not the stop control; comet_stop never clicks it', async () => {
    const dictating = '<button aria-label="Stop dictation"><svg><use xlink:href="#pplx-icon-player-stop-filled"></use></svg></button>';
    loadHtml(page(question(0, 'q') + answer('Done.') + footer, dictating));
    expect(stopButton(document, live2026, turnsOf(document, live2026).at(-1) ?? null)).toBeNull();
    let clicked = false;
    document.querySelector('[aria-label="Stop dictation"]')?.addEventListener('click', () => {
      clicked = true;
    });
    const driver = createPageDriver(window);
    expect((await driver.poll()).status).toBe('completed');
    const { stop: stopAnswer } = await import('../../lib/page/answer/stop');
    expect(await stopAnswer(driver.context(), driver.watcher, 300)).toMatchObject({ stopped: false });
    expect(clicked).toBe(false);
  });

  it('a related-question button after the answer is no steps header (#24); the Sep 2026 headers above the prose are', () => {
    const related = '<div><button type="button">Stopped trains: what to do</button><button type="button">Completed 3 marathons, what next?</button></div>';
    loadHtml(page(question(0, 'q') + answer('A') + footer + related));
    expect(takeSnapshot(document, live2026)).toMatchObject({ stepsFinished: false, stepsStopped: false });
    for (const [header, words] of [
      ['<button type="button" aria-expanded="false"><div>Researched</div>\n<div>4s</div></button>', 'Researched 4s'],
      ['<div class="group/step-header"><div>Researched</div></div>', 'Researched'],
    ] as const) {
      loadHtml(page(`${question(0, 'q')}<div data-workflow-final-text="">${header}<div class="prose" data-renderer="lm"><p>A</p></div>${footer}</div>${related}`));
      const last = turnsOf(document, live2026).at(-1);
      expect(takeSnapshot(document, live2026)).toMatchObject({ stepsFinished: true, stepsStopped: false });
      expect(last && readTurnNow(last, 0, live2026).stepsHeader).toBe(words);
    }
  });

  it('steps while the answer is written come from the box around the header above the prose (Sep 2026 shape; no hook on the box)', async () => {
    // The answer block's items as the Sep 2026 captures have them: [the folding header + the box its rows unfold into],
    // then the prose. While working the header reads the current step, which no pattern knows.
    const rows = (open: boolean) =>
      open ? '<div><div><span>Searching the web</span></div><div><span>Reading example.org</span></div></div>' : '<div></div>';
    const turn = (open: boolean) =>
      `${question(0, 'q')}<div data-workflow-final-text=""><div data-workflow-items="populated">` +
      `<div dir="auto"><div><div><button type="button" aria-expanded="${open}"><span>Reading example.org</span></button></div>${rows(open)}</div></div>` +
      `<div><div dir="auto"><div class="prose" data-renderer="lm"><p>Partial answer</p></div></div></div></div></div>`;
    loadHtml(page(turn(true), stop));
    const last = () => turnsOf(document, live2026).at(-1) as NonNullable<ReturnType<typeof turnsOf>[number]>;
    const open = readTurnNow(last(), 0, live2026);
    expect(open).toMatchObject({ steps: ['Searching the web', 'Reading example.org'], stepsFinished: false, response: 'Partial answer' });
    expect(open.stepsHeader).toBe('Reading example.org');
    // Folded: its rows are not on the page, and the reader does not click the person's page to see them (no capture
    // shows where they unfold; the stream and the thread JSON give them).
    loadHtml(page(turn(false), stop));
    const toggle = document.querySelector('button[aria-expanded]') as HTMLButtonElement;
    let clicks = 0;
    toggle.addEventListener('click', () => clicks++);
    expect(readTurnNow(last(), 0, live2026)).toMatchObject({ steps: [], stepsHeader: 'Reading example.org' });
    const poll = await createPageDriver(window).poll();
    expect(poll).toMatchObject({ status: 'working', response: 'Partial answer' });
    const { readTurn } = await import('../../lib/page/answer/reader');
    expect((await readTurn(createPageDriver(window).context(), -1))?.steps).toEqual([]);
    expect(clicks).toBe(0);
  });

  it("a Computer task's tool rows before any answer are its steps, by their recorded hook, labels only", () => {
    const row = (label: string) => `<div class="group/tool-wrapper flex flex-col"><button type="button">${label}</button><span>Apr 17, 4:00 AM · 9s</span></div>`;
    loadHtml(page(`${question(0, 'Plan a trip')}<div>${row('Opening a browser')}${row('Asking you a question')}</div>`, stop));
    const last = turnsOf(document, live2026).at(-1);
    expect(last && readTurnNow(last, 0, live2026).steps).toEqual(['Opening a browser', 'Asking you a question']);
    // A row whose label is not where the set says: not read, rather than its text with the running duration.
    loadHtml(page(`${question(0, 'Plan a trip')}<div>${row('Opening a browser')}<div class="group/tool-wrapper"><span>Working</span><span>· 3s</span></div></div>`, stop));
    const again = turnsOf(document, live2026).at(-1);
    expect(again && readTurnNow(again, 0, live2026).steps).toEqual(['Opening a browser']);
  });

  it('a folding control after the prose or in the question is no steps header, and the box never takes the prose', () => {
    const showMore = '<button type="button" aria-expanded="false">Show more</button>';
    loadHtml(
      page(
        `<div data-workflow-entry="0"><div class="group/user-bubble"><span class="whitespace-pre-line">q</span>${showMore}</div></div>` +
          `<div data-workflow-final-text=""><div><div dir="auto"><div class="prose" data-renderer="lm"><p>A</p></div></div></div>` +
          `<div data-workflow-text-footer=""><button aria-expanded="false" aria-label="Share"></button></div></div>`,
      ),
    );
    const last = turnsOf(document, live2026).at(-1);
    expect(last && readTurnNow(last, 0, live2026)).toMatchObject({ steps: [], response: 'A' });
    expect(last && readTurnNow(last, 0, live2026).stepsHeader).toBeUndefined();
  });

  it('step headers as the live site words them are "finished"', () => {
    for (const header of ['Reviewed 10 sources', '7 steps completed', 'Completed 3 steps']) {
      loadHtml(page(`${question(0, 'q')}<div><button type="button">${header}</button></div>${answer('A')}${footer}`));
      expect(takeSnapshot(document, live2026)).toMatchObject({ stepsFinished: true });
    }
  });
});
