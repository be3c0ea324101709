// @vitest-environment happy-dom
import { h, render } from 'preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThreadItem } from '../../components/agents/ThreadItem';
import type { PanelConnection } from '../../lib/panel/connection';
import type { ExportedThread } from '../../lib/protocol/library/library';
import type { ThreadEntry } from '../../lib/protocol/panel';
import { offlinePanelService } from '../support/panel-service';

/**
 * The side panel's *Export as Markdown*: the thread in view, fetched whole by the worker
 * (library.thread, never a navigation), rendered with the one Markdown rendering and named as
 * `comet-relay export` names it, saved by the panel as a file (an `<a download>`: no new permission).
 */
vi.mock('wxt/browser', () => import('../support/noop-browser'));

const THREAD: ExportedThread = {
  slug: 'why-is-the-sky-blue-Ab12',
  url: 'https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12',
  title: 'Why is the sky blue?',
  created: '2026-02-21T10:00:00Z',
  updated: '2026-02-22T10:00:00Z',
  mode: 'search',
  model: 'sonar',
  space: null,
  turns: [{ question: 'Why is the sky blue?', answer: 'Rayleigh scattering [1].', sources: [{ n: 1, title: 'Sky', url: 'https://example.com/sky' }] }],
  pages: 1,
};

function service(local: (method: string, params: unknown) => Promise<unknown>) {
  const panel = offlinePanelService(local);
  const handlers = (panel as unknown as { handlers(): Record<string, (params: unknown) => Promise<unknown>> }).handlers();
  return (url: string) => handlers['panel.exportThread']?.({ url }) as Promise<{ fileName: string; markdown: string }>;
}

describe('the worker’s side: panel.exportThread', () => {
  it('fetches the thread whole by its slug and gives it back as a named Markdown file with front matter', async () => {
    const local = vi.fn(async () => THREAD);
    const file = await service(local)('https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12?s=u');
    expect(local).toHaveBeenCalledWith('library.thread', { thread: 'why-is-the-sky-blue-Ab12' });
    expect(file.fileName).toBe('2026-02-21-why-is-the-sky-blue.md');
    expect(file.markdown).toMatch(/^---\ntitle: "Why is the sky blue\?"\n/);
    expect(file.markdown).toContain('\nturns: 1\n---\n\n# Why is the sky blue?');
    expect(file.markdown).toContain('1. [Sky](https://example.com/sky)');
  });

  it('refuses what is not a Perplexity thread before asking anything, and passes the library’s errors on', async () => {
    const local = vi.fn(async () => THREAD);
    await expect(service(local)('https://evil.example/search/x')).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: expect.stringContaining('is not a Perplexity thread') });
    expect(local).not.toHaveBeenCalled();
    const gone = service(async () => {
      throw Object.assign(new Error('Perplexity has no such thread (404).'), { code: 'THREAD_NOT_FOUND' });
    });
    await expect(gone('https://www.perplexity.ai/search/gone-Xy')).rejects.toMatchObject({ code: 'THREAD_NOT_FOUND' });
  });
});

describe('the panel’s side: the button in the thread card', () => {
  afterEach(() => {
    document.body.innerHTML = '';
    vi.restoreAllMocks();
  });

  const entry = (current: boolean): ThreadEntry => ({
    key: 'https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12',
    title: 'Why is the sky blue?',
    url: 'https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12',
    status: 'done',
    latestStep: '',
    current,
    interactions: [],
  });

  it('shows only for the thread in view, and saves the file the worker made as a download', async () => {
    const request = vi.fn(async () => ({ fileName: '2026-02-21-why-is-the-sky-blue.md', markdown: '---\ntitle: "x"\n---\n' }));
    const connection = { request, subscribe: () => () => {} } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    render(h(ThreadItem, { thread: entry(false), connection }), host);
    expect(host.querySelector('[data-testid="export-thread"]')).toBeNull();

    const clicked: { download: string; href: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ download: this.download, href: this.href });
    });
    render(h(ThreadItem, { thread: entry(true), connection }), host);
    const button = host.querySelector('[data-testid="export-thread"]') as HTMLButtonElement;
    expect(button.textContent).toBe('Export as Markdown');
    button.click();
    await vi.waitFor(() => expect(clicked).toHaveLength(1));
    expect(request).toHaveBeenCalledWith('panel.exportThread', { url: 'https://www.perplexity.ai/search/why-is-the-sky-blue-Ab12' });
    expect(clicked[0]?.download).toBe('2026-02-21-why-is-the-sky-blue.md');
    expect(clicked[0]?.href).toMatch(/^blob:/);
    expect(document.querySelectorAll('a[download]')).toHaveLength(0);
  });

  it('says what went wrong beside the thread when the export fails', async () => {
    const request = vi.fn(async () => {
      throw Object.assign(new Error('The Perplexity tab is signed out: sign in, then try again.'), { code: 'SIGNED_OUT' });
    });
    const host = document.createElement('div');
    document.body.append(host);
    render(h(ThreadItem, { thread: entry(true), connection: { request, subscribe: () => () => {} } as unknown as PanelConnection }), host);
    (host.querySelector('[data-testid="export-thread"]') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(host.querySelector('[role="alert"]')?.textContent).toBe('[SIGNED_OUT] The Perplexity tab is signed out: sign in, then try again.'));
  });
});
