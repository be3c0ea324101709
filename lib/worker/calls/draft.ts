import { composerProbes } from '../../selectors/composer-2026-10';
import { browser } from '../browser/ext';

/**
 * What the person left unsent in a Perplexity tab's composer, read before anything takes that page away
 * (a new chat loads a new document: review of 2026-12-04, #21). Where the composer is, is the selector
 * data's (lib/selectors/composer-2026-10.ts, which every set spreads); only its selectors that need no
 * translated words are used here, so the read needs nothing of the page script.
 */
const COMPOSER: readonly string[] = composerProbes.composer.filter((selector) => !/\{[A-Za-z]+\}/.test(selector));

/** How long a page may take to answer the draft read: one with a dialog up, or hung, never does. */
const DRAFT_READ_MS = 5_000;

/** A page that did not answer the draft read in time: it may hold one. */
export const DRAFT_UNKNOWN: unique symbol = Symbol('draft unknown');

/**
 * The composer's text in the top document of `tabId`: '' when it is empty or the page shows no composer
 * (nothing there to lose), undefined when the page could not be asked (the browser refused the read) or the caller
 * gave up (`signal`), DRAFT_UNKNOWN when it did not answer within DRAFT_READ_MS. Never pending for good: a new chat
 * holds the mode's turn while it reads, and every other prompt waited behind a page that never ran the read (review
 * 10, router F7).
 */
export async function composerDraft(tabId: number, signal?: AbortSignal): Promise<string | undefined | typeof DRAFT_UNKNOWN> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const given = new Promise<undefined | typeof DRAFT_UNKNOWN>((resolve) => {
    timer = setTimeout(() => resolve(DRAFT_UNKNOWN), DRAFT_READ_MS);
    onAbort = () => resolve(undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([readDraft(tabId), given]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

async function readDraft(tabId: number): Promise<string | undefined> {
  try {
    const [injection] = await browser.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      func: (selectors: string[]) => {
        for (const selector of selectors) {
          const el = document.querySelector(selector);
          if (!el) continue;
          const field = el as HTMLTextAreaElement;
          const text = el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' ? field.value : ((el as HTMLElement).innerText ?? el.textContent ?? '');
          return text.replace(/\u00a0/g, ' ');
        }
        return '';
      },
      args: [[...COMPOSER]],
    });
    return typeof injection?.result === 'string' ? injection.result : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal of a new chat on a page that did not say whether it holds a draft: nothing was sent, the tab did not move. */
export function draftUnknown(tabId: number): string {
  return (
    `The Perplexity tab ${tabId} did not answer within ${DRAFT_READ_MS / 1000} s whether its composer holds an unsent draft (a dialog open in the page, or the page busy), ` +
    'and a new chat would throw one away, so nothing was sent and the tab was not moved. Call again once the page answers, or ask without newChat.'
  );
}

/** The refusal of a new chat that would throw away the person's draft: nothing was sent, the tab did not move. */
export function draftInTheWay(tabId: number, draft: string): string {
  return (
    `The Perplexity tab ${tabId} holds an unsent draft in its composer (${draft.trim().length} characters, typed by the person), and a new chat loads a new page that would throw it away, ` +
    'so nothing was sent and the tab was not moved. Ask in the conversation the tab shows (without newChat: the draft is put back after the prompt), or call again once the person has sent or cleared the draft.'
  );
}
