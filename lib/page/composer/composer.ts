import { RelayError } from '../../protocol/error/relay-error';
import type { PageContext } from '../dom/context';
import { first, isDisabled, isHidden, pressKey, requireEl } from '../dom/dom';

/**
 * Putting text into the composer and submitting it. Perplexity's composer is a Lexical editor, which
 * keeps its own state and renders the DOM from it; this script runs in the page's isolated world and
 * cannot reach the editor object, only its events. What Lexical 0.52 does with them (measured on the
 * library itself, lib/selectors/README.md, "The composer"): it reads the DOM selection on `beforeinput`
 * (and on `selectionchange`, which comes later, as a task), but a paste goes wherever it last saw the
 * caret; so a paste right after a script selects all lands after a person's draft, not over it. Some
 * builds take no text from `document.execCommand` at all (the DOM shows it, the state does not).
 * So the old text goes first, through a `beforeinput` delete over the selection (read then and there),
 * and the new text goes into the emptied editor as a paste carrying a DataTransfer, line by line with
 * the editor's own line break between; execCommand is only the last way, for a plain contenteditable.
 * An editor that handles an event cancels it, which is how each step knows whether it was taken.
 */

export function composerOf(ctx: PageContext): HTMLElement {
  return requireEl(ctx.doc, ctx.set, 'composer', ctx.doc.location.href) as HTMLElement;
}

function isTextField(el: Element): el is HTMLTextAreaElement | HTMLInputElement {
  return el.tagName === 'TEXTAREA' || el.tagName === 'INPUT';
}

export function composerText(el: Element): string {
  const raw = isTextField(el) ? el.value : (el as HTMLElement).innerText ?? el.textContent ?? '';
  return raw.replace(/\u00a0/g, ' ');
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** How long an editor that took an event has to render it (Lexical commits in a microtask). */
const RENDER_MS = 400;

/** How long a text the editor shows must stay before it counts as the editor's (Lexical puts back DOM changes it did not make). */
const SETTLE_MS = 60;

function exec(doc: Document, command: string, value?: string): boolean {
  const fn = (doc as Document & { execCommand?: Document['execCommand'] }).execCommand;
  if (typeof fn !== 'function') return false;
  try {
    return fn.call(doc, command, false, value) === true;
  } catch {
    return false;
  }
}

/** Selects everything in the editor through the Selection API (no execCommand, no key event: both mean different things on different builds and platforms). */
function selectAllIn(ctx: PageContext, el: HTMLElement): void {
  el.focus();
  ctx.win.getSelection()?.selectAllChildren(el);
}

/** Sets a React-controlled textarea's value the way React notices (the native setter + input). */
function setFieldValue(ctx: PageContext, el: HTMLTextAreaElement | HTMLInputElement, text: string): void {
  const proto = Object.getPrototypeOf(el) as object;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set;
  if (setter) setter.call(el, text);
  else el.value = text;
  const view = ctx.win as Window & typeof globalThis;
  el.dispatchEvent(new view.InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  el.dispatchEvent(new view.Event('change', { bubbles: true }));
}

type View = Window & typeof globalThis;

/** One way of putting a piece in: a line, "\n" (the editor's own line break) or "" (delete the selection). */
type Way = (piece: string) => boolean;

/**
 * The ways text can go in, most faithful first; each says whether the editor took the piece (an
 * untrusted event that no one cancels changes nothing). "" deletes the selection, through
 * `beforeinput` (Lexical reads the DOM selection for it, so a select-all just made is what goes). A
 * line break goes in as the editor's own (`insertLineBreak`): a "\n" inside inserted text becomes a
 * new paragraph, which the page reads back as a blank line, so a multi-line prompt would arrive with
 * its lines doubled.
 */
function waysFor(view: View, el: HTMLElement, doc: Document, seen: { cancelled: boolean }): Way[] {
  const fire = (event: Event) => {
    const took = !el.dispatchEvent(event);
    seen.cancelled ||= took;
    return took;
  };
  const input = (inputType: string, data: string | null = null) =>
    fire(new view.InputEvent('beforeinput', { bubbles: true, cancelable: true, composed: true, inputType, data }));
  const paste = (text: string) => {
    if (typeof view.ClipboardEvent !== 'function' || typeof view.DataTransfer !== 'function') return false;
    const clipboardData = new view.DataTransfer();
    clipboardData.setData('text/plain', text);
    return fire(new view.ClipboardEvent('paste', { bubbles: true, cancelable: true, composed: true, clipboardData }));
  };
  const events: Way = (piece) =>
    piece === '' ? input('deleteContentBackward') : piece === '\n' ? input('insertLineBreak') : input('insertText', piece);
  return [
    // Lexical's paste handler reads the DataTransfer into its state, at its caret (in the emptied
    // editor, the only place there is); an editor that pastes but takes no beforeinput gets a
    // paragraph for a line break, the nearest it takes.
    (piece) => (piece === '' ? events(piece) : piece === '\n' ? events(piece) || paste(piece) : paste(piece)),
    // Lexical's beforeinput handler, for builds (or editors) that take no synthetic paste.
    events,
    // The browser's editing commands: what a plain contenteditable takes.
    (piece) => exec(doc, piece === '' ? 'delete' : piece === '\n' ? 'insertLineBreak' : 'insertText', piece),
  ];
}

function cancelledTyping(): RelayError {
  return new RelayError('CANCELLED', 'The call was cancelled while typing; nothing more was typed.');
}

/**
 * Empties the editor by `way`: selects everything, deletes the selection, and waits for the editor to
 * show nothing. True once it is empty (at once when it already was).
 */
async function cleared(ctx: PageContext, el: HTMLElement, way: Way): Promise<boolean> {
  // Line ends only: the empty editor's one paragraph (a draft of spaces is a draft).
  const empty = () => composerText(el).replace(/\n/g, '') === '';
  if (empty()) {
    el.focus();
    return true;
  }
  selectAllIn(ctx, el);
  return way('') && (empty() || (await ctx.waitFor(empty, RENDER_MS)) === true);
}

/**
 * Replaces the composer's content with `text` and checks that the editor holds exactly it: the old
 * text is deleted first and the new one typed into the emptied editor, so it can never be appended
 * to or merged with what was there. A cancel stops it before the next event: nothing is typed after
 * it (what was typed before stays for the caller to undo).
 */
export async function typeInto(ctx: PageContext, el: HTMLElement, text: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw cancelledTyping();
  const landed = () => norm(composerText(el)) === norm(text);
  // Shown, and still shown a moment later: an editor puts back the DOM changes it did not make.
  const settled = async () => (landed() || (await ctx.waitFor(landed, RENDER_MS))) && !(await ctx.waitFor(() => !landed(), SETTLE_MS)) && landed();
  const view = ctx.win as View;
  if (isTextField(el)) {
    el.focus();
    setFieldValue(ctx, el, text);
  } else {
    const pieces = text.split(/(\r\n|\r|\n)/).map((p) => (/^[\r\n]+$/.test(p) ? '\n' : p)).filter(Boolean);
    const seen = { cancelled: false };
    for (const way of waysFor(view, el, ctx.doc, seen)) {
      if (!(await cleared(ctx, el, way))) continue;
      if (signal?.aborted) throw cancelledTyping();
      const took = pieces.every((piece) => !signal?.aborted && way(piece));
      if (signal?.aborted) throw cancelledTyping();
      // Taken: the editor renders from its state, a moment later. Not taken: nothing changed.
      if (took && (await settled())) break;
    }
    // A document without editing commands (a test page), whose editable refused no event.
    if (!landed() && !seen.cancelled && typeof ctx.doc.execCommand !== 'function') {
      el.textContent = text;
      el.dispatchEvent(new view.InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
    }
  }
  if (!landed()) {
    throw new RelayError(
      'EVALUATION_FAILED',
      `the composer did not accept the text: it holds ${JSON.stringify(composerText(el).slice(0, 80))} instead of the ${text.length} characters typed, on ${ctx.doc.location.href}. ` +
        'Try again; if it keeps refusing, `comet-relay doctor --page` shows what the page has',
    );
  }
}

export async function typePrompt(ctx: PageContext, text: string, signal?: AbortSignal): Promise<HTMLElement> {
  const el = composerOf(ctx);
  await typeInto(ctx, el, text, signal);
  return el;
}

/** Submit sits a few levels above the composer; prefer the one nearest to it. */
export function submitButton(ctx: PageContext, composer: Element): HTMLElement | null {
  for (let anc = composer.parentElement, i = 0; anc && i < 8; anc = anc.parentElement, i++) {
    const btn = first(anc, ctx.set.submit);
    if (btn) return btn as HTMLElement;
  }
  return first(ctx.doc, ctx.set.submit) as HTMLElement | null;
}

/**
 * The composer the page shows now: the one typed into while it stays, else the one mounted in its place (React may
 * re-mount the composer's box; a click or a key on the dropped one reaches nobody). Null while the page shows none.
 */
export function shownComposer(ctx: PageContext, typedInto: HTMLElement): HTMLElement | null {
  return typedInto.isConnected ? typedInto : (first(ctx.doc, ctx.set.composer) as HTMLElement | null);
}

/**
 * Clicks Submit once it exists and is enabled (it appears only when the composer holds text, a
 * render after typing); otherwise presses Enter in the composer.
 */
export async function submit(
  ctx: PageContext,
  composer: HTMLElement,
  waitMs = 1000,
  signal?: AbortSignal,
  /** Still the conversation the prompt was typed for (checked right before the click or the key); else nothing is sent. */
  stillThere: () => boolean = () => true,
): Promise<'button' | 'enter'> {
  // The composer the page shows at each look: one re-mounted while Submit renders leaves `composer` and its button
  // detached, and a click or a key there reaches nobody (React listens at its root).
  const shown = () => shownComposer(ctx, composer) ?? composer;
  const ready = () => {
    const btn = submitButton(ctx, shown());
    return btn && !isDisabled(btn) && !isHidden(btn) ? btn : null;
  };
  const btn = await ctx.waitFor(ready, waitMs, signal);
  // A cancel that arrived while Submit rendered: nothing may be sent after it.
  if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before the prompt was submitted.');
  if (!stillThere()) throw new RelayError('AGENT_ERROR', 'The tab went to another conversation while Submit was awaited. Call again once the tab shows the conversation the prompt is for');
  if (btn?.isConnected) {
    btn.click();
    return 'button';
  }
  const el = shown();
  el.focus();
  pressKey(el, 'Enter');
  return 'enter';
}
