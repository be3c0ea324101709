import os from 'node:os';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { allTools, selectTools } from '../../lib/mcp/tools';
import type { FetchRequest, LibraryFetch } from '../../lib/worker/threads/library';
import { exportThread, listLibrary } from '../../lib/worker/threads/library';
import { libraryJson2026 } from '../../lib/selectors/library/library-json';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { SimLibrary } from '../sim/json/library';
import { FakeBrowser, removeFakeHomes } from '../support/fake-browser';
import { connectSession } from '../support/mcp-session';
import { homeAsTilde } from '../../lib/mcp/server';

/**
 * comet_list_conversations with the library's arguments, comet_export_thread and the thread
 * resources, as an MCP client sees them, over the real library reads against the sim's library.
 */
const readers = { library: libraryJson2026, thread: threadJson2026 };
const open: Client[] = [];

function siteFetch(lib: SimLibrary): LibraryFetch {
  return async (request: FetchRequest) => {
    const url = new URL(request.path, 'https://www.perplexity.ai');
    for (const [k, v] of Object.entries(request.query)) if (v !== '') url.searchParams.set(k, v);
    const res = lib.handle(request.method ?? 'GET', url, { method: request.method ?? 'GET', url: url.href, headers: request.headers, ...(request.body ? { body: request.body } : {}) });
    return res ? { status: res.status, body: String(res.body), ...(res.headers?.['retry-after'] ? { retryAfter: res.headers['retry-after'] } : {}) } : { status: 404, body: '' };
  };
}

function libraryBrowser(lib: SimLibrary): FakeBrowser {
  const browser = new FakeBrowser();
  browser.on('library.list', (p) => listLibrary({ limit: 20, offset: 0, ...p }, siteFetch(lib), readers));
  browser.on('library.thread', (p) => exportThread(p.thread, siteFetch(lib), readers));
  return browser;
}

async function connect(browser: FakeBrowser, tools = allTools) {
  const { client } = await connectSession(browser, { tools });
  open.push(client);
  return client;
}
const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0]?.text ?? '';

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeFakeHomes);

describe('comet_list_conversations', () => {
  it('with no arguments, the page`s links and the reference`s text, as before', async () => {
    const browser = new FakeBrowser().on('page.conversations', { conversations: [{ title: 'Rust vs Go', url: 'https://www.perplexity.ai/search/rust-vs-go-1' }] });
    const client = await connect(browser);
    const r = await client.callTool({ name: 'comet_list_conversations', arguments: {} });
    expect(text(r)).toBe('Conversations (1):\n\n1. Rust vs Go\n   https://www.perplexity.ai/search/rust-vs-go-1');
    expect(browser.methods()).toEqual(['page.conversations']);
  });

  it('with any argument, the site`s list: numbered from the offset, title, URL, last activity, mode, and where the next page starts', async () => {
    const lib = new SimLibrary().seed({ threads: 30 });
    const client = await connect(libraryBrowser(lib));
    const first = text(await client.callTool({ name: 'comet_list_conversations', arguments: { limit: 2 } }));
    const [a, b] = lib.threads;
    expect(first).toBe(
      `Library:\n\n1. ${a?.title}\n   https://www.perplexity.ai/search/${a?.slug}\n   last activity 2026-12-01T12:00:00.000Z\n\n` +
        `2. ${b?.title}\n   https://www.perplexity.ai/search/${b?.slug}\n   last activity 2026-12-01T11:00:00.000Z\n\n1–2 of 30; next offset 2`,
    );
    const last = text(await client.callTool({ name: 'comet_list_conversations', arguments: { offset: 28 } }));
    expect(last).toMatch(/^Library:\n\n29\. /);
    expect(last).toMatch(/\n\n29–30 of 30; no more$/);
    const search = text(await client.callTool({ name: 'comet_list_conversations', arguments: { query: 'fado', space: 'Trip to Lisbon' } }));
    expect(search).toMatch(/^Library matching “fado” in Space “Trip to Lisbon”:\n\n1\. .*fado/);
    expect(text(await client.callTool({ name: 'comet_list_conversations', arguments: { query: 'nothing like this' } }))).toBe('No threads matching “nothing like this”.');
  });
});

describe('comet_export_thread', () => {
  it('exports a thread whole as Markdown, by slug, by URL, or the tab`s own', async () => {
    const lib = new SimLibrary().seed({ threads: 5, longTurns: 25 });
    const browser = libraryBrowser(lib);
    const client = await connect(browser);
    const md = text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'https://www.perplexity.ai/search/long-thread-Lg25tn' } }));
    expect(md).toMatch(/^# A long conversation about tide pools\n\n- URL: https:\/\/www\.perplexity\.ai\/search\/long-thread-Lg25tn\n/);
    for (let i = 1; i <= 25; i++) expect(md).toContain(`## ${i}. `);
    browser.on('browser.status', { perplexityTab: { tabId: '1', url: 'https://www.perplexity.ai/search/long-thread-Lg25tn', title: 't', selectorSet: null } } as never);
    const json = JSON.parse(text(await client.callTool({ name: 'comet_export_thread', arguments: { format: 'json' } }))) as { turns: unknown[]; pages: number };
    expect(json.turns).toHaveLength(25);
    expect(json.pages).toBe(3);
    // `md`, as the CLI's --format names it, is Markdown too (new-user review #8).
    expect(text(await client.callTool({ name: 'comet_export_thread', arguments: { format: 'md' } }))).toBe(text(await client.callTool({ name: 'comet_export_thread', arguments: { format: 'markdown' } })));
  });

  it('cuts at maxLength and says where and how to ask for the rest; the pieces make the whole', async () => {
    const lib = new SimLibrary().seed({ threads: 5, longTurns: 25 });
    const client = await connect(libraryBrowser(lib));
    const whole = text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'long-thread-Lg25tn' } }));
    let offset = 0;
    let joined = '';
    for (let guard = 0; guard < 20; guard++) {
      const part = text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'long-thread-Lg25tn', maxLength: 4000, offset } }));
      const note = /\n\n\[(?:cut at character (\d+) of (\d+): call again with offset \d+ for the rest|characters \d+–\d+ of \d+: the end)\]$/.exec(part);
      expect(note, part.slice(-200)).not.toBeNull();
      joined += part.slice(0, note?.index);
      if (!note?.[1]) break;
      offset = Number(note[1]);
    }
    expect(joined).toBe(whole);
    // Past the end is a wrong argument, said as one (review 8, errors #11).
    const past = await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'long-thread-Lg25tn', offset: whole.length } });
    expect(past.isError).toBe(true);
    expect(text(past)).toBe(`[INVALID_PARAMS] offset ${whole.length} is past the end: the export is ${whole.length} characters; pass an offset below ${whole.length}, or leave it out for the start.`);
  });

  it('says plainly what was wrong: not a thread, no thread in the tab, a thread the site does not have', async () => {
    const lib = new SimLibrary().seed({ threads: 3 });
    const browser = libraryBrowser(lib);
    browser.on('browser.status', { perplexityTab: { tabId: '1', url: 'https://www.perplexity.ai/', title: 'home', selectorSet: null } } as never);
    browser.on('browser.status', { perplexityTab: undefined } as never); // the second look: no tab connected
    const client = await connect(browser);
    expect(text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'https://evil.example/search/x' } }))).toMatch(/^\[INVALID_PARAMS\] "https:\/\/evil\.example\/search\/x" is not a Perplexity thread/);
    expect(text(await client.callTool({ name: 'comet_export_thread', arguments: {} }))).toMatch(/^\[INVALID_PARAMS\] The Perplexity tab shows no thread \(https:\/\/www\.perplexity\.ai\/\)/);
    expect(text(await client.callTool({ name: 'comet_export_thread', arguments: {} }))).toMatch(/^\[INVALID_PARAMS\] No Perplexity tab is connected, so no thread is in view: pass thread/);
    lib.failNext('/rest/thread/gone-1', 404);
    const gone = await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'gone-1' } });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toMatch(/^\[THREAD_NOT_FOUND\] .*\(HTTP 404\): check the slug or URL, or list the threads that are\./);
  });

  it("a failure at the public door names no folder of the person's: their home is ~ there (review 8, errors #9)", async () => {
    const where = `${os.homedir()}/.local/state/comet-relay/hosts/p.json`;
    const failing = () => new FakeBrowser().fail('library.thread', 'EXTENSION_NOT_CONNECTED', `The host record ${where} names a dead host.`);
    const atPublic = await connectSession(failing(), { door: 'public' });
    expect(text(await atPublic.client.callTool({ name: 'comet_export_thread', arguments: { thread: 'x-1' } }))).toBe(
      '[EXTENSION_NOT_CONNECTED] The host record ~/.local/state/comet-relay/hosts/p.json names a dead host.',
    );
    const atLoopback = await connectSession(failing(), { door: 'loopback' });
    expect(text(await atLoopback.client.callTool({ name: 'comet_export_thread', arguments: { thread: 'x-1' } }))).toContain(where);
    await atPublic.client.close();
    await atLoopback.client.close();
  });

  it('~ stands for the home folder wherever it begins a path, never inside a URL or a longer name (fixes review 2 #5, 3 #4)', () => {
    expect(homeAsTilde('The record /root/.local/x names https://www.perplexity.ai/search/root-abc and /rooted.', '/root')).toBe(
      'The record ~/.local/x names https://www.perplexity.ai/search/root-abc and /rooted.',
    );
    expect(homeAsTilde('/home/alice/x, /home/al/x, "/home/al" and /home/al.', '/home/al')).toBe('/home/alice/x, ~/x, "~" and ~.');
    expect(homeAsTilde('[/home/al] (see /home/al!) <p>/home/al</p> file:///home/al/s.sock /home/al.old/n', '/home/al')).toBe(
      '[~] (see ~!) <p>~</p> file://~/s.sock /home/al.old/n',
    );
    expect(homeAsTilde('/home/al/x', '/home/al/')).toBe('~/x'); // a home given with its separator (fixes review 4 #6)
    const windows = 'C:\\Users\\al';
    expect(homeAsTilde('C:\\Users\\al\\x and C:\\Users\\alice', windows)).toBe('~\\x and C:\\Users\\alice');
    expect(homeAsTilde('c:/users/al/x and {"path":"C:\\\\Users\\\\al\\\\x"}', windows)).toBe('~/x and {"path":"~\\\\x"}');
  });

  it('a resource read that fails at the public door names no folder of the person\'s either (fixes review 2 #3)', async () => {
    const where = `${os.homedir()}/.local/state/comet-relay/hosts/p.json`;
    const browser = new FakeBrowser().fail('library.thread', 'EXTENSION_NOT_CONNECTED', `The host record ${where} names a dead host.`);
    const atPublic = await connectSession(browser, { door: 'public' });
    const failed = await atPublic.client.readResource({ uri: 'perplexity://thread/why-is-the-sky-blue-Ab12' }).then(
      () => 'read',
      (error: Error) => error.message,
    );
    expect(failed).toContain('The host record ~/.local/state/comet-relay/hosts/p.json names a dead host.');
    expect(failed).not.toContain(os.homedir());
    await atPublic.client.close();
  });

  it('a JSON no reader knows says what the person can do about it, once (review 8, errors #8)', async () => {
    const browser = new FakeBrowser()
      .fail('library.thread', 'JSON_SHAPE', 'thread "x-1": page 1 of its JSON has no list of entries at entries (reader thread-json-2026).')
      .fail('library.thread', 'JSON_SHAPE', 'no entries: add one with `comet-relay selectors add FILE`.');
    const { client } = await connectSession(browser);
    const said = text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'x-1' } }));
    expect(said).toMatch(/^\[JSON_SHAPE\] thread "x-1": .*\(reader thread-json-2026\)\. perplexity\.ai's JSON is not in a shape comet-relay reads: the person can add a reader that knows it \(`.*selectors add FILE`\) or report it with `.*doctor --page`\.$/);
    expect(text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'x-1' } }))).toBe('[JSON_SHAPE] no entries: add one with `comet-relay selectors add FILE`.');
    await client.close();
  });

  it('a probe that found nothing says how the person checks, saves and fixes the page (review 13c, F9)', async () => {
    const miss = 'answer: none of `[data-workflow-final-text]` matched on https://www.perplexity.ai/search/x — open a Perplexity thread page (selector set gen-b-2026-10-live, built-in)';
    const browser = new FakeBrowser().fail('page.poll', 'SELECTOR_MISS', miss).fail('page.poll', 'SELECTOR_MISS', 'composer: none matched; add a selector set (`comet-relay selectors add FILE`).');
    const { client } = await connectSession(browser);
    const said = text(await client.callTool({ name: 'comet_poll', arguments: {} }));
    expect(said.startsWith(`[SELECTOR_MISS] ${miss}. If that is the right page, Perplexity may have redrawn it: the person can check it with \``)).toBe(true);
    expect(said).toMatch(/check it with `[^`]*doctor --page`, save it with `[^`]*capture`, and add a selector set that reads it \(`[^`]*selectors add FILE`\)\.$/);
    // A miss that already says what to do is not told twice.
    expect(text(await client.callTool({ name: 'comet_poll', arguments: {} }))).toBe('[SELECTOR_MISS] composer: none matched; add a selector set (`comet-relay selectors add FILE`).');
    await client.close();
  });
});

describe('thread resources', () => {
  it('lists the latest threads by cursor, titled, as Markdown; the template names any; a read is the export`s Markdown', async () => {
    const lib = new SimLibrary().seed({ threads: 60, longTurns: 25 });
    const client = await connect(libraryBrowser(lib));
    expect(client.getServerCapabilities()?.resources).toEqual({});
    const first = await client.listResources();
    expect(first.resources).toHaveLength(50);
    expect(first.resources[0]).toMatchObject({ uri: `perplexity://thread/${lib.threads[0]?.slug}`, name: lib.threads[0]?.title, title: lib.threads[0]?.title, mimeType: 'text/markdown' });
    expect(first.nextCursor).toBe('50');
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources).toHaveLength(10);
    expect(second.nextCursor).toBeUndefined();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'perplexity://thread/{slug}', mimeType: 'text/markdown' })]);
    const read = await client.readResource({ uri: 'perplexity://thread/long-thread-Lg25tn' });
    const tool = text(await client.callTool({ name: 'comet_export_thread', arguments: { thread: 'long-thread-Lg25tn' } }));
    expect(read.contents).toEqual([{ uri: 'perplexity://thread/long-thread-Lg25tn', mimeType: 'text/markdown', text: tool }]);
  });

  it('refuses a URI that names no thread, and says a missing one is missing', async () => {
    const lib = new SimLibrary().seed({ threads: 3 });
    const client = await connect(libraryBrowser(lib));
    await expect(client.readResource({ uri: 'perplexity://thread/..%2Fetc' })).rejects.toThrow(/INVALID_PARAMS/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/INVALID_PARAMS/);
    await expect(client.listResources({ cursor: 'abc' })).rejects.toThrow(/Unknown cursor/);
    lib.failNext('/rest/thread/gone-2', 404);
    await expect(client.readResource({ uri: 'perplexity://thread/gone-2' })).rejects.toThrow(/THREAD_NOT_FOUND/);
  });

  it('are served only with comet_export_thread', async () => {
    const client = await connect(new FakeBrowser(), selectTools({ allow: ['comet_ask'] }));
    expect(client.getServerCapabilities()?.resources).toBeUndefined();
  });
});
