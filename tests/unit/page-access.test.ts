import { describe, expect, it, vi } from 'vitest';
import {
  classifyPageAccess,
  isPageAccessFault,
  type PageAccessObservation,
  PageAccessWords,
  pageAccessWords,
  unblockCommand,
} from '../../lib/protocol/page-access';
import { PageAccessWatch } from '../../lib/worker/calls/page-access';
import { PageHub } from '../../lib/worker/calls/pages';
import { actionLook } from '../../lib/worker/link/action-state';

vi.mock('wxt/browser', () => ({ browser: {} }));

/** Chromium 156's words for a tab on a host its ExtensionSettings policy blocks, measured 2026-12-02. */
const POLICY_ERROR = 'This page cannot be scripted due to an ExtensionsSettings policy.';
const seen = (over: Partial<PageAccessObservation> = {}): PageAccessObservation => ({
  siteAccess: true,
  onPerplexity: true,
  tabStatus: 'complete',
  probe: { ok: true, readyState: 'complete', pageScript: false },
  ...over,
});

describe('classifyPageAccess: why a Perplexity tab has no page script, from what the browser said', () => {
  it('tells the policy block, site access off, loading, a missing and a silent script, and the unknown apart', () => {
    expect(classifyPageAccess(seen({ probe: { ok: false, error: POLICY_ERROR } }))).toEqual({ state: 'blocked-by-policy', settled: true, browserSaid: POLICY_ERROR });
    expect(classifyPageAccess(seen({ siteAccess: false }))).toMatchObject({ state: 'site-access-off', settled: true });
    expect(classifyPageAccess(seen({ probe: { ok: true, readyState: 'loading', pageScript: false }, tabStatus: 'loading' }))).toEqual({ state: 'loading', settled: false });
    expect(classifyPageAccess(seen())).toEqual({ state: 'script-missing', settled: false });
    expect(classifyPageAccess(seen({ probe: { ok: true, readyState: 'complete', pageScript: true } }))).toEqual({ state: 'script-silent', settled: false });
    expect(classifyPageAccess(seen({ probe: { ok: false, error: 'Frame with ID 0 was removed.' } }))).toEqual({
      state: 'unknown',
      settled: false,
      browserSaid: 'Frame with ID 0 was removed.',
    });
  });

  it('never reads a refusal about a document that is not Perplexity yet (a new tab on about:blank) as a block', () => {
    const aboutBlank = 'Cannot access contents of url "about:blank". Extension manifest must request permission to access this host.';
    expect(classifyPageAccess(seen({ onPerplexity: false, probe: { ok: false, error: aboutBlank } }))).toEqual({ state: 'loading', settled: false });
    expect(classifyPageAccess(seen({ onPerplexity: false, probe: { ok: false, error: POLICY_ERROR } }))).toEqual({ state: 'loading', settled: false });
    // Site access is judged for the origin a Perplexity document is on (#5): a tab not there yet is on its way.
    expect(classifyPageAccess(seen({ onPerplexity: false, siteAccess: false }))).toEqual({ state: 'loading', settled: false });
  });

  it('a page whose readyState is complete while the tab still loads is loading', () => {
    expect(classifyPageAccess(seen({ tabStatus: 'loading' }))).toMatchObject({ state: 'loading' });
  });
});

describe('pageAccessWords: the one set of words for tools, panel, toolbar and doctor', () => {
  const blocked = classifyPageAccess(seen({ probe: { ok: false, error: POLICY_ERROR } }));

  it("in Comet: names Comet, its ExtensionSettings policy, the command in the host's form and the restart", () => {
    const words = pageAccessWords(blocked, { browserName: 'Comet', tabId: 4, form: { command: 'node /home/ann/comet-relay/dist/cli.js' } });
    expect(words.code).toBe('BROWSER_POLICY');
    expect(words.command).toBe('node /home/ann/comet-relay/dist/cli.js unblock --browser comet');
    expect(words.message).toBe(
      `Comet blocks extensions on perplexity.ai (its ExtensionSettings policy), so comet-relay cannot run in tab 4 (the browser said: “${POLICY_ERROR}”). ` +
        "To fix it, run `node /home/ann/comet-relay/dist/cli.js unblock --browser comet`, which lets comet-relay's extension alone in, and restart Comet.",
    );
    expect(PageAccessWords.parse(words)).toEqual(words);
  });

  it('in another Chromium browser: an ExtensionSettings policy of this browser, and the administrator', () => {
    const words = pageAccessWords(blocked, { browserName: 'Chromium', tabId: 4 });
    expect(words.message).toMatch(/^An ExtensionSettings policy of this browser \(Chromium\) blocks extensions on perplexity\.ai/);
    // No host has said its form yet: the global command, and how to adapt it.
    expect(words.message).toContain('run `comet-relay unblock --browser chromium` (or however you run comet-relay, followed by `unblock --browser chromium`)');
    expect(words.fix).toMatch(/ask its administrator$/);
    expect(unblockCommand('Google Chrome')).toBe('comet-relay unblock --browser chrome');
    expect(unblockCommand('Vivaldi', { command: 'npx /home/ann/comet-relay-0.1.0.tgz' })).toBe('npx /home/ann/comet-relay-0.1.0.tgz unblock');
    expect(unblockCommand('Comet', { command: 'comet-relay', home: "'/srv/my relay'" })).toBe("comet-relay unblock --browser comet --home '/srv/my relay'");
  });

  it('site access off: its own code, and where to turn it on (comet://extensions in Comet)', () => {
    const words = pageAccessWords({ state: 'site-access-off', settled: true }, { browserName: 'Comet', tabId: 4 });
    expect(words.code).toBe('SITE_ACCESS_OFF');
    expect(words.message).toMatch(/site access to perplexity\.ai is turned off/);
    expect(words.fix).toMatch(/^open comet:\/\/extensions, comet-relay → Details → Site access/);
    expect(words.command).toBeUndefined();
  });

  it('loading, missing and silent scripts keep NO_PERPLEXITY_TAB, each with its own words', () => {
    const ctx = { browserName: 'Chromium', tabId: 4, waitedMs: 5000 };
    const loading = pageAccessWords({ state: 'loading', settled: false }, ctx);
    const missing = pageAccessWords({ state: 'script-missing', settled: false }, ctx);
    const silent = pageAccessWords({ state: 'script-silent', settled: false }, ctx);
    expect([loading.code, missing.code, silent.code]).toEqual(['NO_PERPLEXITY_TAB', 'NO_PERPLEXITY_TAB', 'NO_PERPLEXITY_TAB']);
    expect(loading.message).toBe('The Perplexity page in tab 4 is still loading after 5000 ms. Wait for tab 4 to finish loading, or reload it if it is stuck.');
    expect(missing.message).toMatch(/has loaded and the browser lets comet-relay script it, but comet-relay's page script is not in it/);
    expect(silent.message).toMatch(/is in tab 4 but is not connected to the extension after 5000 ms/);
    expect(new Set([loading.message, missing.message, silent.message]).size).toBe(3);
  });

  it('only the causes worth the person’s attention are faults', () => {
    expect(isPageAccessFault({ state: 'blocked-by-policy', settled: true })).toBe(true);
    expect(isPageAccessFault({ state: 'script-missing', settled: false })).toBe(true);
    expect(isPageAccessFault({ state: 'loading', settled: false })).toBe(false);
  });
});

describe('PageHub.whenReady asks the browser why, and fails at once on a cause waiting cannot cure', () => {
  const watch = (observation: () => PageAccessObservation) => new PageAccessWatch(async () => 'Comet', () => {}, async () => observation());

  it('a policy block fails the wait within its first answer, not after the timeout', async () => {
    const access = watch(() => seen({ probe: { ok: false, error: POLICY_ERROR } }));
    const hub = new PageHub(() => {}, undefined, (tabId, waited) => access.check(tabId, waited));
    const started = Date.now();
    await expect(hub.whenReady(4, 15_000)).rejects.toMatchObject({ code: 'BROWSER_POLICY', message: expect.stringContaining('`comet-relay unblock --browser comet`') });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(access.current()?.state).toBe('blocked-by-policy');
  });

  it('a loaded page without our script fails once it was seen a grace apart; a loading page waits for its script', async () => {
    vi.useFakeTimers();
    try {
      const missing = new PageHub(() => {}, undefined, (tabId, waited) => watch(() => seen()).check(tabId, waited));
      const failed = expect(missing.whenReady(4, 15_000)).rejects.toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: expect.stringContaining('page script is not in it') });
      await vi.advanceTimersByTimeAsync(3500);
      await failed;

      const loading = new PageHub(() => {}, undefined, (tabId, waited) => watch(() => seen({ tabStatus: 'loading' })).check(tabId, waited));
      let settled = false;
      const outcome = loading.whenReady(4, 15_000).then(
        () => undefined,
        (error: unknown) => error,
      );
      void outcome.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(10_000);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(5500);
      expect(await outcome).toMatchObject({ code: 'NO_PERPLEXITY_TAB', message: 'The Perplexity page in tab 4 is still loading after 15000 ms. Wait for tab 4 to finish loading, or reload it if it is stuck.' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('the watch forgets a tab whose script connected, and tells only a change of state', async () => {
    const changes: string[] = [];
    const access = new PageAccessWatch(async () => 'Chromium', () => changes.push(access.current()?.state ?? 'none'), async () => seen({ siteAccess: false }));
    await access.check(4);
    await access.check(4, 2000);
    access.clear(5);
    access.clear(4);
    expect(changes).toEqual(['site-access-off', 'none']);
  });

  it('#19: a page script connecting in another Perplexity tab clears the toolbar fault one tab left; a check it outran is not kept', async () => {
    const link = { state: 'connected' as const, hostVersion: '1.0.0', since: 0, failures: 0 };
    const access = watch(() => seen({ probe: { ok: false, error: POLICY_ERROR } }));
    await access.check(11);
    expect(actionLook(link, access.current())).toMatchObject({ state: 'disconnected', badgeText: '!' });
    access.connected(12);
    expect(access.current()).toBeNull();
    expect(actionLook(link, access.current())).toMatchObject({ state: 'connected', badgeText: '' });
    // A check of tab 11 that was asked before tab 12 connected and answers after it: older than the evidence.
    let answer: (o: PageAccessObservation) => void = () => {};
    const slow = new PageAccessWatch(async () => 'Comet', () => {}, () => new Promise((resolve) => (answer = resolve)));
    const late = slow.check(11);
    await Promise.resolve();
    slow.connected(12);
    answer(seen({ probe: { ok: false, error: POLICY_ERROR } }));
    expect((await late).state).toBe('blocked-by-policy');
    expect(slow.current()).toBeNull();
  });
});
