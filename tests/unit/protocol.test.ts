import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { EXTENSION_ID, EXTENSION_PUBLIC_KEY } from '../../lib/protocol/identity';
import { parseEnvelope } from '../../lib/protocol/messages';
import { methods } from '../../lib/protocol/methods';
import { categorizeTab, checkPerplexityUrl, isComputerPath, isConversationPath } from '../../lib/protocol/urls';

describe('identity', () => {
  it('derives the pinned extension ID from the manifest key', () => {
    const der = Buffer.from(EXTENSION_PUBLIC_KEY, 'base64');
    const hex = createHash('sha256').update(der).digest('hex').slice(0, 32);
    const id = [...hex].map((c) => String.fromCharCode(97 + Number.parseInt(c, 16))).join('');
    expect(id).toBe(EXTENSION_ID);
  });
});

describe('envelopes', () => {
  it('accepts every well-formed kind', () => {
    const samples = [
      { kind: 'request', id: 'r1', method: 'tabs.list', params: {} },
      { kind: 'result', id: 'r1', result: { tabs: [] } },
      { kind: 'error', id: 'r1', error: { code: 'TIMEOUT', message: 'late' } },
      { kind: 'cancel', id: 'r1' },
      { kind: 'progress', id: 'r1', message: 'Searching' },
      { kind: 'event', event: 'host.clients', data: {} },
      { kind: 'hello', protocolVersion: 1, version: '0.1.0', role: 'client', client: { name: 'x' } },
      { kind: 'welcome', protocolVersion: 1, version: '0.1.0', pid: 3 },
      { kind: 'incompatible', protocolVersion: 2, version: '9', message: 'no' },
      { kind: 'ping', t: 1 },
      { kind: 'pong', t: 1 },
      { kind: 'chunk', chunkId: 'c', index: 0, count: 1, data: '' },
    ];
    for (const sample of samples) expect(parseEnvelope(sample)).toMatchObject({ ok: true });
  });

  it('names the offending field of a bad message', () => {
    expect(parseEnvelope({ kind: 'request', id: '', method: 'x' })).toMatchObject({ ok: false, error: expect.stringMatching(/^id:/) });
    expect(parseEnvelope({ kind: 'error', id: 'r', error: { code: 'NOPE', message: 'm' } })).toMatchObject({ ok: false, error: expect.stringMatching(/error\.code/) });
    expect(parseEnvelope({ kind: 'teleport' })).toMatchObject({ ok: false });
    expect(parseEnvelope('hello')).toMatchObject({ ok: false });
    expect(parseEnvelope(null)).toMatchObject({ ok: false });
  });

  it('rejects a profile id that could escape the state directory', () => {
    const hello = { kind: 'hello', protocolVersion: 1, version: '1', role: 'extension', profile: { id: '../../etc/x', label: 'x' } };
    expect(parseEnvelope(hello)).toMatchObject({ ok: false });
  });

  it('validates method params', () => {
    expect(methods['tabs.capture'].params.safeParse({ format: 'gif' }).success).toBe(false);
    expect(methods['page.content'].params.safeParse({ maxLength: 0 }).success).toBe(false);
    expect(methods['tabs.list'].params.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('turns foreign errors into typed ones', () => {
    expect(RelayError.from({ code: 'TIMEOUT', message: 'late' })).toMatchObject({ code: 'TIMEOUT', message: 'late' });
    expect(RelayError.from(new Error('boom'))).toMatchObject({ code: 'INTERNAL', message: 'boom' });
    expect(RelayError.from(Object.assign(new Error('x'), { name: 'AbortError' }))).toMatchObject({ code: 'CANCELLED' });
  });

  it("never takes a foreign code for one of ours; knows a kit's copy of the class by its name", () => {
    // Node's own errors carry string codes: not ours, whatever their shape.
    expect(RelayError.from(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toMatchObject({ code: 'INTERNAL', message: 'no such file' });
    expect(RelayError.from({ code: 'ENOENT', message: 'no such file' }, 'CONFIG_ERROR')).toMatchObject({ code: 'CONFIG_ERROR' });
    // Thrown by another copy of RelayError (a kit's, bundled apart: not an instance of this one), or a kit's bare payload.
    const copy = Object.assign(new Error('composer: none matched'), { name: 'RelayError', code: 'SELECTOR_MISS' });
    expect(RelayError.from(copy, 'EVALUATION_FAILED')).toMatchObject({ code: 'SELECTOR_MISS', message: 'composer: none matched' });
    expect(RelayError.from({ name: 'RelayError', code: 'INVALID_PARAMS', message: 'not a POST' }, 'EVALUATION_FAILED')).toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('tab categories', () => {
  it.each([
    ['https://www.perplexity.ai/', 'Main'],
    ['https://www.perplexity.ai/search/abc', 'Main'],
    ['https://www.perplexity.ai/sidecar?x=1', 'Sidecar'],
    ['https://www.perplexity.ai/sidecar', 'Sidecar'],
    ['https://www.perplexity.ai/sidecar/search/why-x-1', 'Sidecar'],
    // A conversation *about* sidecars is still the main page; only the path's first segment decides.
    ['https://www.perplexity.ai/search/how-do-motorcycle-sidecars-work-Ab1', 'Main'],
    ['https://www.perplexity.ai/search/x?q=sidecar', 'Main'],
    ['https://www.perplexity.ai/#sidecar', 'Main'],
    ['https://www.perplexity.ai/sidecars-explained', 'Main'],
    ['https://sidecar.perplexity.ai/', 'Main'],
    ['https://www.perplexity.ai/computer/tasks/sidecar-1', 'Main'],
    // Comet's new-tab page is a Perplexity page nobody asks in: never the driven tab.
    ['https://www.perplexity.ai/b/home', 'New Tab'],
    ['https://www.perplexity.ai/b/home?from=newtab', 'New Tab'],
    ['https://www.perplexity.ai/b/homework', 'Main'],
    ['https://www.perplexity.ai/search/b-home-Ab1', 'Main'],
    ['https://en.wikipedia.org/wiki/X', 'Agent Browsing'],
    ['http://example.com/', 'Agent Browsing'],
    ['https://perplexity.ai.evil.com/', 'Agent Browsing'],
    ['chrome-extension://abc/sidepanel.html', 'Overlay'],
    ['chrome://newtab/', 'Other'],
    ['about:blank', 'Other'],
    ['', 'Other'],
  ])('%s → %s', (url, category) => {
    expect(categorizeTab(url)).toBe(category);
  });
});

describe('path rules compare whole segments', () => {
  it.each([
    ['/search/x-1', true, false],
    ['/computer/tasks/abc', true, true],
    ['/copilot/slug', true, true],
    ['/search/', false, false],
    ['/computer/tasks/', false, false],
    ['/hub/search/tips', false, false],
    ['/searches/x', false, false],
    ['/computer/artifacts', false, false],
    ['/', false, false],
  ])('%s: conversation %s, computer %s', (path, conversation, computer) => {
    expect(isConversationPath(path)).toBe(conversation);
    expect(isComputerPath(path)).toBe(computer);
  });
});

describe('checkPerplexityUrl', () => {
  it('accepts perplexity.ai and its subdomains over https', () => {
    expect(checkPerplexityUrl('https://www.perplexity.ai/search/x')).toEqual({ ok: true, url: 'https://www.perplexity.ai/search/x' });
    expect(checkPerplexityUrl('https://perplexity.ai/')).toMatchObject({ ok: true });
    expect(checkPerplexityUrl('https://docs.perplexity.ai/a')).toMatchObject({ ok: true });
    expect(checkPerplexityUrl('HTTPS://WWW.PERPLEXITY.AI/Search/X')).toMatchObject({ ok: true });
  });
});

describe("page.poll's result", () => {
  // The page and the thread JSON say a stopped turn is `completed` with `stopped: true` (a poll's way,
  // lib/page/answer/reader.ts, lib/worker/threads/json-answer.ts): the result the relay client parses
  // must keep it, or comet_poll reports a stopped answer as a whole one (#20 of the 2026-12-02 review).
  it('keeps `stopped` through the boundary', () => {
    const polled = {
      status: 'completed',
      steps: [],
      currentStep: '',
      response: 'cut off here',
      hasStopButton: false,
      hasLoadingSpinner: false,
      proseCount: 1,
      turnCount: 2,
      lastTurnIndex: 1,
      questionText: 'q',
      url: 'https://www.perplexity.ai/search/x',
      truncated: false,
      totalLength: 12,
      stopped: true,
    };
    expect(methods['page.poll'].result.parse(polled)).toMatchObject({ status: 'completed', stopped: true });
  });
});
