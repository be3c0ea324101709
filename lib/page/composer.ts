import { RelayError } from '../protocol/errors';
import type { PageContext } from './context';
import { first, isDisabled, isHidden, pressKey, requireEl } from './dom';

/**
 * Putting text into the composer and submitting it. Lexical ignores synthetic key events on some
 * builds, so text goes in through the editing commands a paste would use; select-all goes through
 * execCommand / the Selection API, which mean the same on every platform (a Meta+A key
 * event selects nothing off macOS).
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
    if (sel && sel.anchorNode && el.contains(sel.anchorNode)) return;
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

/** Last resort for an editable that has no execCommand: beforeinput (Lexical's path), then DOM. */
function insertByEvents(ctx: PageContext, el: HTMLElement, text: string): void {
  const view = ctx.win as Window & typeof globalThis;
  const before = new view.InputEvent('beforeinput', { bubbles: true, cancelable: true, inputType: 'insertText', data: text });
  if (el.dispatchEvent(before)) {
    el.textContent = text;
    el.dispatchEvent(new view.InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
  }
}

/**
 * Types `text` over the current selection. A line break goes in as the editor's own line break
 * (Shift+Enter, `insertLineBreak`): a "\n" inside insertText becomes a new paragraph, which the
 * page reads back as a blank line, so a multi-line prompt would arrive with its lines doubled.
 */
function insertLines(doc: Document, text: string): boolean {
  const lines = text.split(/\r\n|\r|\n/);
  let ok = lines[0] === '' ? exec(doc, 'delete') : exec(doc, 'insertText', lines[0]);
  for (const line of lines.slice(1)) {
    ok &&= exec(doc, 'insertLineBreak');
    if (line !== '') ok &&= exec(doc, 'insertText', line);
  }
  return ok;
}

/** Replaces the composer's content with `text` and checks that it landed. */
export function typeInto(ctx: PageContext, el: HTMLElement, text: string): void {
  if (isTextField(el)) {
    el.focus();
    setFieldValue(ctx, el, text);
  } else {
    selectAllIn(ctx, el);
    const ok = insertLines(ctx.doc, text);
    if (!ok || norm(composerText(el)) !== norm(text)) insertByEvents(ctx, el, text);
  }
  if (norm(composerText(el)) !== norm(text)) {
    throw new RelayError(
      'EVALUATION_FAILED',
      `the composer did not accept the text (it holds ${JSON.stringify(composerText(el).slice(0, 80))}) on ${ctx.doc.location.href}`,
    );
  }
}

export function typePrompt(ctx: PageContext, text: string): HTMLElement {
  const el = composerOf(ctx);
  typeInto(ctx, el, text);
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
