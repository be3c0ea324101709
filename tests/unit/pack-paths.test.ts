import { describe, expect, it } from 'vitest';
import { PACK_KINDS } from '../../lib/packs/kinds';
import { parsePack } from '../../lib/packs/parse';
import { accountJson2026 } from '../../lib/selectors/account-json';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import type { AccountJsonReader, ThreadPageReader } from '../../lib/selectors/thread-schema';
import { ThreadTabs } from '../../lib/worker/threads/thread-tabs';
import { fakeTabs, fakeThreadCalls } from '../support/fake-tabs';

/**
 * Paths in thread readers added as files (data packs) are paths on perplexity.ai: the worker opens
 * thread tabs at them and the page fetches them with the account's cookies. A pack is a file a
 * person may have been handed; one whose "path" leads to another host (`//evil.example/…`, a full
 * URL, a backslash or a tab the URL parser folds into `//`) is refused by its schema, and the worker
 * refuses to open or navigate a thread tab off perplexity.ai whatever reader it was given.
 */

/** The built-in pack of a reader kind with one field replaced (`at` is a path of keys). */
function packWith(kind: string, name: string, at: string[], value: unknown): unknown {
  const pack = structuredClone(PACK_KINDS[kind]?.builtInPack(name)) as Record<string, unknown>;
  let target = pack;
  for (const key of at.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[at.at(-1) as string] = value;
  return pack;
}

const OFF_SITE = ['//evil.example/{x}', '/\\evil.example/{x}', '\\\\evil.example/{x}', '/\t/evil.example/{x}', 'https://evil.example/{x}', 'evil/{x}'];

describe('reader packs name same-origin paths only', () => {
  const fields: [kind: string, name: string, at: string[], placeholder: string][] = [
    ['thread-page-reader', 'thread-page-2026-12', ['reader', 'projectPath'], '{uuid}'],
    ['account-json-reader', 'account-json-2026-12', ['reader', 'listRecent', 'path'], ''],
    ['account-json-reader', 'account-json-2026-12', ['reader', 'listRecent', 'threadPath', 'computer'], '{uuid}'],
    ['account-json-reader', 'account-json-2026-12', ['reader', 'models', 'path'], ''],
    ['account-json-reader', 'account-json-2026-12', ['reader', 'projects', 'path'], ''],
    ['account-json-reader', 'account-json-2026-12', ['reader', 'modeLimits', 'path'], ''],
    ['thread-json-reader', 'thread-json-2026-12', ['reader', 'request', 'path'], '{id}'],
  ];

  it('the built-in readers pass as packs', () => {
    for (const [kind, name] of fields) expect(parsePack(PACK_KINDS[kind]?.builtInPack(name)).ok, `${kind} ${name}`).toBe(true);
  });

  for (const [kind, name, at, placeholder] of fields) {
    it(`${kind} ${at.slice(1).join('.')}: a path to another host is refused, naming the field`, () => {
      for (const bad of OFF_SITE) {
        const checked = parsePack(packWith(kind, name, at, bad.replace('{x}', placeholder)));
        expect(checked.ok, JSON.stringify(bad)).toBe(false);
        if (!checked.ok) expect(checked.problems.join(' ')).toContain(at.slice(1).join('.'));
      }
    });
  }
});

describe('the worker opens thread tabs on perplexity.ai only', () => {
  function world(readers: { page: ThreadPageReader; account: AccountJsonReader }, recent: unknown = { threads: [] }) {
    return fakeThreadCalls(
      async (_tabId, method) => {
        if (method === 'threads.locate') return { found: false };
        if (method === 'threads.fetch') return { status: 200, body: JSON.stringify(recent), path: '/rest/thread/list_recent' };
        return { threadId: 'new-thread', url: 'https://www.perplexity.ai/computer/tasks/new-thread', turn: 0 };
      },
      { readers: () => readers },
    );
  }
  const signal = new AbortController().signal;

  it("a project page a reader puts on another host: no tab is opened there, and the error names the reader's path", async () => {
    const page = { ...threadPage2026, projectPath: 'https://evil.example/{uuid}' };
    const { calls, tabs } = world({ page, account: accountJson2026 });
    const started = calls.call('threads.start', { message: 'hi', attachments: [], settings: {}, projectUuid: 'p-1', tabCap: 6 }, signal, () => {});
    await expect(started).rejects.toThrow(/evil\.example.*perplexity\.ai/s);
    expect(tabs).toEqual([]);
  });

  it('a recent thread a reader places at a protocol-relative path: the thread tab is not navigated off perplexity.ai', async () => {
    const account = { ...accountJson2026, listRecent: { ...accountJson2026.listRecent, threadPath: { search: '//evil.example/{slug}' } } };
    const { calls, tabs, navigations } = world({ page: threadPage2026, account }, { threads: [{ uuid: 'u-1', slug: 'the-thread', mode_type: 'search' }] });
    await expect(calls.call('threads.read', { threadId: 'the-thread', tabCap: 6 }, signal, () => {})).rejects.toThrow(/evil\.example/);
    expect(navigations).toEqual([]);
    // The tab opened to look for the thread is closed again; the one at home that read the JSON stays for the next read.
    expect(tabs.map((t) => t.url)).toEqual(['https://www.perplexity.ai/']);
  });

  it('ThreadTabs itself opens nothing but perplexity.ai pages', async () => {
    const browser = fakeTabs();
    const threadTabs = new ThreadTabs(browser.api);
    for (const url of ['https://evil.example/', 'javascript:alert(1)', 'http://www.perplexity.ai/', 'https://www.perplexity.ai.evil.example/']) {
      await expect(threadTabs.open(url, 6), url).rejects.toMatchObject({ code: 'INVALID_URL' });
    }
    expect(browser.opened).toEqual([]);
  });
});
