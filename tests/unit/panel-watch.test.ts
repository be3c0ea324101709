// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createPageDriver } from '../../lib/page/driver';
import { visibleMode, watchPage } from '../../lib/page/kits/watch';
import { parseWatchSnapshot, type WatchSnapshot } from '../../lib/protocol/watch';
import { generationA, generationB } from '../../lib/selectors';
import { flush, loadFixture } from '../fixtures/reader/load';

/** page.watch on the simulated site's saved pages: snapshots only on change, nothing left running. */
afterEach(() => {
  document.body.innerHTML = '';
});

function collect() {
  const snapshots: WatchSnapshot[] = [];
  const controller = new AbortController();
  const progress = (message: string) => {
    const parsed = parseWatchSnapshot(message);
    if (!parsed) throw new Error(`not a snapshot: ${message}`);
    snapshots.push(parsed);
  };
  return { snapshots, controller, context: { signal: controller.signal, progress } };
}

describe('page.watch', () => {
  it('sends a snapshot at once: title, done status, steps and the conversation links', async () => {
    loadFixture('B-thread-short.html', 'https://www.perplexity.ai/search/short-1', 'pages');
    const driver = createPageDriver(window);
    const { snapshots, controller, context } = collect();
    const ended = watchPage(window, driver, context);
    expect(snapshots).toHaveLength(1);
    const [first] = snapshots;
    expect(first).toMatchObject({ url: 'https://www.perplexity.ai/search/short-1', status: 'done', interactions: [] });
    expect(first?.title).not.toBe('');
    expect(first?.question).not.toBe('');
    expect(first?.conversations.length).toBeGreaterThan(0);
    expect(driver.watcher.active).toBe(true);
    controller.abort();
    await expect(ended).resolves.toEqual({ ended: 'cancelled' });
    expect(driver.watcher.active).toBe(false);
  });

  it('sends again only when the snapshot changed', async () => {
    loadFixture('B-thread-short.html', 'https://www.perplexity.ai/search/short-1', 'pages');
    const driver = createPageDriver(window);
    const { snapshots, controller, context } = collect();
    void watchPage(window, driver, context);
    document.body.setAttribute('data-noise', '1');
    document.body.appendChild(document.createElement('span'));
    await flush();
    expect(snapshots).toHaveLength(1);
    document.title = 'A renamed thread - Perplexity';
    const alert = document.createElement('div');
    alert.setAttribute('role', 'alert');
    alert.textContent = 'Something went wrong. Try again.';
    document.querySelector('[data-workflow-entry]')?.appendChild(alert);
    await flush();
    expect(snapshots.length).toBeGreaterThan(1);
    expect(snapshots.at(-1)).toMatchObject({ title: 'A renamed thread', status: 'error' });
    controller.abort();
  });

  it('a watch cancelled before it starts leaves no observer', async () => {
    loadFixture('B-home.html', 'https://www.perplexity.ai/', 'pages');
    const driver = createPageDriver(window);
    const { controller, context } = collect();
    controller.abort();
    await expect(watchPage(window, driver, context)).resolves.toEqual({ ended: 'cancelled' });
    expect(driver.watcher.active).toBe(false);
  });
});

describe('visibleMode', () => {
  it('reads generation B from its chip without opening the menu', () => {
    loadFixture('B-home.html', 'https://www.perplexity.ai/', 'pages');
    expect(visibleMode(document, generationB)).toBe('standard');
    expect(document.querySelector('[role="menu"]')).toBeNull();
  });

  it('reads generation A from its mode pill without typing "/"; no pill says nothing (the worker asks page.mode)', () => {
    loadFixture('A-home.html', 'https://www.perplexity.ai/', 'pages');
    expect(visibleMode(document, generationA)).toBeNull();
    loadFixture('A-home-mode-menu-active.html', 'https://www.perplexity.ai/', 'pages');
    expect(visibleMode(document, generationA)).toBe('deep-research');
    loadFixture('A-home.html', 'https://www.perplexity.ai/computer/tasks/abc', 'pages');
    expect(visibleMode(document, generationA)).toBe('computer');
  });
});
