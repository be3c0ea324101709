import { beforeEach, describe, expect, it, vi } from 'vitest';
import { offeredAt } from '../../lib/mcp/tool';
import { allTools } from '../../lib/mcp/tools';
import { accessNeed, LOCAL_ACCESS, METHOD_ACCESS, type Need, OTHER_TAB_METHODS, TARGETS, THREAD_METHODS, threadTarget } from '../../lib/protocol/access';
import { callerName, DOORS, type Door, PUBLIC_DOOR_NAME } from '../../lib/protocol/doors';
import { checkEnvelope } from '../../lib/protocol/envelope-check';
import { parseEnvelope, type Envelope, type Request } from '../../lib/protocol/messages';
import { type ControlSettings, DEFAULT_SETTINGS } from '../../lib/protocol/panel';
import type { PageHub } from '../../lib/worker/calls/pages';
import { Router } from '../../lib/worker/calls/router';
import { RelayError } from '../../lib/protocol/errors';
import { DoorThreads } from '../../lib/worker/threads/door-threads';
import type { ThreadCalls } from '../../lib/worker/threads/thread-calls';
import type { TabService } from '../../lib/worker/calls/tabs';
import { decideNeed } from '../../lib/worker/panel/policy';
import { fakeThreadCalls } from '../support/fake-tabs';

/**
 * The access table (lib/protocol/access.ts), door by door and method by method, and the worker
 * holding to it: the public door never lists tabs or reaches another tab and takes screenshots
 * only when the person allows it for that door; the loopback door lists other tabs only as it may
 * read them (review 2026-12-02 #6, #9, #25).
 */

const browserState = { granted: false, tabs: new Map<number, { id: number; url: string; title: string }>() };

vi.mock('wxt/browser', () => ({
  browser: {
    permissions: { contains: async () => browserState.granted },
    tabs: { get: async (id: number) => browserState.tabs.get(id) ?? Promise.reject(new Error('no tab')) },
  },
}));

/** What each method needs at its own target, written out: [loopback, public]. */
const EXPECTED: Record<keyof typeof METHOD_ACCESS | keyof typeof LOCAL_ACCESS, [Need, Need]> = {
  'browser.status': ['open', 'open'],
  'tabs.list': ['other-tabs', 'never'],
  'tabs.capture': ['screenshots', 'public-screenshots'],
  'tabs.switch': ['policy', 'policy'],
  'tabs.ensurePerplexity': ['policy', 'policy'],
  'tabs.navigate': ['policy', 'policy'],
  'page.content': ['open', 'open'],
  'page.probe': ['open', 'open'],
  'page.diagnose': ['open', 'open'],
  'page.capture': ['open', 'open'],
  'page.poll': ['open', 'open'],
  'page.wait': ['open', 'open'],
  'page.sources': ['open', 'open'],
  'page.conversations': ['open', 'public-library'],
  'page.report': ['open', 'open'],
  'page.ask': ['policy', 'policy'],
  'page.stop': ['policy', 'policy'],
  'page.mode': ['open', 'open'],
  'threads.start': ['policy', 'policy'],
  'threads.send': ['policy', 'policy'],
  'threads.respond': ['policy', 'policy'],
  'threads.wait': ['open', 'open'],
  'threads.state': ['open', 'open'],
  'threads.read': ['open', 'open'],
  'threads.assets': ['open', 'open'],
  'threads.assetDownload': ['open', 'open'],
  'account.models': ['open', 'open'],
  'account.projects': ['open', 'public-library'],
  'library.list': ['open', 'public-library'],
  'library.thread': ['open', 'public-library'],
  'host.status': ['open', 'open'],
  'browser.launch': ['policy', 'policy'],
  'attachments.store': ['policy', 'policy'],
  'attachments.admit': ['policy', 'policy'],
};

/** Another tab, for the methods whose tab may be one: [loopback, public]. */
const OTHER_TAB: Record<string, [Need, Need]> = {
  'tabs.capture': ['other-tabs', 'never'],
  'page.content': ['other-tabs', 'never'],
  'tabs.switch': ['policy', 'never'],
};

describe('the access table, per door and method', () => {
  const doorIndex = (door: Door) => DOORS.indexOf(door);

  for (const method of Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]) {
    for (const door of DOORS) {
      it(`${door} · ${method}`, () => {
        expect(accessNeed({ door, method })).toBe(EXPECTED[method][doorIndex(door)]);
        const otherTab = OTHER_TAB[method];
        expect(accessNeed({ door, method, target: 'other-tab' })).toBe(otherTab ? otherTab[doorIndex(door)] : 'never');
      });
    }
  }

  it('covers every method and no other; a target a method cannot reach is never', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...Object.keys(METHOD_ACCESS), ...Object.keys(LOCAL_ACCESS)].sort());
    expect(Object.keys(OTHER_TAB).sort()).toEqual([...OTHER_TAB_METHODS].sort());
    for (const door of DOORS) {
      expect(accessNeed({ door, method: 'page.poll', target: 'tab-list' })).toBe('never');
      expect(accessNeed({ door, method: 'page.ask', target: 'screenshot' })).toBe('never');
    }
  });

  it('a thread the public door did not start is the library there: read with the setting, never acted on (threads review H2)', () => {
    const ANOTHERS: Record<string, Need> = {
      'threads.wait': 'public-library',
      'threads.state': 'public-library',
      'threads.read': 'public-library',
      'threads.assets': 'public-library',
      'threads.assetDownload': 'public-library',
      'threads.send': 'never',
      'threads.respond': 'never',
    };
    expect(Object.keys(ANOTHERS).sort()).toEqual([...THREAD_METHODS].sort());
    for (const method of THREAD_METHODS) {
      expect(accessNeed({ door: 'public', method, target: threadTarget('public', method, false) })).toBe(ANOTHERS[method]);
      // Its own thread, and every thread at the loopback door: as the table above says.
      expect(threadTarget('public', method, true)).toBe('perplexity');
      expect(threadTarget('loopback', method, false)).toBe('perplexity');
    }
    expect(threadTarget('public', 'threads.start', false)).toBe('perplexity');
  });

  it('a mode switch acts, a mode read reads, at either door', () => {
    for (const door of DOORS) expect(accessNeed({ door, method: 'page.mode', params: { mode: 'computer' } })).toBe('policy');
  });

  it('an unknown method needs the person at the loopback door, and is never read as harmless', () => {
    expect(accessNeed({ door: 'loopback', method: 'page.somethingNew' })).toBe('policy');
    expect(TARGETS).toContain('perplexity');
  });
});

describe('what each door offers of the MCP tools', () => {
  it('the public door offers neither the tab list nor tab switching; the loopback door offers every tool', () => {
    const publicNames = allTools.filter((tool) => offeredAt(tool, 'public')).map((tool) => tool.name);
    expect(publicNames).not.toContain('comet_list_tabs');
    expect(publicNames).not.toContain('comet_switch_tab');
    expect(publicNames).toContain('comet_screenshot');
    expect(publicNames).toContain('comet_get_page_content');
    expect(allTools.every((tool) => offeredAt(tool, 'loopback'))).toBe(true);
  });
});

describe('who a caller is', () => {
  it('a public-door caller is named by its door, whatever its client calls itself; no door is the public one', () => {
    expect(callerName({ door: 'public', clientName: 'Claude Code' })).toBe(PUBLIC_DOOR_NAME);
    expect(callerName({ clientName: 'Claude Code' })).toBe(PUBLIC_DOOR_NAME);
    expect(callerName({ door: 'loopback', clientName: 'Claude Code' })).toBe('Claude Code');
  });

  it('the door in an envelope is checked by the zod schema and by the host’s check alike', () => {
    const request = { kind: 'request', id: 'r1', method: 'page.poll', params: {}, origin: { clientId: 'k', clientName: 'n', door: 'public' } };
    expect(parseEnvelope(request)).toMatchObject({ ok: true, envelope: { origin: { door: 'public' } } });
    expect(checkEnvelope(request)).toMatchObject({ ok: true, envelope: { origin: { door: 'public' } } });
    const forged = { ...request, origin: { ...request.origin, door: 'admin' } };
    expect(parseEnvelope(forged).ok).toBe(false);
    expect(checkEnvelope(forged)).toMatchObject({ ok: false, error: expect.stringContaining('origin.door') });
  });
});

// ── the worker holds to the table ───────────────────────────────────────────────

const PERPLEXITY = { id: 7, windowId: 1, url: 'https://www.perplexity.ai/search/tides-abc', title: 'Tides' };
const BANK = { id: 9, windowId: 1, url: 'https://bank.example/accounts?session=s3cr3t', title: 'Your accounts' };
const info = (tab: typeof PERPLEXITY, category: string) => ({ id: String(tab.id), windowId: 1, title: tab.title, url: tab.url, active: false, category });

/** The person's settings deciding a need, as the worker's panel service does (lib/worker/panel/policy.ts). */
const decidedBy = (settings: ControlSettings) => async (_request: Request, need: Need, what: string) => {
  const decision = decideNeed(need, what, settings);
  if (decision.kind === 'deny') throw decision.error;
};

function world(settings: ControlSettings = DEFAULT_SETTINGS, threadCalls?: ThreadCalls) {
  const calls: string[] = [];
  // The thread family: a start makes task-new; any thread_id is read or written as asked.
  const threads = {
    handles: (method: string) => method.startsWith('threads.'),
    call: async (method: string, params: { threadId?: string }) => {
      calls.push(`${method} ${params.threadId ?? ''}`.trim());
      return method === 'threads.start' ? { threadId: 'task-new' } : { threadId: params.threadId };
    },
  } as unknown as ThreadCalls;
  const tabs = {
    list: async () => [info(PERPLEXITY, 'Main'), info(BANK, 'Other')],
    connectedDrivenTab: () => undefined,
    drivenTab: async () => PERPLEXITY,
    pageTab: async () => PERPLEXITY.id,
    switchTo: async (id: string) => {
      calls.push(`switch ${id}`);
      return info(BANK, 'Other');
    },
    navigate: async (url: string) => {
      calls.push(`navigate ${url}`);
      return url;
    },
    capture: async () => {
      calls.push('capture');
      return { data: 'png', mimeType: 'image/png' };
    },
  } as unknown as TabService;
  const pages = { state: () => ({}), request: async (_tab: number, method: string) => calls.push(method) && { title: 'Tides', text: 'answer' } } as unknown as PageHub;
  const router = new Router({
    tabs,
    pages,
    threads: threadCalls ?? threads,
    publicThreads: new DoorThreads(),
    status: async () => ({}),
    authorizeTarget: decidedBy(settings),
  });
  const call = async (door: Door | undefined, method: string, params: unknown = {}) => {
    const replies: Envelope[] = [];
    const request: Request = { kind: 'request', id: `r${Math.random()}`, method, params, ...(door ? { origin: { clientId: 'k1', clientName: 'Claude Code', tool: 't', door } } : {}) };
    await router.handle(request, (m) => replies.push(m));
    return replies.at(-1) as Envelope;
  };
  return { call, calls };
}

beforeEach(() => {
  browserState.granted = false;
  browserState.tabs = new Map([
    [PERPLEXITY.id, PERPLEXITY],
    [BANK.id, BANK],
  ]);
});

describe('the page’s text through the public door holds no library (worker review 2026-12-05, F2)', () => {
  const contentParams = async (door: Door, settings: ControlSettings) => {
    const sent: unknown[] = [];
    const pages = {
      state: () => ({ url: PERPLEXITY.url }),
      request: async (_tab: number, method: string, params: unknown) => {
        if (method === 'page.content') sent.push(params);
        return { title: 'Tides', text: 'answer', totalLength: 6, truncated: false };
      },
    } as unknown as PageHub;
    const tabs = { connectedDrivenTab: () => ({ id: PERPLEXITY.id, url: PERPLEXITY.url }), pageTab: async () => PERPLEXITY.id } as unknown as TabService;
    const router = new Router({
      tabs,
      pages,
      status: async () => ({}),
      authorizeTarget: decidedBy(settings),
    });
    const replies: Envelope[] = [];
    await router.handle({ kind: 'request', id: 'c1', method: 'page.content', params: { maxLength: 100 }, origin: { clientId: 'k1', clientName: 'x', tool: 't', door } }, (m) => replies.push(m));
    expect(replies.at(-1)).toMatchObject({ kind: 'result' });
    return sent;
  };

  it('a Perplexity tab whose page script has not loaded (a sidecar) is not read whole by the injected reader there (day-7h review K2)', async () => {
    const sidecar = { id: 8, windowId: 1, url: 'https://www.perplexity.ai/sidecar?copilot=true', title: 'Sidecar' };
    let loads = false;
    const sent: unknown[] = [];
    const pages = {
      state: () => undefined,
      whenReady: async (tabId: number) => {
        if (!loads) throw new RelayError('NO_PERPLEXITY_TAB', `The Perplexity page in tab ${tabId} did not load its comet-relay script within 5000 ms. Reload the tab.`);
      },
      request: async (_tab: number, method: string, params: unknown) => {
        if (method === 'page.content') sent.push(params);
        return { title: 'Sidecar', text: 'answer', totalLength: 6, truncated: false };
      },
    } as unknown as PageHub;
    const tabs = { connectedDrivenTab: () => undefined, drivenTab: async () => sidecar } as unknown as TabService;
    const router = new Router({
      tabs,
      pages,
      status: async () => ({}),
      authorizeTarget: decidedBy(DEFAULT_SETTINGS),
    });
    const replies: Envelope[] = [];
    const read = () => router.handle({ kind: 'request', id: `c${replies.length}`, method: 'page.content', params: { maxLength: 100 }, origin: { clientId: 'k1', clientName: 'x', tool: 't', door: 'public' } }, (m) => replies.push(m));
    // Its page script is waited for and read through (day-7i I2); one that never loads is said so, with what to do.
    await read();
    expect(replies.at(-1)).toMatchObject({ kind: 'error', error: { code: 'NO_PERPLEXITY_TAB', message: expect.stringMatching(/tab 8 did not load its comet-relay script .* Reload the tab/) } });
    loads = true;
    await read();
    expect(replies.at(-1)).toMatchObject({ kind: 'result', result: { text: 'answer', source: 'perplexity' } });
    expect(sent).toEqual([{ maxLength: 100, library: false }]);
  });

  it('the sidebar’s thread titles are left out there unless the person opened the library to it; the loopback door reads the whole page', async () => {
    expect(await contentParams('public', DEFAULT_SETTINGS)).toEqual([{ maxLength: 100, library: false }]);
    expect(await contentParams('public', { ...DEFAULT_SETTINGS, publicLibrary: true })).toEqual([{ maxLength: 100, library: true }]);
    expect(await contentParams('loopback', DEFAULT_SETTINGS)).toEqual([{ maxLength: 100, library: true }]);
  });
});

describe('the tab list (review #6): other tabs are listed only as they may be read', () => {
  it('without the grant, the loopback door lists Perplexity tabs and counts the others', async () => {
    const reply = await world().call('loopback', 'tabs.list');
    expect(reply).toMatchObject({ kind: 'result', result: { tabs: [{ id: '7' }], withheld: { count: 1, reason: expect.stringContaining('Let agents take screenshots and read other tabs') } } });
    expect(JSON.stringify(reply)).not.toContain('bank.example');
  });

  it('with the grant, Read-only still withholds them (it lets agents read only Perplexity)', async () => {
    browserState.granted = true;
    const reply = await world({ ...DEFAULT_SETTINGS, readOnly: true }).call('loopback', 'tabs.list');
    expect(reply).toMatchObject({ kind: 'result', result: { withheld: { count: 1, reason: expect.stringContaining('read-only') } } });
    expect(JSON.stringify(reply)).not.toContain('bank.example');
  });

  it('with the grant and no Read-only, the loopback door lists every tab', async () => {
    browserState.granted = true;
    const reply = await world().call('loopback', 'tabs.list');
    expect(reply).toMatchObject({ kind: 'result', result: { tabs: [{ id: '7' }, { id: '9', url: BANK.url }] } });
  });

  it('the public door never gets the list, grant or not; nor does a call that names no door', async () => {
    browserState.granted = true;
    for (const door of ['public', undefined] as const) {
      const reply = await world().call(door, 'tabs.list');
      expect(reply).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('public door') } });
      expect(JSON.stringify(reply)).not.toContain('bank.example');
    }
  });
});

describe('the public door and other tabs and screenshots', () => {
  it('never reads or switches to another tab, grant or not', async () => {
    browserState.granted = true;
    const w = world();
    expect(await w.call('public', 'tabs.switch', { tabId: '9' })).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
    expect(w.calls).toEqual([]);
    expect(await w.call('loopback', 'tabs.switch', { tabId: '9' })).toMatchObject({ kind: 'result' });
    expect(w.calls).toEqual(['switch 9']);
  });

  it('takes a screenshot only when the person allows it for that door, on top of the grant', async () => {
    browserState.granted = true;
    const off = world();
    expect(await off.call('public', 'tabs.capture', { format: 'png' })).toMatchObject({
      kind: 'error',
      error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('Screenshots through the public door') },
    });
    expect(off.calls).toEqual([]);
    expect(await off.call('loopback', 'tabs.capture', { format: 'png' })).toMatchObject({ kind: 'result' });
    const on = world({ ...DEFAULT_SETTINGS, publicScreenshots: true });
    expect(await on.call('public', 'tabs.capture', { format: 'png' })).toMatchObject({ kind: 'result' });
    browserState.granted = false;
    expect(await on.call('public', 'tabs.capture', { format: 'png' })).toMatchObject({ kind: 'error', error: { code: 'PERMISSION_DENIED' } });
  });
});

describe('the public door and the library', () => {
  it('sees none of the library, the thread list or the sidebar`s conversations until the person turns it on', async () => {
    const off = world();
    for (const [method, params] of [
      ['library.list', {}],
      ['library.thread', { thread: 'tides-abc' }],
      ['page.conversations', {}],
    ] as const) {
      expect(await off.call('public', method, params)).toMatchObject({
        kind: 'error',
        error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('Let the Agent API read my library') },
      });
      expect(await off.call('loopback', method, params)).toMatchObject({ kind: 'result' });
    }
    expect(off.calls).toEqual(['library.list', 'library.thread', 'page.conversations']);
    const on = world({ ...DEFAULT_SETTINGS, publicLibrary: true });
    expect(await on.call('public', 'library.list', {})).toMatchObject({ kind: 'result' });
    expect(on.calls).toEqual(['library.list']);
  });
});

describe('the public door and threads it did not start (threads review 2026-12-05, H2)', () => {
  it('read_thread of any other thread is a library read: refused with the setting off, read with it on; its own thread is open', async () => {
    const off = world();
    expect(await off.call('public', 'threads.read', { threadId: 'persons-search-thread-Ab1' })).toMatchObject({
      kind: 'error',
      error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('Let the Agent API read my library') },
    });
    expect(await off.call('public', 'threads.start', { message: 'plan a trip' })).toMatchObject({ kind: 'result', result: { threadId: 'task-new' } });
    expect(await off.call('public', 'threads.read', { threadId: 'task-new' })).toMatchObject({ kind: 'result' });
    expect(await off.call('public', 'threads.state', { threadId: 'task-new' })).toMatchObject({ kind: 'result' });
    expect(await off.call('loopback', 'threads.read', { threadId: 'persons-search-thread-Ab1' })).toMatchObject({ kind: 'result' });
    expect(off.calls).toEqual(['threads.start', 'threads.read task-new', 'threads.state task-new', 'threads.read persons-search-thread-Ab1']);
    const on = world({ ...DEFAULT_SETTINGS, publicLibrary: true });
    expect(await on.call('public', 'threads.read', { threadId: 'persons-search-thread-Ab1' })).toMatchObject({ kind: 'result' });
  });

  it('a follow-up or a reply into a thread the public door did not start is refused, whatever the settings; into its own it goes', async () => {
    const on = world({ ...DEFAULT_SETTINGS, publicLibrary: true });
    for (const [method, params] of [
      ['threads.send', { message: 'and a hotel' }],
      ['threads.respond', { reply: { kind: 'approve', reason: '' } }],
    ] as const) {
      expect(await on.call('public', method, { threadId: 'persons-task-Cd2', ...params })).toMatchObject({
        kind: 'error',
        error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('only on threads it started there (call_perplexity_computer without a thread_id)') },
      });
    }
    await on.call('public', 'threads.start', { message: 'plan a trip' });
    expect(await on.call('public', 'threads.send', { threadId: 'task-new', message: 'and a hotel' })).toMatchObject({ kind: 'result' });
    expect(on.calls).toEqual(['threads.start', 'threads.send task-new']);
  });

  it('a start whose page call failed once its task had an address is its own thread all the same (review 15a, F2)', async () => {
    const task = 'plan-a-trip-AbCdEfGhIjKlMnOpQrStUv';
    const address = `https://www.perplexity.ai/computer/tasks/${task}`;
    const browser = fakeThreadCalls(async (tabId, method) => {
      if (method === 'page.mode') return { mode: 'computer', source: 'switched' };
      if (method === 'threads.start') {
        const tab = browser.tabs.find((t) => t.id === tabId);
        if (tab) tab.url = address;
        throw new RelayError('AGENT_ERROR', 'The Perplexity page in this tab was closed or reloaded during the call.');
      }
      if (method === 'threads.send') return { threadId: task, url: address, turn: 1 };
      throw new Error(`unexpected ${method}`);
    });
    const off = world(DEFAULT_SETTINGS, browser.calls);
    expect(await off.call('public', 'threads.start', { message: 'plan a trip' })).toMatchObject({ kind: 'result', result: { threadId: task } });
    expect(await off.call('public', 'threads.send', { threadId: task, message: 'and a hotel' })).toMatchObject({ kind: 'result' });
    expect(browser.requests).toEqual([
      { tabId: 100, method: 'page.mode' },
      { tabId: 100, method: 'threads.start' },
      { tabId: 100, method: 'threads.send' },
    ]);
  });
});

describe('the public door and a task in one of the person’s Projects (review 15c, F2)', () => {
  const PROJECT = '0b5c3f0e-1a2b-4c3d-8e9f-0123456789ab';
  it('is the library there: refused with the setting off, naming it and where it is; started with it on; open at the loopback door', async () => {
    const off = world();
    for (const projectVisibility of ['private', 'project'] as const) {
      expect(await off.call('public', 'threads.start', { message: 'Summarise every file', projectUuid: PROJECT, projectVisibility })).toMatchObject({
        kind: 'error',
        error: {
          code: 'PERMISSION_DENIED',
          message: expect.stringMatching(new RegExp(`start a Computer task in the person's Project ${PROJECT} was refused\\. To open it, turn on “Let the Agent API read my library” under Control in the comet-relay side panel`)),
        },
      });
    }
    // Listing the Projects is refused in the same words.
    expect(await off.call('public', 'account.projects', {})).toMatchObject({ kind: 'error', error: { message: expect.stringContaining('Let the Agent API read my library') } });
    expect(off.calls).toEqual([]);
    // A task outside any Project, and a Project's at the loopback door, go as before.
    expect(await off.call('public', 'threads.start', { message: 'plan a trip' })).toMatchObject({ kind: 'result' });
    expect(await off.call('loopback', 'threads.start', { message: 'plan a trip', projectUuid: PROJECT })).toMatchObject({ kind: 'result' });
    const on = world({ ...DEFAULT_SETTINGS, publicLibrary: true });
    expect(await on.call('public', 'threads.start', { message: 'Summarise every file', projectUuid: PROJECT })).toMatchObject({ kind: 'result', result: { threadId: 'task-new' } });
    expect(on.calls).toEqual(['threads.start']);
  });
});

describe('the public door and a navigation that opens the library (day-2 review M3)', () => {
  const THREAD_URL = 'https://www.perplexity.ai/search/the-persons-thread-Ab1';
  it('opening a thread (or the library) needs the library setting; the home page does not', async () => {
    const off = world();
    // A prompt parameter on a thread's or the library's address opens that page all the same (day-3 review H1).
    for (const url of [THREAD_URL, 'https://www.perplexity.ai/library', 'https://www.perplexity.ai/library?query=a', `${THREAD_URL}?q=x`, 'https://perplexity.ai/search/x/']) {
      expect(await off.call('public', 'tabs.navigate', { url })).toMatchObject({
        kind: 'error',
        error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('Let the Agent API read my library') },
      });
    }
    expect(await off.call('public', 'tabs.navigate', { url: 'https://www.perplexity.ai/' })).toMatchObject({ kind: 'result' });
    expect(await off.call('public', 'tabs.navigate', { url: 'https://www.perplexity.ai/search?q=tides' })).toMatchObject({ kind: 'result' });
    expect(await off.call('loopback', 'tabs.navigate', { url: THREAD_URL })).toMatchObject({ kind: 'result' });
    expect(off.calls).toEqual(['navigate https://www.perplexity.ai/', 'navigate https://www.perplexity.ai/search?q=tides', `navigate ${THREAD_URL}`]);
    const on = world({ ...DEFAULT_SETTINGS, publicLibrary: true });
    expect(await on.call('public', 'tabs.navigate', { url: THREAD_URL })).toMatchObject({ kind: 'result' });
  });
});
