import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { fakeThreadCalls } from '../support/fake-tabs';

/**
 * An acting thread call refused by the person's policy when it gets its turn opens and closes no tab: it is asked before
 * its tab is found, and again when it goes (review 10, router F4 and round 3).
 */
const signal = new AbortController().signal;
const TASK = (id: string) => `https://www.perplexity.ai/computer/tasks/${id}`;

describe('a thread act refused by the policy touches no tab', () => {
  it('Read-only on at its turn: threads.send for t-1 opens no tab, and t-0\'s idle tab is not closed for it', async () => {
    const { calls, tabs, requests } = fakeThreadCalls(async (_tabId, method, params) => {
      if (method === 'threads.locate') return { found: true };
      if (method === 'threads.send') return { threadId: params.threadId, turn: 1 };
      throw new Error(`unexpected ${method}`);
    });
    // An earlier act on t-0 left a tab of ours (idle now).
    await calls.call('threads.send', { threadId: 't-0', message: 'hi', attachments: [], settings: {}, tabCap: 1 }, signal, () => {});
    expect(tabs.map((t) => t.url)).toEqual([TASK('t-0')]);
    const readOnly = async () => {
      throw new RelayError('PERMISSION_DENIED', 'comet-relay is read-only now.');
    };
    const refused = await calls
      .call('threads.send', { threadId: 't-1', message: 'more', attachments: [], settings: {}, tabCap: 1 }, signal, () => {}, undefined, false, readOnly)
      .catch((e: RelayError) => e);
    expect(refused).toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(requests.filter((r) => r.method === 'threads.send')).toHaveLength(1);
    // Correct: nothing opened, nothing closed. c35f84d: t-0's tab closed (cap 1), a tab for t-1 opened and left there.
    expect(tabs.map((t) => t.url)).toEqual([TASK('t-0')]);
  });
});
