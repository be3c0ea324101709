import { composerProbes } from '../../selectors/composer-2026-10';
import { browser } from '../browser/ext';

/**
 * What the person left unsent in a Perplexity tab's composer, read before anything takes that page away
 * (a new chat loads a new document: review of 2026-12-04, #21). Where the composer is, is the selector
 * data's (lib/selectors/composer-2026-10.ts, which every set spreads); only its selectors that need no
 * translated words are used here, so the read needs nothing of the page script.
 */
const COMPOSER: readonly string[] = composerProbes.composer.filter((selector) => !/\{[A-Za-z]+\}/.test(selector));

/**
 * The composer's text in the top document of `tabId`: '' when it is empty or the page shows no composer
 * (nothing there to lose), undefined when the page could not be asked.
 */
export async function composerDraft(tabId: number): Promise<string | undefined> {
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

/** The refusal of a new chat that would throw away the person's draft: nothing was sent, the tab did not move. */
export function draftInTheWay(tabId: number, draft: string): string {
  return (
    `The Perplexity tab ${tabId} holds an unsent draft in its composer (${draft.trim().length} characters, typed by the person), and a new chat loads a new page that would throw it away, ` +
    'so nothing was sent and the tab was not moved. Ask in the conversation the tab shows (without newChat: the draft is put back after the prompt), or call again once the person has sent or cleared the draft.'
  );
}
