import { Window } from 'happy-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';

/** The page script's document, as PageHub.document says it: the same one throughout these tests. */
const SAME_PAGE = {};

/**
 * comet_ask with newChat loads a new page in the tab: a draft the person was typing in the conversation's
 * composer would go with the old document (review of 2026-12-04, #21). The worker reads the composer first
 * (scripting.executeScript, played here by running the injected function on a happy-dom page shaped like
 * the captured composer, composer-zero-state-WebMCP-2026-08.html) and refuses over a draft.
 */
let composerHtml = '';
vi.mock('wxt/browser', () => ({
  browser: {
    scripting: {
      executeScript: async ({ func, args }: { func: (...a: unknown[]) => unknown; args: unknown[] }) => {
        const window = new Window({ url: 'https://www.perplexity.ai/search/thread-1' });
        window.document.body.innerHTML = composerHtml;
        const saved = globalThis.document;
        (globalThis as { document?: unknown }).document = window.document;
        try {
          return [{ result: func(...args) }];
        } finally {
          (globalThis as { document?: unknown }).document = saved;
        }
      },
    },
  },
}));

const editor = (inner: string) =>
  `<div data-ask-input-container="true"><div contenteditable="true" id="ask-input" role="textbox" data-lexical-editor="true">${inner}</div>` +
  '<div aria-hidden="true"><div>Type / for search modes</div></div></div>';

function world() {
  const order: string[] = [];
  const pages = {
    request: vi.fn(async (_tab: number, method: string) => {
      order.push(method);
      return { turnIndex: 0 };
    }),
    state: () => undefined,
    askCount: () => 0,
    asksSince: () => [],
    namedBy: () => undefined,
    document: () => SAME_PAGE, // one document throughout: no page loads in these tests
    // A new chat's navigation loaded its new page at once (the real PageHub tells them apart by their ports).
    whenReplaced: async () => {},
  } as unknown as PageHub;
  let shown = 'https://www.perplexity.ai/search/tides-abc';
  const tabs = {
    pageTab: async () => 7,
    drivenTab: async () => ({ id: 7, url: shown }),
    navigate: vi.fn(async (url: string) => {
      order.push(`navigate ${url}`);
      shown = url;
      return url;
    }),
  } as unknown as TabService;
  const router = new Router({
    tabs,
    pages,
    status: async () => ({}),
    authorize: async () => void order.push('authorize'),
  });
  const replies: Envelope[] = [];
  const ask: Request = { kind: 'request', id: 'd1', method: 'page.ask', params: { prompt: 'hello', newChat: true } };
  return { run: () => router.handle(ask, (m) => replies.push(m)), order, replies };
}

beforeEach(() => {
  composerHtml = '';
});

describe('a new chat over the person’s draft (#21)', () => {
  it('#21: a draft in the composer: refused with words before anyone is asked to approve it, nothing sent, the tab not moved', async () => {
    composerHtml = editor('<p dir="auto">Dear landlord, about the deposit</p>');
    const w = world();
    await w.run();
    expect(w.order).toEqual([]);
    const reply = w.replies[0] as { kind: string; error: { code: string; message: string } };
    expect(reply.kind).toBe('error');
    expect(reply.error.message).toMatch(/^The Perplexity tab 7 holds an unsent draft in its composer \(32 characters, typed by the person\).*nothing was sent and the tab was not moved\. Ask in the conversation the tab shows \(without newChat/);
  });

  it('#21: an empty composer (Lexical’s empty paragraph, its placeholder beside it) or none: the new chat opens', async () => {
    for (const html of [editor('<p dir="auto"><br></p>'), '<main>Library</main>']) {
      composerHtml = html;
      const w = world();
      await w.run();
      expect(w.order, html).toEqual(['authorize', 'navigate https://www.perplexity.ai/', 'page.ask']);
    }
  });
});
