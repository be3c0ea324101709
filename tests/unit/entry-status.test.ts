import { describe, expect, it } from 'vitest';
import { entryStatus } from '../../lib/page/threads/entry-status';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { finishedTurns } from '../../lib/worker/calls/repairs';
import { JsonAnswers, type TabFetch } from '../../lib/worker/threads/json-answer';

/**
 * A thread JSON entry speaks for its turn only by what it says (review 2026-12-05, worker #4): a turn the page showed
 * no sign of is never "completed" because its entry lacks a running status, and a failed workflow is not "still
 * running". One rule (lib/page/threads/entry-status.ts) for comet_wait's and comet_poll's check, the repairs and the
 * thread reader.
 */
const miss = 'stopButton/answerFooter: none of `[data-workflow-text-footer]` matched on https://www.perplexity.ai/search/tides-abc for a turn with text';
const unsureWait = { status: 'timeout', response: 'The Moon pulls', truncated: false, totalLength: 14, url: 'https://www.perplexity.ai/search/tides-abc', questionText: 'Why are there two tides a day', unconfirmed: miss };
const unsurePoll = { ...unsureWait, status: 'working', lastTurnIndex: 0 };

/** An entry of the `ask_text` layout (no workflow block), with `status` as given. */
function legacyBody(status: string | undefined, answer = 'The Moon pulls') {
  return {
    entries: [
      {
        uuid: 'e1',
        query_str: 'why are there two tides a day',
        ...(status === undefined ? {} : { status }),
        blocks: [{ intended_usage: 'ask_text', markdown_block: { answer } }],
      },
    ],
  };
}
const workflowBody = (status: string, extra: Record<string, unknown> = {}) => ({
  entries: [{ uuid: 'e1', query_str: 'why are there two tides a day', status: 'COMPLETED', blocks: [{ intended_usage: 'workflow_root', workflow_block: { status, steps: [], ...extra } }] }],
});
const fetchOf = (body: unknown): TabFetch => async () => ({ status: 200, body: JSON.stringify(body) });

describe('what an entry says of its turn', () => {
  it('the rule, value by value', () => {
    const e = (body: { entries: unknown[] }) => entryStatus(body.entries[0], threadJson2026);
    expect(e(legacyBody('COMPLETED'))).toBe('complete');
    expect(e(legacyBody('PENDING'))).toBe('running');
    for (const status of [undefined, 'FAILED', 'STREAMING']) expect(e(legacyBody(status))).toBe('unknown');
    expect(e(workflowBody('WORKFLOW_COMPLETED'))).toBe('complete');
    expect(e(workflowBody('WORKFLOW_ERROR'))).toBe('error');
    expect(e(workflowBody('WORKFLOW_CANCELED'))).toBe('cancelled');
    expect(e(workflowBody('WORKFLOW_AWAITING_NEXT_STEPS'))).toBe('running');
  });

  for (const status of [undefined, 'FAILED', 'STREAMING']) {
    it(`an entry whose status is ${status ?? 'absent'} does not make a turn the page could not read "completed": the miss, naming what the JSON said`, async () => {
      const answers = new JsonAnswers(() => threadJson2026);
      await expect(answers.answer(unsureWait, 0, undefined, fetchOf(legacyBody(status)))).rejects.toMatchObject({
        code: 'SELECTOR_MISS',
        message: expect.stringContaining(`has status ${status ?? 'none'}, none the reader knows as finished or running`),
      });
      expect(finishedTurns(legacyBody(status).entries, threadJson2026)).toEqual([]);
    });
  }

  it('an entry that says COMPLETED answers, with its Markdown', async () => {
    const result = await new JsonAnswers(() => threadJson2026).answer(unsureWait, 0, undefined, fetchOf(legacyBody('COMPLETED', 'The Moon pulls the sea.')));
    expect(result).toMatchObject({ status: 'completed', response: 'The Moon pulls the sea.', answerSource: 'json' });
    expect(finishedTurns(legacyBody('COMPLETED').entries, threadJson2026)).toHaveLength(1);
  });

  it('a failed workflow ends a wait with its error, and a poll says it as the page does (idle, with the error)', async () => {
    const body = workflowBody('WORKFLOW_ERROR', { error_message: 'Something went wrong' });
    const wait = await new JsonAnswers(() => threadJson2026).answer(unsureWait, 0, undefined, fetchOf(body));
    expect(wait).toMatchObject({ status: 'error', error: 'Something went wrong' });
    expect(wait.stillRunning).toBeUndefined();
    const poll = await new JsonAnswers(() => threadJson2026).answer(unsurePoll, 0, undefined, fetchOf(body));
    expect(poll).toMatchObject({ status: 'idle', error: 'Something went wrong' });
  });
});
