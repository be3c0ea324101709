import { describe, expect, it } from 'vitest';
import { JsonAnswers, linkCitations } from '../../lib/page/json-answer';
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

function fakeWindow(reply: () => { status: number; body: string } | Error) {
  const asked: string[] = [];
  const win = {
    location: { origin: 'https://www.perplexity.ai' },
    setTimeout: (f: () => void, ms: number) => setTimeout(f, ms),
    clearTimeout: (t: ReturnType<typeof setTimeout>) => clearTimeout(t),
    fetch: async (url: string) => {
      asked.push(url);
      const r = reply();
      if (r instanceof Error) throw r;
      return { ok: r.status < 400, status: r.status, text: async () => r.body };
    },
  } as unknown as Window;
  return { win, asked };
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
    const { win, asked } = fakeWindow(() => ({ status: 200, body: JSON.stringify(body('The **Moon** pulls the sea.[1][2]')) }));
    const answers = new JsonAnswers(win, () => threadJson2026);
    const first = await answers.answer(page, 0);
    expect(first).toMatchObject({
      response: 'The **Moon** pulls the sea.[1](https://example.org/moon)[2](https://example.org/sea)',
      answerSource: 'json',
      truncated: false,
    });
    expect(first.totalLength).toBe(first.response.length);
    await answers.answer(page, 0);
    await answers.answer(page, 0, 10);
    expect(asked).toHaveLength(1);
    expect(new URL(asked[0] as string).pathname).toBe('/rest/thread/tides-abc');
    expect(new URL(asked[0] as string).searchParams.get('with_schematized_response')).toBe('true');
    expect(await answers.answer(page, 0, 10)).toMatchObject({ response: 'The **Moon', truncated: true, answerSource: 'json' });
  });

  it('the page answers while the turn runs, when the JSON fails, is not finished, or holds another question', async () => {
    const running = { ...page, status: 'working' };
    const none = fakeWindow(() => ({ status: 200, body: '' }));
    expect(await new JsonAnswers(none.win, () => threadJson2026).answer(running, 0)).toMatchObject({ response: page.response, answerSource: 'page' });
    expect(none.asked).toHaveLength(0);
    for (const reply of [
      () => ({ status: 200, body: '' }),
      () => ({ status: 429, body: 'slow down' }),
      () => new Error('offline'),
      () => ({ status: 200, body: '{"entries": [' }),
      () => ({ status: 200, body: JSON.stringify(body('Half an ans', 'PENDING', 'WORKFLOW_IN_PROGRESS')) }),
    ]) {
      const { win } = fakeWindow(reply);
      expect(await new JsonAnswers(win, () => threadJson2026).answer(page, 0)).toMatchObject({ response: page.response, answerSource: 'page' });
    }
    const { win } = fakeWindow(() => ({ status: 200, body: JSON.stringify(body('The Moon.')) }));
    const other = { ...page, questionText: 'What makes a rainbow' };
    expect(await new JsonAnswers(win, () => threadJson2026).answer(other, 0)).toMatchObject({ answerSource: 'page' });
    expect(await new JsonAnswers(win, () => threadJson2026).answer(page, 3)).toMatchObject({ answerSource: 'page' });
    const home = { ...page, url: 'https://www.perplexity.ai/' };
    expect(await new JsonAnswers(win, () => threadJson2026).answer(home, 0)).toMatchObject({ answerSource: 'page' });
  });

  it('links [n] to the n-th source and leaves linked or unknown citations as they are', () => {
    expect(linkCitations('a[1] b[2](x) c[9]', ['u1', 'u2'])).toBe('a[1](u1) b[2](x) c[9]');
  });
});
