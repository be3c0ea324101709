// @vitest-environment happy-dom
import { givenReaders } from '../support/given-readers';
import { describe, expect, it, vi } from 'vitest';
import { askKit } from '../../lib/page/kits/ask-kit';
import { diagnosticsKit } from '../../lib/page/kits/diagnostics-kit';
import { lazyDriver } from '../../lib/page/handlers';
import { kitMethods, offerKitHook, type PageKitHost, registerKit } from '../../lib/page/kit-registry';
import { modeKit } from '../../lib/page/kits/mode-kit';
import { repairKit } from '../../lib/page/kits/repair-kit';
import { panelKit } from '../../lib/page/kits/panel-kit';
import { sourcesKit } from '../../lib/page/kits/source-reader';
import { threadHandlers } from '../../lib/page/threads/thread-handlers';
import { kitOf, PAGE_KIT_API, PAGE_KIT_HOOK, PAGE_KITS } from '../../lib/protocol/page/page-kits';
import { SelectorCatalog } from '../../lib/selectors/catalog';
import { loadFixture, setUrl } from '../fixtures/reader/load';
import { ReaderShelf, THREAD_PAGE_READER_KIND } from '../../lib/selectors/reader-shelf';
import { threadPage2026 } from '../../lib/selectors/thread-page';

/** The page's end of the on-demand parts: a kit registers with the page script of its world, once. */
const host = (): PageKitHost => {
  const catalog = new SelectorCatalog();
  return { win: window, driver: lazyDriver(window, catalog), catalog, readers: givenReaders() };
};

describe('page kits', () => {
  it("a kit's errors pass through the page script as they are: another copy of RelayError, or a bare payload named so", async () => {
    const driver = host().driver();
    const copy = Object.assign(new Error('composer: none of `x` matched'), { name: 'RelayError', code: 'AGENT_ERROR' });
    await expect(driver.run('asking', () => Promise.reject(copy))).rejects.toMatchObject({ code: 'AGENT_ERROR', message: 'composer: none of `x` matched' });
    const bare = { name: 'RelayError', code: 'INVALID_PARAMS', message: 'not a POST comet-relay makes: /x' };
    await expect(driver.run('library.post', () => Promise.reject(bare))).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: bare.message });
    // Anything else is a failure of the method, said so.
    await expect(driver.run('asking', () => Promise.reject(Object.assign(new Error('gone'), { code: 'ENOENT' })))).rejects.toMatchObject({
      code: 'EVALUATION_FAILED',
      message: 'asking failed: gone',
    });
  });

  it('a kit registers once with the page script of its world; running its script again does nothing', () => {
    const world = {};
    const added: string[][] = [];
    const loaded = offerKitHook(world, host(), (handlers) => added.push(Object.keys(handlers)));
    const factory = vi.fn(() => ({ 'page.capture': async () => 'x' }));
    expect(registerKit('diagnostics', factory, world)).toEqual({ kit: 'diagnostics', status: 'registered' });
    expect(registerKit('diagnostics', factory, world)).toEqual({ kit: 'diagnostics', status: 'already' });
    expect(factory).toHaveBeenCalledTimes(1);
    expect(added).toEqual([['page.capture']]);
    expect(loaded()).toEqual(['diagnostics']);
  });

  it('no page script in the world, or one of another build: nothing registers, and the result says why', () => {
    expect(registerKit('threads', () => ({}), {})).toEqual({ kit: 'threads', status: 'no-page-script' });
    const world = {};
    offerKitHook(world, host(), () => {
      throw new Error('must not be called');
    });
    const hook = (world as Record<string, { register(n: string, api: number, f: () => object): string }>)[PAGE_KIT_HOOK];
    expect(hook?.register('threads', PAGE_KIT_API + 1, () => ({}))).toBe('version-mismatch');
  });

  it("each kit answers exactly the methods the worker's table sends it", () => {
    expect(Object.keys(threadHandlers(host())).sort()).toEqual([...kitMethods('threads')].sort());
    expect(Object.keys(diagnosticsKit(host())).sort()).toEqual([...kitMethods('diagnostics')].sort());
    expect(Object.keys(sourcesKit(host())).sort()).toEqual([...kitMethods('sources')].sort());
    expect(Object.keys(panelKit(host())).sort()).toEqual([...kitMethods('panel')].sort());
    expect(Object.keys(modeKit(host())).sort()).toEqual([...kitMethods('mode')].sort());
    expect(Object.keys(repairKit(host())).sort()).toEqual([...kitMethods('repair')].sort());
    expect(Object.keys(askKit(host())).sort()).toEqual([...kitMethods('ask')].sort());
    expect(Object.keys(PAGE_KITS).sort()).toEqual(['ask', 'diagnostics', 'mode', 'panel', 'repair', 'sources', 'threads']);
  });

  it("the threads kit reads with the thread readers the worker gave the page, and says so in words on a page given none", async () => {
    setUrl('https://www.perplexity.ai/computer/tasks/x');
    const catalog = new SelectorCatalog();
    const bare = threadHandlers({ win: window, driver: lazyDriver(window, catalog), catalog, readers: new ReaderShelf() });
    await expect((bare['threads.locate'] as unknown as (p: object, c: never) => Promise<unknown>)({ threadId: 'x' }, undefined as never)).rejects.toMatchObject({
      code: 'AGENT_ERROR',
      message: 'This page has no thread-page-reader yet (the extension gives it when the page connects): call again.',
    });
    const given = threadHandlers(host());
    await expect((given['threads.locate'] as unknown as (p: object, c: never) => Promise<unknown>)({ threadId: 'x' }, undefined as never)).resolves.toEqual({ found: true });
    setUrl('https://www.perplexity.ai/');
  });

  it("the panel's watch reads a task's boxes with the page script's thread page reader, an added one included (2026-12-06)", async () => {
    loadFixture('B-task-confirm.html', 'https://www.perplexity.ai/computer/tasks/8c0d3f4e-task', 'pages');
    const watched = async (readers: ReaderShelf) => {
      const catalog = new SelectorCatalog();
      const kit = panelKit({ win: window, driver: lazyDriver(window, catalog), catalog, readers });
      const sent: string[] = [];
      const abort = new AbortController();
      const ended = (kit['page.watch'] as unknown as (p: object, c: object) => Promise<unknown>)({}, { progress: (m: string) => sent.push(m), signal: abort.signal });
      abort.abort();
      await ended;
      return (JSON.parse(sent[0] as string) as { interactions: unknown[] }).interactions;
    };
    expect(await watched(givenReaders())).toHaveLength(1);
    // A pack that says the box is an optional offer, not a wait: the panel no longer lists it, as comet_wait would not.
    const added = givenReaders();
    added.replace(THREAD_PAGE_READER_KIND, [{ source: '/packs/reader.json', item: { ...threadPage2026, optionalAuth: ['.task-interaction'] } }]);
    expect(await watched(added)).toEqual([]);
    document.body.innerHTML = '';
  });

  it('the table tells the worker which kit a method needs', () => {
    expect(kitOf('threads.wait')).toMatchObject({ name: 'threads', file: '/page-threads.js' });
    expect(kitOf('page.respond')?.name).toBe('threads');
    expect(kitOf('page.capture')?.name).toBe('diagnostics');
    expect(kitOf('page.diagnose')?.name).toBe('diagnostics');
    expect(kitOf('page.sources')).toMatchObject({ name: 'sources', file: '/page-sources.js' });
    expect(kitOf('page.mode')).toMatchObject({ name: 'mode', file: '/page-mode.js' }); // reading and switching
    expect(kitOf('page.poll')).toBeUndefined();
    // Typing and submitting come with the ask kit; a stop must work in any page at once, without a load first.
    expect(kitOf('page.ask')).toMatchObject({ name: 'ask', file: '/page-ask.js' });
    expect(kitOf('page.stop')).toBeUndefined();
    expect(kitOf('page.wait')).toBeUndefined();
    expect(kitOf('threads.fetch')).toBeUndefined(); // account reads run in any tab without a kit
  });
});
