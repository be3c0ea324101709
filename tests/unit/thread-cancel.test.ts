// @vitest-environment happy-dom
import { givenReaders } from '../support/given-readers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import type { HandlerContext } from '../../lib/page/handlers';
import { threadHandlers } from '../../lib/page/threads/thread-handlers';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { flush, loadHtml } from '../fixtures/reader/load';

/**
 * A thread call whose caller is gone (the MCP client cancelled, timed out or died; the worker
 * forwarded the cancel) must not go on to act in the page: no prompt typed or submitted, no
 * Approve clicked, after the cancel. (comet_ask keeps the same promise: unit/ask-safety.test.ts.)
 */
const dir = join(import.meta.dirname, '../fixtures/threads');

function load(name: string, json?: (body: string) => string) {
  const html = readFileSync(join(dir, `${name}.html`), 'utf8');
  const path = /URL: (\S+?)\.? /.exec(html)?.[1] ?? '/';
  loadHtml(html, new URL(path, 'https://www.perplexity.ai').href);
  const saved = JSON.stringify((JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { body: unknown }).body);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  // The thread JSON answers only when the test says so: a read in flight is where a cancel lands.
  const fetch = async () => {
    await released;
    return { status: 200, text: async () => (json ? json(saved) : saved) } as Response;
  };
  Object.defineProperty(window, 'fetch', { value: fetch, configurable: true });
  const driver = createPageDriver(window);
  const handlers = threadHandlers({ win: window, driver: () => driver, catalog: new SelectorCatalog(), readers: givenReaders() });
  const threadId = /\/computer\/tasks\/([^/]+)/.exec(window.location.pathname)?.[1] ?? '';
  const call = (method: string, params: object, signal: AbortSignal) =>
    (handlers[method] as (p: never, c: HandlerContext) => Promise<unknown>)(params as never, { signal, progress: () => {} });
  return { call, threadId, release };
}

const composerText = () => document.querySelector('#ask-input')?.textContent ?? '';

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a thread call cancelled in the page', () => {
  it('threads.send cancelled before the page started: nothing typed, nothing submitted', async () => {
    const { call, threadId } = load('B-computer-complete');
    const controller = new AbortController();
    controller.abort();
    const outcome = await call('threads.send', { threadId, message: 'Now do something costly', attachments: [], settings: {} }, controller.signal).catch((e: unknown) => e);
    expect(outcome).toMatchObject({ code: 'CANCELLED' });
    expect(composerText()).not.toContain('costly');
  });

  it('threads.send cancelled while a Computer setting is being picked: the prompt is never typed', async () => {
    const { call, threadId } = load('B-computer-complete');
    const controller = new AbortController();
    const sent = call('threads.send', { threadId, message: 'Now do something costly', attachments: [], settings: { mode: 'high' } }, controller.signal).catch(
      (e: unknown) => e,
    );
    await flush();
    controller.abort(); // the client gave up while the settings menu was opening
    // The menu item shows up after the cancel, as a slow page would show it.
    const item = document.createElement('div');
    item.setAttribute('role', 'menuitemradio');
    item.setAttribute('data-computer-mode', 'high');
    let picked = false;
    item.addEventListener('click', () => {
      picked = true;
      item.remove();
    });
    document.body.append(item);
    expect(await sent).toMatchObject({ code: 'CANCELLED' });
    await flush();
    expect(picked).toBe(false);
    expect(composerText()).not.toContain('costly');
  });

  it('threads.respond (approve) cancelled while the thread JSON is read: Approve is never clicked', async () => {
    // The JSON names the confirmation by an id the page does not carry: the page looks it up there first.
    const jsonOnlyId = '0b0b0b0b-1111-4222-8333-444444444444';
    // The page's id of the confirmation, which the JSON shares (each saving of the fixtures makes a new one).
    const pageId = () => document.querySelector('[data-testid="confirm-action"]')?.getAttribute('data-followup-uuid') ?? 'none';
    const { call, threadId, release } = load('B-computer-confirm', (body) => body.replaceAll(pageId(), jsonOnlyId));
    let approved = false;
    document.querySelector('button[aria-label="Approve"]')?.addEventListener('click', () => {
      approved = true;
    });
    const controller = new AbortController();
    const responded = call(
      'threads.respond',
      { threadId, followupUuid: jsonOnlyId, reply: { kind: 'approve', reason: 'ok' }, attachments: [] },
      controller.signal,
    ).catch((e: unknown) => e);
    await flush();
    controller.abort(); // the agent's call was cancelled while the page read the JSON
    release();
    expect(await responded).toMatchObject({ code: 'CANCELLED' });
    await flush();
    expect(approved).toBe(false);
  });
});
