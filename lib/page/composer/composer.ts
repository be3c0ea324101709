import { RelayError } from '../../protocol/errors';
import type { PageContext } from '../dom/context';
import { first, isDisabled, isHidden, pressKey, requireEl } from '../dom/dom';

/**
 * Putting text into the composer and submitting it. Perplexity's composer is a Lexical editor, which
 * keeps its own state and renders the DOM from it. Some builds take no text from
 * `document.execCommand('insertText')`: the DOM shows it, the state does not, and Enter sends
 * nothing (lib/selectors/README.md, "The composer"). So text goes in through the events Lexical
 * handles itself, first a paste carrying a DataTransfer, then `beforeinput`, and only where neither
 * is handled (a plain contenteditable) through execCommand. An editor that handles an event cancels
 * it, which is how each step knows whether the next one is needed. Select-all goes through
 * execCommand / the Selection API, which mean the same on every platform (a Meta+A key event
 * selects nothing off macOS).
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

function exec(doc: Document, command: string, value?: string): boolean {
  const fn = (doc as Document & { execCommand?: Document['execCommand'] }).execCommand;
  if (typeof fn !== 'function') return false;
  try {
    return fn.call(doc, command, false, value);
  } catch {
    return false;
  }
}

function selectAllIn(ctx: PageContext, el: HTMLElement): void {
  el.focus();
  if (exec(ctx.doc, 'selectAll')) {
    // execCommand selected inside the focused editable; make sure it did not select the page.
    const sel = ctx.win.getSelection();
    if (sel?.anchorNode && el.contains(sel.anchorNode)) return;
  }
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
 * untrusted event that no one cancels changes nothing). A line break goes in as the editor's own
 * (`insertLineBreak`): a "\n" inside inserted text becomes a new paragraph, which the page reads
 * back as a blank line, so a multi-line prompt would arrive with its lines doubled.
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
    // Lexical's paste handler reads the DataTransfer into its state; an editor that pastes but takes
    // no beforeinput gets a paragraph for a line break, the nearest it takes.
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
 * Replaces the composer's content with `text` and checks that it landed. A cancel stops it before
 * the next event: nothing is typed after it (what was typed before stays for the caller to undo).
 */
export async function typeInto(ctx: PageContext, el: HTMLElement, text: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw cancelledTyping();
  const landed = () => norm(composerText(el)) === norm(text);
  const view = ctx.win as View;
  if (isTextField(el)) {
    el.focus();
    setFieldValue(ctx, el, text);
  } else {
    const pieces = text === '' ? [''] : text.split(/(\r\n|\r|\n)/).map((p) => (/^[\r\n]+$/.test(p) ? '\n' : p)).filter(Boolean);
    const seen = { cancelled: false };
    for (const way of waysFor(view, el, ctx.doc, seen)) {
      selectAllIn(ctx, el);
      const took = pieces.every((piece) => !signal?.aborted && way(piece));
      if (signal?.aborted) throw cancelledTyping();
      // Taken: the editor renders from its state, a moment later. Not taken: nothing changed.
      if (took && (landed() || (await ctx.waitFor(landed, RENDER_MS)))) break;
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
      `the composer did not accept the text (it holds ${JSON.stringify(composerText(el).slice(0, 80))}) on ${ctx.doc.location.href}`,
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
 * Clicks Submit once it exists and is enabled (it appears only when the composer holds text, a
 * render after typing); otherwise presses Enter in the composer.
 */
export async function submit(ctx: PageContext, composer: HTMLElement, waitMs = 1000, signal?: AbortSignal): Promise<'button' | 'enter'> {
  const ready = () => {
    const btn = submitButton(ctx, composer);
    return btn && !isDisabled(btn) && !isHidden(btn) ? btn : null;
  };
  const btn = await ctx.waitFor(ready, waitMs, signal);
  // A cancel that arrived while Submit rendered: nothing may be sent after it.
  if (signal?.aborted) throw new RelayError('CANCELLED', 'The call was cancelled before the prompt was submitted.');
  if (btn) {
    btn.click();
    return 'button';
  }
  composer.focus();
  pressKey(composer, 'Enter');
  return 'enter';
}
