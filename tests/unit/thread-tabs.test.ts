import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkThreadId, sameConversation, threadIdOfUrl as threadOfUrl } from '../../lib/protocol/threads/thread-ids';
import { ADOPT_AFTER_MS, type TabLike, ThreadTabs } from '../../lib/worker/threads/thread-tabs';
import { fakeTabs } from '../support/fake-tabs';

const TASK = (id: string) => `https://www.perplexity.ai/computer/tasks/${id}`;

/** A tab of ours opened for a call that is done with it (its lease released): the cap may close it. */
async function openDone(tabs: ThreadTabs, threadId: string, cap: number): Promise<number> {
  const lease = await tabs.open(TASK(threadId), cap, threadId);
  lease.release();
  return lease.tabId;
}

describe('thread tabs', () => {
  it('finds a thread by its URL exactly, on perplexity.ai only', () => {
    expect(threadOfUrl(TASK('abc-123'))).toBe('abc-123');
    expect(threadOfUrl('https://www.perplexity.ai/search/rust-vs-go-Xq7')).toBe('rust-vs-go-Xq7');
    expect(threadOfUrl('https://perplexity.ai.evil.example/computer/tasks/abc-123')).toBeUndefined();
    expect(threadOfUrl('http://www.perplexity.ai/computer/tasks/abc-123')).toBeUndefined();
    expect(threadOfUrl('https://www.perplexity.ai/computer/tasks/abc-123/extra')).toBeUndefined();
    expect(threadOfUrl('https://www.perplexity.ai/library?x=/computer/tasks/abc-123')).toBeUndefined();
  });

  it('refuses thread ids that are not one path segment, naming the thread_id', () => {
    for (const bad of ['../account', 'a/b', '%2e%2e', '', 'a b', 'x'.repeat(201)]) expect(() => checkThreadId(bad), bad).toThrow(/thread_id ".*" is not a Perplexity id/);
    expect(() => checkThreadId('7d8b35e7-c3b9-4bc4-82c6-c343d20e0288')).not.toThrow();
  });

  it('caps its own tabs: the least recently used idle one closes first, a person\'s tab never does', async () => {
    let clock = 1000;
    const b = fakeTabs([{ id: 1, url: TASK('users-own'), active: true }]);
    const tabs = new ThreadTabs(b.api, () => clock);
    const a = await openDone(tabs, 'a', 2);
    clock += 10;
    const c = await openDone(tabs, 'c', 2);
    clock += 10;
    await tabs.use(a, async () => {}); // a is now the most recently used
    clock += 10;
    const d = await openDone(tabs, 'd', 2);
    expect(b.tabs.map((t) => t.id)).toEqual([1, a, d]);
    expect(tabs.ownedTabs().map((t) => t.tabId).sort()).toEqual([a, d].sort());
    expect(c).not.toBe(d);
    // Both of ours busy: the cap says so instead of closing anything.
    let release = () => {};
    const busy = new Promise<void>((r) => {
      release = r;
    });
    const holdA = tabs.use(a, () => busy);
    const holdD = tabs.use(d, () => busy);
    await expect(tabs.open(TASK('e'), 2, 'e')).rejects.toThrow(/All 2 thread tabs are busy \(COMET_THREAD_TABS is 2\)/);
    release();
    await Promise.all([holdA, holdD]);
    expect(b.tabs.some((t) => t.id === 1)).toBe(true);
  });

  it('a tab comes held from its open until its call releases it: the cap closes none held, and a second release frees nothing (review 15a, F1)', async () => {
    const b = fakeTabs();
    const tabs = new ThreadTabs(b.api);
    const a = await tabs.open(TASK('a'), 1, 'a');
    await expect(tabs.open(TASK('b'), 1, 'b')).rejects.toThrow(/All 1 thread tabs are busy \(COMET_THREAD_TABS is 1\)/);
    // Under a use() as well: its call lets it go (twice, even), and the use() still holds it.
    let done = () => {};
    const using = tabs.use(a.tabId, () => new Promise<void>((resolve) => (done = resolve)));
    a.release();
    a.release();
    await expect(tabs.open(TASK('b'), 1, 'b')).rejects.toThrow(/busy/);
    done();
    await using;
    const next = await tabs.open(TASK('b'), 1, 'b');
    expect(b.tabs.map((t) => t.id)).toEqual([next.tabId]);
  });

  it('a read through the person\'s tab writes nothing to storage; one through ours saves its last use', async () => {
    let clock = 1000;
    const b = fakeTabs([{ id: 1, url: 'https://www.perplexity.ai/', active: true }]);
    let saves = 0;
    const save = b.api.save;
    b.api.save = async (value: unknown) => {
      saves += 1;
      await save(value);
    };
    const tabs = new ThreadTabs(b.api, () => clock);
    const ours = await openDone(tabs, 'a', 2);
    await new Promise((r) => setTimeout(r, 0));
    const before = saves;
    for (let i = 0; i < 20; i++) await tabs.use(1, async () => {});
    expect(saves).toBe(before);
    clock += 10;
    await tabs.use(ours, async () => {});
    expect(saves).toBe(before + 1);
    expect(b.saved()).toEqual([expect.objectContaining({ tabId: ours, lastUsed: clock })]);
  });

  it('a tab of ours the person switches to is theirs; a closed one is forgotten', async () => {
    const b = fakeTabs();
    const tabs = new ThreadTabs(b.api);
    const a = await openDone(tabs, 'a', 1);
    tabs.adoptedByPerson(a);
    await openDone(tabs, 'b', 1);
    expect(b.tabs.map((t) => t.url)).toEqual([TASK('a'), TASK('b')]);
    const [ours] = tabs.ownedTabs();
    if (ours) {
      await b.api.remove(ours.tabId);
      tabs.forgetTab(ours.tabId);
    }
    expect(tabs.ownedTabs()).toEqual([]);
  });

  it('remembers its tabs across a worker restart, and owns none after a browser restart', async () => {
    const b = fakeTabs();
    const first = new ThreadTabs(b.api);
    const a = await openDone(first, 'a', 6);
    const again = new ThreadTabs(b.api);
    expect((await again.showing('a')).map((t) => t.id)).toEqual([a]);
    expect(again.isOwned(a)).toBe(true);
    // A new browser session: storage.session is empty, the restored tab shows the thread but is not ours.
    const restarted = new ThreadTabs(fakeTabs([{ id: 7, url: TASK('a') }], undefined).api);
    expect((await restarted.showing('a')).map((t) => t.id)).toEqual([7]);
    expect(restarted.isOwned(7)).toBe(false);
  });

  it('serialises acting calls per thread; reads wait for an act in progress, not for each other', async () => {
    const tabs = new ThreadTabs(fakeTabs().api);
    const log: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const act1 = tabs.serialise('t', true, async () => {
      log.push('act1 start');
      await gate;
      log.push('act1 end');
    });
    const act2 = tabs.serialise('t', true, async () => log.push('act2'));
    const read = tabs.serialise('t', false, async () => log.push('read'));
    const other = tabs.serialise('u', true, async () => log.push('other thread'));
    await other;
    expect(log).toEqual(['act1 start', 'other thread']);
    release();
    await Promise.all([act1, act2, read]);
    expect(log.indexOf('act1 end')).toBeLessThan(log.indexOf('act2'));
    expect(log.indexOf('act1 end')).toBeLessThan(log.indexOf('read'));
    // A failed act does not block the next one.
    await expect(tabs.serialise('t', true, async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(tabs.serialise('t', true, async () => 'ok')).resolves.toBe('ok');
  });
});

describe('thread tabs opened at the same time', () => {
  /** A browser whose calls take a while, like chrome.tabs under load. */
  function slowBrowser() {
    const b = fakeTabs();
    const later = <T>(fn: () => Promise<T>, ms = 5) => new Promise<T>((resolve) => setTimeout(() => resolve(fn()), ms));
    const { query, create } = b.api;
    b.api.query = () => {
      const snapshot = query();
      return later(() => snapshot, 8);
    };
    b.api.create = (url) => later(() => create(url), 3);
    return b;
  }

  it('never exceed the cap, and every tab we opened stays ours (closed by the cap, by discard)', async () => {
    const b = slowBrowser();
    const tabs = new ThreadTabs(b.api);
    const opened = await Promise.all([openDone(tabs, 'a', 2), openDone(tabs, 'b', 2), openDone(tabs, 'c', 2)]);
    expect(new Set(opened).size).toBe(3);
    const open = b.tabs.map((t) => t.id);
    expect(open.length).toBeLessThanOrEqual(2);
    expect(tabs.ownedTabs().map((t) => t.tabId).sort()).toEqual(open.sort());
    for (const id of open) await tabs.discard(id as number);
    expect(b.tabs).toEqual([]);
  });
});

describe('when a thread tab becomes the person\'s', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const activate = (b: ReturnType<typeof fakeTabs>, id: number) => {
    for (const t of b.tabs) t.active = t.id === id;
  };

  it('not on an activation alone: a neighbour Chromium activates when a tab closes, or a tab passed through, stays ours', async () => {
    vi.useFakeTimers();
    const b = fakeTabs([{ id: 1, url: 'https://example.com/', active: true }]);
    const tabs = new ThreadTabs(b.api);
    const a = await openDone(tabs, 'a', 6);
    const c = await openDone(tabs, 'c', 6);
    // The person closes their tab 1; Chromium activates its neighbour, our tab a.
    await b.api.remove(1);
    tabs.forgetTab(1, 9);
    activate(b, a);
    tabs.activated(a, 9);
    await vi.advanceTimersByTimeAsync(ADOPT_AFTER_MS * 2);
    expect(tabs.isOwned(a)).toBe(true);
    // The person passes through tab c on the way elsewhere.
    activate(b, c);
    tabs.activated(c, 9);
    await vi.advanceTimersByTimeAsync(ADOPT_AFTER_MS / 2);
    activate(b, a);
    await vi.advanceTimersByTimeAsync(ADOPT_AFTER_MS);
    expect(tabs.isOwned(c)).toBe(true);
  });

  it('when the person switches to it and stays on it', async () => {
    vi.useFakeTimers();
    const b = fakeTabs();
    const tabs = new ThreadTabs(b.api);
    const a = await openDone(tabs, 'a', 6);
    await vi.advanceTimersByTimeAsync(5_000);
    activate(b, a);
    tabs.activated(a, 9);
    await vi.advanceTimersByTimeAsync(ADOPT_AFTER_MS + 100);
    expect(tabs.isOwned(a)).toBe(false);
  });

  it('ours survive an extension reload (what storage.local keeps), none survive a new browser session', async () => {
    const b = fakeTabs();
    const first = new ThreadTabs(b.api);
    const a = await openDone(first, 'a', 6);
    // A reloaded extension: a new ThreadTabs over the same stored list and the same open tabs.
    const reloaded = new ThreadTabs(b.api);
    await reloaded.showing('a');
    expect(reloaded.isOwned(a)).toBe(true);
    // The browser started again: the stored list is from another session (its tab ids mean other tabs).
    const restarted = new ThreadTabs(b.api);
    restarted.newBrowserSession();
    await restarted.showing('a');
    expect(restarted.isOwned(a)).toBe(false);
    const later = new ThreadTabs(b.api);
    await later.showing('a');
    expect(later.isOwned(a)).toBe(false);
    // Chromium may say the browser started after the first call already opened a tab: that one is ours.
    const late = new ThreadTabs(fakeTabs().api);
    const opened = await openDone(late, 'b', 6);
    late.newBrowserSession();
    expect(late.isOwned(opened)).toBe(true);
  });

  it('a stored tab id that now shows another page is not ours', async () => {
    const b = fakeTabs();
    const a = await openDone(new ThreadTabs(b.api), 'a', 6);
    const tab = b.tabs.find((t) => t.id === a) as TabLike;
    tab.url = 'https://example.com/mail';
    const again = new ThreadTabs(b.api);
    await again.showing('a');
    expect(again.isOwned(a)).toBe(false);
  });
});

describe('one conversation under two addresses', () => {
  const P = 'https://www.perplexity.ai';
  it("a Computer task's slug changes, its id stays: the same conversation; another task, another thread or home is not", () => {
    expect(sameConversation(`${P}/computer/tasks/plan-a-trip-AbCdEfGhIjKlMnOpQrStUv`, `${P}/computer/tasks/plan-a-trip-to-lisbon-AbCdEfGhIjKlMnOpQrStUv`)).toBe(true);
    expect(sameConversation(`${P}/computer/tasks/plan-a-trip-AbCdEfGhIjKlMnOpQrStUv`, `${P}/computer/tasks/plan-a-trip-ZZCdEfGhIjKlMnOpQrStUv`)).toBe(false);
    expect(sameConversation(`${P}/search/thread-a`, `${P}/search/thread-b`)).toBe(false);
    expect(sameConversation(`${P}/search/thread-a`, `${P}/search/thread-a?x=1`)).toBe(true);
    expect(sameConversation(`${P}/`, `${P}/search/thread-a`)).toBe(false);
    expect(sameConversation(`${P}/`, `${P}/`)).toBe(true);
  });
});
