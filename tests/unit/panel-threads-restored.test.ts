import { describe, expect, it } from 'vitest';
import type { Request } from '../../lib/protocol/messages';
import { ActivityLog, INTERRUPTED } from '../../lib/worker/panel/activity';
import { ThreadBook } from '../../lib/worker/panel/threads';

/**
 * The worker restarts while an agent's prompt waits for the person's approval or is being sent: the call died with it
 * (the host exits with the native port; held approvals live in memory), so the restored card says what the restored
 * activity feed says, "Interrupted", never "Waiting for your approval" or "Sending the prompt…" for good (review 15f,
 * F4). A card whose call had ended keeps its state.
 */
const origin = { clientId: 'k1.c1', clientName: 'claude-code', tool: 'comet_ask', summary: '', door: 'loopback' as const };
const ask = (id: string): Request => ({ kind: 'request', id, method: 'page.ask', params: { prompt: 'Summarise my week', newChat: true }, origin });

describe('threads restored after the worker restarted', () => {
  it('an ask held for approval when the worker died is not shown as waiting for the person', async () => {
    const before = new ThreadBook();
    before.onCall({ phase: 'start', request: ask('r1'), at: 1 });
    before.awaitingApproval('r1', true);
    expect(before.list()[0]).toMatchObject({ status: 'waiting', latestStep: 'Waiting for your approval' });

    // The same moment in the activity feed: restored, it says the call was interrupted.
    let saved: unknown;
    const log = new ActivityLog(() => {}, { load: async () => saved, save: async () => {} });
    log.record({ phase: 'start', request: ask('r1'), at: 1 });
    saved = log.entries();
    const restoredLog = new ActivityLog(() => {}, { load: async () => saved, save: async () => {} });
    await restoredLog.restore(5);
    expect(restoredLog.entries()[0]).toMatchObject({ ok: false, error: INTERRUPTED });

    const after = new ThreadBook();
    after.load(JSON.parse(JSON.stringify(before.saved())));
    const card = after.list()[0];
    // The same words as the feed's, and a status that claims nothing.
    expect(card).toMatchObject({ status: 'unknown', latestStep: INTERRUPTED });
  });

  it('an ask cut by the restart is not "Working · Sending the prompt…" for ever', () => {
    const before = new ThreadBook();
    before.onCall({ phase: 'start', request: ask('r2'), at: 1 });
    const after = new ThreadBook();
    after.load(JSON.parse(JSON.stringify(before.saved())));
    // The new host lifetime's session (k2.c1) waits and reads: nothing reaches the old card.
    const wait: Request = { kind: 'request', id: 'w1', method: 'page.wait', params: {}, origin: { ...origin, clientId: 'k2.c1', tool: 'comet_wait' } };
    after.onCall({ phase: 'end', request: wait, at: 9, ok: true, result: { status: 'completed', url: 'https://www.perplexity.ai/', steps: [] } });
    const card = after.list()[0];
    expect(card).toMatchObject({ status: 'unknown', latestStep: INTERRUPTED });
  });

  it('a card whose call ended keeps its state', () => {
    const before = new ThreadBook();
    before.onCall({ phase: 'start', request: ask('r3'), at: 1 });
    before.onCall({ phase: 'end', request: ask('r3'), at: 2, ok: true, result: { baselineUrl: 'https://www.perplexity.ai/' } });
    const after = new ThreadBook();
    after.load(JSON.parse(JSON.stringify(before.saved())));
    expect(after.list()[0]).toMatchObject({ status: 'working', latestStep: 'Prompt sent' });
  });
});
