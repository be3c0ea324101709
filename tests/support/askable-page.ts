/**
 * The script that makes a captured thread page askable (bundled and served by askable-capture.ts; it
 * runs in the page's main world, as the live site's own code would). The capture's markup is the
 * page: everything this script shows is cloned from it or is the live page's behaviour, restated from
 * the captures' notes (NOTES.md §D, "Stop button" in §A), never copied into the repository:
 *
 * - the composer (`#ask-input`, a Lexical root in the capture) gets the real Lexical from npm
 *   (tests/sim/client/editor.ts), as the live page runs it;
 * - Submit is enabled only while the composer holds text (the capture shows it `disabled` when empty;
 *   `composer-home-typed-…-2026-09-26.html` shows it with text), and Enter sends as Submit does;
 * - a sent prompt adds a turn made by cloning the page's own last turn: its question block
 *   (`[data-workflow-entry="N+1"]`, the time, Edit query / Copy query, the question's `data-renderer`
 *   text) and its answer block (`[data-workflow-final-text]`), whose prose is emptied and streamed
 *   in; the steps header and the action row (`[data-workflow-text-footer]`) are taken off while it
 *   streams and put back when it ends (no capture shows a turn mid-stream: the answer's own footer
 *   is the page's "done", the one sign this script gives);
 * - while an answer streams, "Stop response (Esc)" with `#pplx-icon-player-stop-filled` takes
 *   Submit's place (NOTES.md §D, Sep 2026): Submit's own button cloned, relabelled; Stop or Escape
 *   ends the answer where it was;
 * - dictation is on: the capture's "Dictation" button reads "Stop dictation" and carries the same
 *   stop icon (NOTES.md §D: a decoy); a click on it turns dictation off, and is counted.
 *
 * What no capture shows, chosen here and said so: how a stopped answer looks. `rowAfterStop` picks
 * whether its action row comes back (the page looks finished; only the click said "stopped") or not.
 */
import { mountEditor } from '../sim/client/editor';

const STOP_ICON = '#pplx-icon-player-stop-filled';
const MIC_ICON = '#pplx-icon-microphone';
const XLINK = 'http://www.w3.org/1999/xlink';

/** The next answer the page will write. */
export interface AnswerPlan {
  paragraphs: number;
  /** Words per paragraph. */
  words: number;
  /** Words added per tick, and the tick. */
  wordsPerChunk: number;
  chunkMs: number;
}

export interface AskableAnswer {
  question: string;
  /** The answer as written so far: paragraphs joined by a blank line. */
  text: string;
  ended: 'finished' | 'stopped' | null;
}

/** What the page exposes to the test as `window.__askable`. */
export interface AskableState {
  /** Every prompt the composer sent, as the editor's model held it. */
  asked: string[];
  answers: AskableAnswer[];
  /** Presses on the dictation button (pointerdown, mousedown and click each count): its "Stop dictation" is never the answer's stop. */
  dictationClicks: number;
  /** Clicks on the answer's stop control. */
  stopClicks: number;
  /** The composer's text, from Lexical's model. */
  composerText(): string;
  plan: AnswerPlan;
  rowAfterStop: boolean;
  /** Set once the editor is mounted and the page takes prompts. */
  ready: boolean;
  /** What went wrong in this script (a capture it cannot read): a test fails on any. */
  errors: string[];
}

declare global {
  interface Window {
    __askable: AskableState;
    /** Why the script could not make the page askable (a capture without what it needs). */
    __askableError?: string;
  }
}

const VOCAB = 'perplexity answers each question from its sources with citations and headings so the reader can check every claim'.split(' ');

function must<T extends Element>(el: T | null | undefined, what: string): T {
  if (!el) throw new Error(`askable-page: the capture has no ${what}`);
  return el;
}

function setIcon(button: Element, href: string): void {
  for (const use of button.querySelectorAll('use')) use.setAttributeNS(XLINK, 'xlink:href', href);
}

/** The child of `ancestor` that holds `el`. */
function slotOf(ancestor: Element, el: Element): Element {
  let node: Element = el;
  while (node.parentElement && node.parentElement !== ancestor) node = node.parentElement;
  return node;
}

function commonAncestor(a: Element, b: Element): Element {
  let node: Element | null = a.parentElement;
  while (node && !node.contains(b)) node = node.parentElement;
  return must(node, 'common ancestor of the last question and answer');
}

/** The time as the question block shows it ("Sep 1, 9:00 AM"). */
const timeNow = () =>
  new Date().toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }).replace(/\s/g, ' ');

function boot(): void {
  const composer = must(document.getElementById('ask-input'), '#ask-input composer');
  const box = must(composer.closest('[data-ask-input-container]'), 'composer container');
  const submit = must(box.querySelector<HTMLButtonElement>('button[aria-label="Submit"]'), 'Submit button');
  const dictation = must(box.querySelector<HTMLButtonElement>('button[aria-label="Dictation"]'), 'Dictation button');
  const placeholder = composer.nextElementSibling?.getAttribute('aria-hidden') === 'true' ? (composer.nextElementSibling as HTMLElement) : null;

  const stopControl = submit.cloneNode(true) as HTMLButtonElement;
  stopControl.removeAttribute('disabled');
  stopControl.setAttribute('aria-label', 'Stop response (Esc)');
  setIcon(stopControl, STOP_ICON);

  let text = '';
  let streaming: { stop(): void } | null = null;

  const state: AskableState = {
    asked: [],
    answers: [],
    dictationClicks: 0,
    stopClicks: 0,
    composerText: () => text,
    plan: { paragraphs: 3, words: 24, wordsPerChunk: 3, chunkMs: 40 },
    rowAfterStop: true,
    ready: false,
    errors: [],
  };
  window.__askable = state;

  const renderSubmit = () => {
    if (text.trim()) submit.removeAttribute('disabled');
    else submit.setAttribute('disabled', '');
    if (placeholder) placeholder.hidden = text !== '';
  };

  const editor = mountEditor(
    composer,
    (next) => {
      text = next;
      renderSubmit();
    },
    (event) => {
      if (event.key !== 'Enter' || event.shiftKey) return false;
      event.preventDefault();
      send();
      return true;
    },
  );

  // Dictation on: the button reads "Stop dictation" and shows the stop icon until clicked.
  const setDictation = (on: boolean) => {
    dictation.setAttribute('aria-label', on ? 'Stop dictation' : 'Dictation');
    setIcon(dictation, on ? STOP_ICON : MIC_ICON);
  };
  setDictation(true);
  // Any press at all counts, however it came (a person's click, a script's click() or pointer sequence).
  for (const type of ['pointerdown', 'mousedown', 'click']) {
    dictation.addEventListener(type, () => {
      state.dictationClicks += 1;
    });
  }
  dictation.addEventListener('click', () => setDictation(dictation.getAttribute('aria-label') !== 'Stop dictation'));

  submit.addEventListener('click', () => send());
  stopControl.addEventListener('click', () => {
    state.stopClicks += 1;
    streaming?.stop();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && streaming) streaming.stop();
  });

  // The page's own last turn as the capture has it, taken before anything changes: every new turn is
  // cloned from it (a stopped turn shown without its header or row is never the model of the next).
  const questions = document.querySelectorAll('[data-workflow-entry]');
  const answers = document.querySelectorAll('[data-workflow-final-text]');
  const lastQuestion = must(questions[questions.length - 1], 'question block');
  const lastAnswer = must(answers[answers.length - 1], 'answer block');
  const list = commonAncestor(lastQuestion, lastAnswer);
  const questionModel = slotOf(list, lastQuestion).cloneNode(true) as Element;
  const answerModel = slotOf(list, lastAnswer).cloneNode(true) as Element;

  function send(): void {
    const question = text;
    // The page takes no prompt while it writes an answer, nor an empty one.
    if (streaming || !question.trim()) return;
    state.asked.push(question);
    editor.setText('');
    try {
      streaming = addTurn(question);
    } catch (error) {
      // Said where the test looks: a turn this script failed to add is its fault, not the relay's.
      state.errors.push(error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  function addTurn(question: string): { stop(): void } {
    const entries = [...document.querySelectorAll('[data-workflow-entry]')].map((e) => Number(e.getAttribute('data-workflow-entry')));
    const questionSlot = questionModel.cloneNode(true) as Element;
    const answerSlot = answerModel.cloneNode(true) as Element;

    const block = must(questionSlot.querySelector('[data-workflow-entry]'), 'cloned question block');
    block.setAttribute('data-workflow-entry', String(Math.max(...entries) + 1));
    const edit = block.querySelector('button[aria-label="Edit query"]');
    const time = edit?.previousElementSibling;
    if (time?.tagName === 'SPAN') time.textContent = timeNow();
    const asked = must(block.querySelector('[data-renderer="lm"]'), 'question text');
    asked.replaceChildren(
      ...question.split('\n').map((line) => {
        const p = document.createElement('p');
        p.textContent = line;
        return p;
      }),
    );

    const answer = must(answerSlot.querySelector('[data-workflow-final-text]'), 'cloned answer block');
    const items = must(answer.querySelector('[data-workflow-items]'), 'answer items');
    const header = items.firstElementChild;
    header?.remove();
    const footer = answer.querySelector('[data-workflow-text-footer]');
    const footerAt = footer ? { parent: footer.parentElement as Element, before: footer.nextSibling } : null;
    footer?.remove();
    const prose = must(answer.querySelector('.prose'), 'answer prose');
    prose.replaceChildren();

    list.append(questionSlot, answerSlot);
    submit.replaceWith(stopControl);

    const record: AskableAnswer = { question, text: '', ended: null };
    state.answers.push(record);
    const plan = { ...state.plan };
    const n = state.answers.length;
    const words = Array.from({ length: plan.paragraphs }, (_, p) =>
      Array.from({ length: plan.words }, (_, w) => (w === 0 ? `Answer${n}.${p + 1}` : (VOCAB[(w + p + n) % VOCAB.length] as string))),
    );
    const written: string[][] = [];
    let paragraph: HTMLParagraphElement | null = null;

    const tick = () => {
      const p = written.length - 1;
      const current = written[p];
      if (!current || current.length === plan.words) {
        if (written.length === plan.paragraphs) return end('finished');
        written.push([]);
        paragraph = document.createElement('p');
        prose.append(paragraph);
        return;
      }
      current.push(...(words[p] as string[]).slice(current.length, current.length + plan.wordsPerChunk));
      (paragraph as HTMLParagraphElement).textContent = current.join(' ');
      record.text = written.map((w) => w.join(' ')).join('\n\n');
    };
    const timer = setInterval(tick, plan.chunkMs);

    function end(how: 'finished' | 'stopped'): void {
      clearInterval(timer);
      record.ended = how;
      streaming = null;
      if (how === 'finished' || state.rowAfterStop) {
        if (header) items.insertBefore(header, items.firstChild);
        if (footer && footerAt) footerAt.parent.insertBefore(footer, footerAt.before);
      }
      stopControl.replaceWith(submit);
      renderSubmit();
    }
    return { stop: () => end('stopped') };
  }

  renderSubmit();
  state.ready = true;
}

function start(): void {
  try {
    boot();
  } catch (error) {
    window.__askableError = error instanceof Error ? error.message : String(error);
    throw error;
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
