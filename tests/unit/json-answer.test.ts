import { describe, expect, it } from 'vitest';
import { entryStateOf, finishedAnswer, JsonAnswers, KEPT_ANSWERS, linkCitations, type TabFetch } from '../../lib/worker/threads/json-answer';
import { threadJson2026 } from '../../lib/selectors/thread-json';

/** A thread body in the shape of the 2026-08-04 capture (our own words): the answer as a workflow text item. */
function body(answer: string, status = 'COMPLETED', workflow = 'WORKFLOW_COMPLETED') {
  return {
    thread_metadata: { title: 'Tides', mode: '2' },
    entries: [
      {
        uuid: 'e1',
        query_str: 'why are there two tides a day',
        status,
        blocks: [
          {
            intended_usage: 'workflow_root',
            workflow_block: {
              status: workflow,
              steps: [{ title: 'Searching the web', items: [] }, { title: '', items: [{ type: 'WORKFLOW_ITEM_TEXT', payload: { text_payload: { variant: 'answer', text: answer } } }] }],
            },
          },
          { intended_usage: 'web_results', web_result_block: { web_results: [{ name: 'Moon', url: 'https://example.org/moon' }, { name: 'Sea', url: 'https://example.org/sea' }] } },
        ],
      },
    ],
  };
}

/** The tab's `threads.fetch`, answering with `reply`; records each request as a URL. */
function tabFetch(reply: () => { status: number; body: string } | Error) {
  const asked: string[] = [];
  const fetch: TabFetch = async (path, query) => {
    asked.push(`https://www.perplexity.ai${path}?${new URLSearchParams(query)}`);
    const r = reply();
    if (r instanceof Error) throw r;
    return r;
  };
  return { fetch, asked };
}

const page = {
  status: 'completed',
  response: 'The Moon pulls the sea 1 2',
  truncated: false,
  totalLength: 26,
  url: 'https://www.perplexity.ai/search/tides-abc',
  questionText: 'Why are there two tides a day',
};

describe('comet_poll / comet_wait: the finished answer from the thread JSON', () => {
  it('takes the Markdown with its citations linked, once per finished turn, and says so', async () => {
    const { fetch, asked } = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The **Moon** pulls the sea.[1][2]')) }));
    const answers = new JsonAnswers(() => threadJson2026);
    const first = await answers.answer(page, 0, undefined, fetch);
    expect(first).toMatchObject({
      response: 'The **Moon** pulls the sea.[1](https://example.org/moon)[2](https://example.org/sea)',
      answerSource: 'json',
      truncated: false,
    });
    expect(first.totalLength).toBe(first.response.length);
    await answers.answer(page, 0, undefined, fetch);
    await answers.answer(page, 0, 10, fetch);
    expect(asked).toHaveLength(1);
    expect(new URL(asked[0] as string).pathname).toBe('/rest/thread/tides-abc');
    expect(new URL(asked[0] as string).searchParams.get('with_schematized_response')).toBe('true');
    expect(await answers.answer(page, 0, 10, fetch)).toMatchObject({ response: 'The **Moon', truncated: true, answerSource: 'json' });
  });

  it('the page answers while the turn runs, when the JSON fails, is not finished, or holds another question', async () => {
    const running = { ...page, status: 'working' };
    const none = tabFetch(() => ({ status: 200, body: '' }));
    expect(await new JsonAnswers(() => threadJson2026).answer(running, 0, undefined, none.fetch)).toMatchObject({ response: page.response, answerSource: 'page' });
    expect(none.asked).toHaveLength(0);
    for (const reply of [
      () => ({ status: 200, body: '' }),
      () => ({ status: 429, body: 'slow down' }),
      () => new Error('offline'),
      () => ({ status: 200, body: '{"entries": [' }),
      () => ({ status: 200, body: JSON.stringify(body('Half an ans', 'PENDING', 'WORKFLOW_EXECUTING_STEPS')) }),
    ]) {
      const { fetch } = tabFetch(reply);
      expect(await new JsonAnswers(() => threadJson2026).answer(page, 0, undefined, fetch)).toMatchObject({ response: page.response, answerSource: 'page' });
    }
    const { fetch } = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The Moon.')) }));
    const other = { ...page, questionText: 'What makes a rainbow' };
    expect(await new JsonAnswers(() => threadJson2026).answer(other, 0, undefined, fetch)).toMatchObject({ answerSource: 'page' });
    expect(await new JsonAnswers(() => threadJson2026).answer(page, 3, undefined, fetch)).toMatchObject({ answerSource: 'page' });
    const home = { ...page, url: 'https://www.perplexity.ai/' };
    expect(await new JsonAnswers(() => threadJson2026).answer(home, 0, undefined, fetch)).toMatchObject({ answerSource: 'page' });
  });

  it('asks only for a thread the one thread-id rule finds in the URL: never a path built from another host or a segment that is no id', async () => {
    const { fetch, asked } = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The Moon.')) }));
    for (const url of [
      'https://example.org/search/tides-abc',
      'http://www.perplexity.ai/search/tides-abc',
      'https://www.perplexity.ai/search/..',
      'https://www.perplexity.ai/search/a%2Fb',
      'https://www.perplexity.ai/search/tides-abc/extra',
    ]) {
      expect(await new JsonAnswers(() => threadJson2026).answer({ ...page, url }, 0, undefined, fetch)).toMatchObject({ answerSource: 'page' });
    }
    expect(asked).toEqual([]);
    await new JsonAnswers(() => threadJson2026).answer({ ...page, url: 'https://www.perplexity.ai/computer/tasks/Ab3_x~1' }, 0, undefined, fetch);
    expect(asked.map((u) => new URL(u as string).pathname)).toEqual(['/rest/thread/Ab3_x~1']);
  });

  it('a failed read is tried again only after the reader\'s back-off', async () => {
    let clock = 0;
    let calls = 0;
    const { fetch } = tabFetch(() => (++calls === 1 ? { status: 200, body: '' } : { status: 200, body: JSON.stringify(body('The Moon.')) }));
    const answers = new JsonAnswers(() => threadJson2026, () => clock);
    expect((await answers.answer(page, 0, undefined, fetch)).answerSource).toBe('page');
    expect((await answers.answer(page, 0, undefined, fetch)).answerSource).toBe('page');
    expect(calls).toBe(1);
    clock += threadJson2026.request.emptyBackoffMs;
    expect((await answers.answer(page, 0, undefined, fetch)).answerSource).toBe('json');
    expect(calls).toBe(2);
  });

  it('a JSON fetch that stalls does not hold the answer: the page answers within the budget, and the next read takes the JSON once it came', async () => {
    let arrive: (r: { status: number; body: string }) => void = () => {};
    let calls = 0;
    const fetch: TabFetch = () => {
      calls += 1;
      return new Promise((resolve) => {
        arrive = resolve;
      });
    };
    const answers = new JsonAnswers(() => threadJson2026, Date.now, 30);
    const started = Date.now();
    expect(await answers.answer(page, 0, undefined, fetch)).toMatchObject({ response: page.response, answerSource: 'page' });
    expect(Date.now() - started).toBeLessThan(1000);
    arrive({ status: 200, body: JSON.stringify(body('The Moon.')) });
    expect(await answers.answer(page, 0, undefined, fetch)).toMatchObject({ response: 'The Moon.', answerSource: 'json' });
    expect(calls).toBe(1);
  });

  it('a turn the page shows no sign of: the JSON entry decides, within its limits, and neither saying ends in the page\'s SELECTOR_MISS (#1)', async () => {
    const miss = 'stopButton/answerFooter: none of `[data-workflow-text-footer]` matched on https://www.perplexity.ai/search/tides-abc for a turn with text (selector set gen-b-2026-10-live)';
    const unsure = { ...page, status: 'working', lastTurnIndex: 0, unconfirmed: miss };
    const done = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The Moon.')) }));
    const finished = await new JsonAnswers(() => threadJson2026).answer(unsure, 0, undefined, done.fetch);
    expect(finished).toMatchObject({ status: 'completed', response: 'The Moon.', answerSource: 'json' });
    expect(finished).not.toHaveProperty('unconfirmed');

    let clock = 0;
    const running = tabFetch(() => ({ status: 200, body: JSON.stringify(body('Half', 'PENDING', 'WORKFLOW_EXECUTING_STEPS')) }));
    const answers = new JsonAnswers(() => threadJson2026, () => clock);
    expect(await answers.answer(unsure, 0, undefined, running.fetch)).toMatchObject({ status: 'working', stillRunning: true, response: page.response });
    // A wait (no lastTurnIndex) still running reads as its timeout; the router waits on while time is left.
    const { lastTurnIndex: _, ...waitShaped } = unsure;
    expect(await answers.answer(waitShaped, 0, undefined, running.fetch)).toMatchObject({ status: 'timeout', stillRunning: true });
    expect(running.asked).toHaveLength(1);
    clock += 5000;
    await answers.answer(unsure, 0, undefined, running.fetch);
    expect(running.asked).toHaveLength(2);

    for (const reply of [() => ({ status: 200, body: '' }), () => ({ status: 429, body: 'slow down' }), () => new Error('offline')]) {
      const { fetch } = tabFetch(reply);
      await expect(new JsonAnswers(() => threadJson2026).answer(unsure, 0, undefined, fetch)).rejects.toMatchObject({
        code: 'SELECTOR_MISS',
        message: expect.stringMatching(/^stopButton\/answerFooter: none of .* the thread JSON could not say either \(.+\) — add a selector set/),
      });
    }
    const other = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The Moon.')) }));
    await expect(new JsonAnswers(() => threadJson2026).answer({ ...unsure, questionText: 'What makes a rainbow' }, 0, undefined, other.fetch)).rejects.toMatchObject({
      code: 'SELECTOR_MISS',
      message: expect.stringContaining('is another question'),
    });
  });

  it('keeps the states of at most KEPT_ANSWERS turns the page could not confirm, the oldest let go first (review 8, long-run #2)', async () => {
    const miss = 'stopButton/answerFooter: none matched';
    const running = tabFetch(() => ({ status: 200, body: JSON.stringify(body('Half', 'PENDING', 'WORKFLOW_EXECUTING_STEPS')) }));
    const answers = new JsonAnswers(() => threadJson2026, () => 0);
    const turn = (n: number) => ({ ...page, status: 'working', lastTurnIndex: 0, unconfirmed: miss, url: `https://www.perplexity.ai/search/t-${n}` });
    for (let n = 0; n <= KEPT_ANSWERS; n++) await answers.answer(turn(n), 0, undefined, running.fetch);
    expect(running.asked).toHaveLength(KEPT_ANSWERS + 1);
    // The newest is still kept (no new request before its recheck); the oldest was let go and is asked again.
    await answers.answer(turn(KEPT_ANSWERS), 0, undefined, running.fetch);
    expect(running.asked).toHaveLength(KEPT_ANSWERS + 1);
    await answers.answer(turn(0), 0, undefined, running.fetch);
    expect(running.asked).toHaveLength(KEPT_ANSWERS + 2);
  });

  it('links [n] to the n-th source and leaves linked or unknown citations as they are', () => {
    expect(linkCitations('a[1] b[2](x) c[9]', ['u1', 'u2'])).toBe('a[1](u1) b[2](x) c[9]');
  });
});

describe('a read shared by sessions runs on the first asker’s call (worker review 2026-12-05, F1)', () => {
  it('that call ending (cancelled, the host link gone) is not the site’s answer: a session that joined asks again on its own call', async () => {
    const miss = 'stopButton/answerFooter: none matched';
    const unsure = { ...page, status: 'working', lastTurnIndex: 0, unconfirmed: miss };
    const answers = new JsonAnswers(() => threadJson2026);
    let asked = 0;
    let endFirst: (error: Error) => void = () => {};
    const first: TabFetch = () => {
      asked++;
      return new Promise((_resolve, reject) => {
        endFirst = reject;
      });
    };
    const second: TabFetch = async () => {
      asked++;
      return { status: 200, body: JSON.stringify(body('The Moon.')) };
    };
    let endSecond: (error: Error) => void = () => {};
    const secondCancelled: TabFetch = () => {
      asked++;
      return new Promise((_resolve, reject) => {
        endSecond = reject;
      });
    };
    // Session A asks for the turn's state; B joins A's read, C joins it too; A's call is cancelled, so B asks again on
    // its own call and C joins that; B's call is cancelled too: C asks again on its own (day-7g review H1).
    const a = answers.answer(unsure, 0, undefined, first).catch((error: unknown) => error);
    const b = answers.answer(unsure, 0, undefined, secondCancelled).catch((error: unknown) => error);
    const c = answers.answer(unsure, 0, undefined, second);
    endFirst(Object.assign(new Error('The call was cancelled.'), { code: 'CANCELLED' }));
    // A is told it cancelled, not that the page could not be read (day-7g H3).
    expect(await a).toMatchObject({ code: 'CANCELLED' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    endSecond(Object.assign(new Error('The call was cancelled.'), { code: 'CANCELLED' }));
    expect(await b).toMatchObject({ code: 'CANCELLED' });
    expect(await c).toMatchObject({ status: 'completed', response: 'The Moon.', answerSource: 'json' });
    // And a finished turn's Markdown: a later session is not answered from the ended call.
    const finished = new JsonAnswers(() => threadJson2026);
    const gone: TabFetch = async () => {
      throw Object.assign(new Error('The link to the host dropped.'), { code: 'HOST_DISCONNECTED' });
    };
    expect(await finished.answer(page, 0, undefined, gone)).toMatchObject({ answerSource: 'page' });
    expect(await finished.answer(page, 0, undefined, second)).toMatchObject({ response: 'The Moon.', answerSource: 'json' });
    expect(asked).toBe(4);
  });
});

describe('the JSON answer belongs to the entry that answered (review of 2026-12-02, #4 and #13)', () => {
  it('a turn the person regenerated shows another answer at the same index and question: it is read again', async () => {
    let answer = 'The **Moon** pulls the sea.';
    const { fetch, asked } = tabFetch(() => ({ status: 200, body: JSON.stringify(body(answer)) }));
    const answers = new JsonAnswers(() => threadJson2026);
    expect(await answers.answer(page, 0, undefined, fetch)).toMatchObject({ response: 'The **Moon** pulls the sea.', answerSource: 'json' });
    answer = 'Tides come from *two* bulges of water.';
    const regenerated = { ...page, response: 'Tides come from two bulges of water.' };
    expect(await answers.answer(regenerated, 0, undefined, fetch)).toMatchObject({ response: 'Tides come from *two* bulges of water.', answerSource: 'json' });
    expect(asked).toHaveLength(2);
  });

  it('a question that differs only after its first words is another question; a turn with no question readable gets no JSON answer', async () => {
    const { fetch } = tabFetch(() => ({ status: 200, body: JSON.stringify(body('The **Moon** pulls the sea.')) }));
    const answers = new JsonAnswers(() => threadJson2026);
    const templated = { ...page, questionText: 'why are there two tides a day in Brest' };
    expect(await answers.answer(templated, 0, undefined, fetch)).toMatchObject({ response: page.response, answerSource: 'page' });
    const unread = { ...page, questionText: '' };
    expect(await answers.answer(unread, 0, undefined, fetch)).toMatchObject({ response: page.response, answerSource: 'page' });
    // A question the page shows folded, its beginning and an ellipsis, is still that question.
    const folded = { ...page, questionText: 'Why are there two tides…' };
    expect(await answers.answer(folded, 0, undefined, fetch)).toMatchObject({ answerSource: 'json' });
  });
});

describe('a turn the JSON says was stopped', () => {
  it('is stopped, never still running, whatever the page showed in the moment after the stop', async () => {
    const { fetch } = tabFetch(() => ({ status: 200, body: JSON.stringify(body('', 'PENDING', 'WORKFLOW_CANCELED')) }));
    const answers = new JsonAnswers(() => threadJson2026);
    const unsure = { ...page, status: 'working', response: '', lastTurnIndex: 0, unconfirmed: 'stopButton/answerFooter: none of …' };
    const out = await answers.answer(unsure, 0, undefined, fetch);
    expect(out).toMatchObject({ status: 'completed', stopped: true, answerSource: 'page' });
    expect(out.stillRunning).toBeUndefined();
  });
});

describe('the thread JSON entry of a Markdown prompt the Sep 2026 page shows rendered (review 13d, 2)', () => {
  const entry = {
    query_str: 'Explain what `git rebase -i` does, with **one** example',
    status: 'COMPLETED',
    blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: 'It rewrites **history**.' } }],
  };
  const turn = { url: 'https://www.perplexity.ai/search/t-1', turnIndex: 0, questionText: 'Explain what git rebase -i does, with one example' };

  it('is this turn’s entry, and gives its finished answer', () => {
    expect(entryStateOf([entry], turn as never, threadJson2026)).toEqual({ state: 'completed', answer: 'It rewrites **history**.' });
    expect(finishedAnswer([entry], turn as never, threadJson2026)).toBe('It rewrites **history**.');
  });

  it('another question is still another', () => {
    expect(finishedAnswer([entry], { ...turn, questionText: 'Explain what git merge does' } as never, threadJson2026)).toBeUndefined();
  });
});

describe('a long thread, paged as every reader of the thread pages it (review 15e, F5, F6)', () => {
  const url = 'https://www.perplexity.ai/search/long-Ab12';
  const entry = (i: number, question = `question number ${i}`) => ({
    uuid: `e${i}`,
    query_str: question,
    status: 'COMPLETED',
    blocks: [{ intended_usage: 'ask_text', markdown_block: { answer: `Answer ${i}.` } }],
  });

  it('reads turn 105 of 105: the pages after the first ask for 100 entries, as the reader says', async () => {
    const N = 105;
    const asked: Record<string, string>[] = [];
    // The site: `limit` entries from the cursor on, a cursor while more remain.
    const fetch: TabFetch = async (_path, query) => {
      asked.push(query);
      const at = Number(query.cursor ?? 0);
      const end = Math.min(N, at + Number(query.limit));
      const entries = Array.from({ length: end - at }, (_, k) => entry(at + k));
      return { status: 200, body: JSON.stringify({ entries, has_next_page: end < N, next_cursor: end < N ? String(end) : null }) };
    };
    const got = await new JsonAnswers(() => threadJson2026).answerOf({ url, turnIndex: N - 1, questionText: `question number ${N - 1}` }, fetch);
    expect(asked.map((q) => [q.limit, q.cursor])).toEqual([
      ['10', undefined],
      ['100', '10'],
    ]);
    expect(got).toBe(`Answer ${N - 1}.`);
  });

  it('a cursor met before is not read again: another turn`s entry never stands at the turn`s index', async () => {
    // Every "continue" is the same question: only the index tells the turns apart.
    const fetch: TabFetch = async (_path, query) => {
      const entries = query.cursor ? [entry(10, 'continue'), entry(11, 'continue')] : Array.from({ length: 10 }, (_, k) => entry(k, 'continue'));
      return { status: 200, body: JSON.stringify({ entries, next_cursor: 'again' }) };
    };
    const answers = new JsonAnswers(() => threadJson2026);
    expect(await answers.answerOf({ url, turnIndex: 11, questionText: 'continue' }, fetch)).toBe('Answer 11.');
    expect(await answers.answerOf({ url, turnIndex: 12, questionText: 'continue' }, fetch)).toBeUndefined();
  });

  it('a page that says more follow but gives no new cursor: the turn past it is not there, and the state says why', async () => {
    const fetch: TabFetch = async () => ({ status: 200, body: JSON.stringify({ entries: [entry(0)], has_next_page: true, next_cursor: null }) });
    const state = await new JsonAnswers(() => threadJson2026).entryState({ url, turnIndex: 3, questionText: 'question number 3' }, fetch);
    expect(state).toEqual({ state: 'unknown', why: expect.stringMatching(/has more than its cursors reach \(reader thread-json-2026-12\)/) });
  });
});
