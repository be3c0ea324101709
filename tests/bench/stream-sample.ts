import { createSimSite } from '../sim/site';
import type { AskResponse } from '../sim/types';

/**
 * (a) One `long` sim answer's ask stream as the sim sends it (tests/sim/json/ask-stream.ts), on a clock that moves 15 ms
 * per reading so that its frames are the same on every run: the sample the stream reader's cost is measured on.
 */
export async function simStreamSample(): Promise<string> {
  let t = 1_000_000;
  const site = createSimSite({ generation: 'B', speed: 1, scenario: 'long', clock: () => (t += 15) });
  const asked = await site.handle({ method: 'POST', url: '/_sim/api/ask', body: JSON.stringify({ query: 'A long answer for the bench', mode: 'standard', model: 'Best' }) });
  const r = JSON.parse(String(asked.body)) as AskResponse;
  const res = await site.handle({
    method: 'POST',
    url: '/rest/sse/perplexity_ask',
    body: JSON.stringify({ query_str: r.turn.query, params: { thread: r.thread.id, turn: r.turn.index } }),
  });
  let text = '';
  await res.stream?.(
    (piece) => {
      text += piece;
    },
    () => false,
  );
  return text;
}
