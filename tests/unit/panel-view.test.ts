import { describe, expect, it } from 'vitest';
import { showFirstRun } from '../../lib/panel/first-run';
import { activityOutcome, activityPhase, approvalFacts, approvalSentence, characterCount, connectionHeadline, formatDuration, MODE_OPTIONS, modeDisabledReason, modeName, shortUrl, visibleText } from '../../lib/panel/view';
import { pageAccessWords } from '../../lib/protocol/page-access';
import { PAGE_MODES } from '../../lib/protocol/page/page-methods';
import type { ActivityEntry, PendingApproval } from '../../lib/protocol/panel';

const entry = (patch: Partial<ActivityEntry> = {}): ActivityEntry => ({
  id: 'r1',
  clientName: 'codex',
  tool: 'comet_ask',
  method: 'page.ask',
  startedAt: 1000,
  ...patch,
});
const approval: PendingApproval = { id: 'r1', clientName: 'codex', method: 'page.ask', what: 'send the prompt “hi”', requestedAt: 0, expiresAt: 1 };

describe('panel view helpers', () => {
  it('offer all seven modes in the page order, with names', () => {
    expect(MODE_OPTIONS.map((m) => m.value)).toEqual([...PAGE_MODES]);
    expect(modeName('model-council')).toBe('Model council');
    expect(modeName(null)).toBe('Unknown');
  });

  it('disable the mode control with a reason only when no Perplexity tab is open', () => {
    expect(modeDisabledReason({ perplexityTab: null })).toMatch(/No Perplexity tab is open/);
    expect(modeDisabledReason({ perplexityTab: { tabId: '1', url: 'https://www.perplexity.ai/', title: 'P', selectorSet: null } })).toBeUndefined();
  });

  it('format durations for people', () => {
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });

  it('tell running, held, finished and failed calls apart', () => {
    expect(activityPhase(entry(), [])).toBe('running');
    expect(activityPhase(entry(), [approval])).toBe('approval');
    expect(activityPhase(entry({ endedAt: 1200, ok: true }), [approval])).toBe('ok');
    expect(activityPhase(entry({ endedAt: 1200, ok: false }), [])).toBe('error');
    expect(activityOutcome(entry({ endedAt: 1200, ok: true, result: 'prompt submitted' }), 'ok')).toBe('200 ms · prompt submitted');
    expect(activityOutcome(entry({ endedAt: 3500, ok: false, error: '[TIMEOUT] nobody approved' }), 'error')).toBe('2.5 s · [TIMEOUT] nobody approved');
    expect(activityOutcome(entry(), 'approval')).toBe('waiting for your approval');
  });

  it('count an approval text as a person does, and say where a call acts and whether it opens a chat', () => {
    expect(characterCount('a😀b')).toBe('3 characters');
    expect(characterCount('x'.repeat(100_000))).toBe('100,000 characters');
    expect(approvalFacts(approval)).toEqual([]);
    expect(approvalFacts({ ...approval, method: 'threads.send', target: 'Computer thread t1', newChat: false })).toEqual([
      'Acts on: Computer thread t1',
      'Opens a new chat: no — it goes into the conversation shown',
    ]);
  });

  it('show every character that draws nothing, default-ignorable ones too, in the text, the sentence and the target (review 13b, R13b-7)', () => {
    // A second text smuggled in variation selectors (a byte each), a combining grapheme joiner, a Hangul filler.
    const smuggled = `Summarise my week${String.fromCodePoint(0xe0100, 0xe0101)}\u034F\u3164`;
    expect(visibleText(smuggled)).toBe('Summarise my week⟨U+E0100⟩⟨U+E0101⟩⟨U+034F⟩⟨U+3164⟩');
    const held = { ...approval, what: `send the prompt “${smuggled}”`, target: 'tab 7: “Tides\u180B”', text: { label: 'Prompt', body: smuggled } };
    expect(approvalFacts(held)[0]).toBe('Holds 4 invisible characters, shown as ⟨U+…⟩ above: they are sent too');
    expect(approvalFacts(held)[1]).toBe('Acts on: tab 7: “Tides⟨U+180B⟩”');
    expect(approvalSentence(held)).toContain('my week⟨U+E0100⟩');
    // An emoji's own presentation selector draws it: seen, not marked; a second one is not.
    expect(visibleText('ok ❤\uFE0F 1\uFE0F\u20E3')).toBe('ok ❤\uFE0F 1\uFE0F\u20E3');
    expect(visibleText('❤\uFE0F\uFE0F')).toBe('❤\uFE0F⟨U+FE0F⟩');
  });

  it('say who wants what, and shorten URLs', () => {
    expect(approvalSentence(approval)).toBe('codex wants to send the prompt “hi”');
    expect(shortUrl('https://www.perplexity.ai/search/abc?x=1')).toBe('/search/abc?x=1');
    expect(shortUrl('not a url')).toBe('not a url');
  });
});

describe('the connection line', () => {
  const link = { state: 'connected' as const, since: 0, failures: 0 };
  it('is never "Connected" while the browser keeps comet-relay out of the Perplexity page', () => {
    expect(connectionHeadline({ link, pageAccess: null })).toEqual({ state: 'connected', look: 'connected', label: 'Connected to comet-relay' });
    const blocked = pageAccessWords({ state: 'blocked-by-policy', settled: true }, { browserName: 'Comet', tabId: 2 });
    expect(connectionHeadline({ link, pageAccess: blocked })).toEqual({ state: 'blocked-by-policy', look: 'disconnected', label: 'Blocked on perplexity.ai by a browser policy' });
    const off = pageAccessWords({ state: 'site-access-off', settled: true }, { browserName: 'Comet' });
    expect(connectionHeadline({ link, pageAccess: off }).label).toBe('Site access to perplexity.ai is off');
  });

  it('a page still loading, or a link that is down, keeps the link words', () => {
    const loading = pageAccessWords({ state: 'loading', settled: false }, { browserName: 'Comet' });
    expect(connectionHeadline({ link, pageAccess: loading }).label).toBe('Connected to comet-relay');
    const blocked = pageAccessWords({ state: 'blocked-by-policy', settled: true }, { browserName: 'Comet' });
    expect(connectionHeadline({ link: { ...link, state: 'disconnected' }, pageAccess: blocked })).toEqual({ state: 'disconnected', look: 'disconnected', label: 'Not connected' });
  });
});

describe('the first-run card', () => {
  it('shows once storage said it was never finished, and never when the grant is already given', () => {
    expect(showFirstRun(undefined, false)).toBe(false);
    expect(showFirstRun(false, false)).toBe(true);
    expect(showFirstRun(true, false)).toBe(false);
    expect(showFirstRun(false, true)).toBe(false);
  });
});

describe('the approval card shows what is sent (review 2026-12-05, panel #3)', () => {
  it('invisible characters are shown as marks and counted; a plain prompt is shown as it is, with no such fact', () => {
    const hidden = 'Summarise my notes\u200B\u202E and \u{E0069}\u{E0067}\u{E006E}';
    expect(visibleText(hidden)).toBe('Summarise my notes⟨U+200B⟩⟨U+202E⟩ and ⟨U+E0069⟩⟨U+E0067⟩⟨U+E006E⟩');
    const card = { id: 'a', clientName: 'agent', method: 'page.ask', what: 'send the prompt', requestedAt: 1, expiresAt: 2, text: { label: 'Prompt', body: hidden } };
    expect(approvalFacts(card)).toContain('Holds 5 invisible characters, shown as ⟨U+…⟩ above: they are sent too');
    expect(visibleText('Plain words, é and 漢字.')).toBe('Plain words, é and 漢字.');
    expect(approvalFacts({ ...card, text: { label: 'Prompt', body: 'Plain' } }).some((f) => f.startsWith('Holds'))).toBe(false);
  });
});
