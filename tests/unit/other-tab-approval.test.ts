import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Envelope, Request } from '../../lib/protocol/messages';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';

/**
 * Reading or capturing a tab that is not Perplexity waits for the person's approval, which names
 * the tab's URL. The tab can move on while the request waits (the person browses on); what was
 * approved is that page, so a tab that now shows another page is neither read nor captured.
 */
const shown = { url: '', title: '', text: '' };

vi.mock('wxt/browser', () => ({
  browser: {
    permissions: { contains: async () => true },
    tabs: { get: async (id: number) => ({ id, windowId: 1, url: shown.url, title: shown.title }) },
    scripting: {
      // Runs the real injected reader against the page the tab shows at that moment.
      executeScript: async ({ func, args }: { func: (...a: unknown[]) => unknown; args: unknown[] }) => {
        const g = globalThis as Record<string, unknown>;
        g.document = { title: shown.title, body: { innerText: shown.text } };
        g.location = { href: shown.url };
        try {
          return [{ result: func(...args) }];
        } finally {
          delete g.document;
          delete g.location;
        }
      },
    },
  },
}));

const BLOG = 'https://blog.example/post';
const BANK = 'https://bank.example/accounts';

function world() {
  let approve!: () => void;
  const asked: string[] = [];
  const captured: string[] = [];
  const tabs = {
    connectedDrivenTab: () => undefined,
    drivenTab: async () => ({ id: 7, windowId: 1, url: shown.url, title: shown.title }),
    capture: vi.fn(async () => {
      captured.push(shown.url);
      return { data: 'png', mimeType: 'image/png' };
    }),
  } as unknown as TabService;
  const pages = { state: () => undefined } as unknown as PageHub;
  const router = new Router({
    tabs,
    pages,
    status: async () => ({}),
    authorizeTarget: (_request, _need, what) => {
      asked.push(what);
      return new Promise<void>((r) => (approve = r));
    },
  });
  const replies: Envelope[] = [];
  // A local client's call: the host stamps its door (the public door never reaches another tab).
  const run = (request: Request) => router.handle({ ...request, origin: { clientId: 'k1', clientName: 'claude', door: 'loopback' } }, (m) => replies.push(m));
  return { run, replies, asked, captured, approve: () => approve() };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

beforeEach(() => {
  Object.assign(shown, { url: BLOG, title: 'A blog post', text: 'public words' });
});

describe('an approved read of another tab reads what was approved', () => {
  it('the tab stayed: the approved page is read', async () => {
    const w = world();
    const handled = w.run({ kind: 'request', id: 'a1', method: 'page.content', params: { maxLength: 1000 } });
    await tick();
    w.approve();
    await handled;
    expect(w.asked[0]).toContain(BLOG);
    expect(w.replies[0]).toMatchObject({ kind: 'result', result: { text: 'public words', url: BLOG, source: 'other-tab' } });
  });

  it('the tab moved to another page while the approval was pending: nothing is read', async () => {
    const w = world();
    const handled = w.run({ kind: 'request', id: 'a2', method: 'page.content', params: { maxLength: 1000 } });
    await tick();
    Object.assign(shown, { url: BANK, title: 'Your accounts', text: 'balance 12,345' });
    w.approve(); // the person approved reading the blog post
    await handled;
    expect(w.replies[0]).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(JSON.stringify(w.replies)).not.toContain('12,345');
    expect(JSON.stringify(w.replies)).toContain(BANK);
  });

  it('a screenshot approved for one page is not taken of another', async () => {
    const w = world();
    const handled = w.run({ kind: 'request', id: 'a3', method: 'tabs.capture', params: { format: 'png' } });
    await tick();
    Object.assign(shown, { url: BANK, title: 'Your accounts' });
    w.approve();
    await handled;
    expect(w.replies[0]).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(w.captured).toEqual([]);
  });
});
