// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { readTurnNow } from '../../lib/page/answer/reader';
import { turnsOf } from '../../lib/page/dom/turns';
import { deriveRepair, type JsonTurn } from '../../lib/page/kits/repair-derive';
import { live2026 } from '../../lib/selectors';
import { loadHtml } from '../fixtures/reader/load';

/**
 * Review 2026-12-04 #9: a redesigned page (hooks no built-in set knows) whose thread list comes before the thread
 * and shows the current thread's title, which is its first question. The repair must take the question bubble
 * beside the answer, never the list's link, whether the list sits in a plain <div> or in a <nav>.
 */
const URL = 'https://www.perplexity.ai/search/what-are-the-side-effects-of-drug-x-AbCd';
const Q0 = 'What are the side effects of drug X';
const A0 =
  'The common ones are nausea, a headache and some tiredness in the first week. Most people find that these pass on their own as the body gets used to the drug; a doctor should hear of anything that lasts longer, or of a rash, swelling or trouble breathing, at once.';
const Q1 = 'How long do they last?';
const A1 =
  'Usually a few days. Nausea tends to go first, within three or four days; tiredness can take a week or two. If any of them lasts longer than that, or gets worse rather than better, it is worth asking the doctor who prescribed it.';
const JSON_TURNS: JsonTurn[] = [{ index: 0, question: Q0, answer: A0, sources: [] }];

const turnHtml = (q: string, a: string) =>
  `<div class="ask-row"><div class="ask-text">${q}</div></div><div class="reply-block"><div class="richtext"><p>${a}</p></div></div>`;
const page = (list: 'div' | 'nav') =>
  `<${list} class="thread-list"><a href="/search/older-thread-EfGh" class="thread-link">An older thread</a><a href="/search/what-are-the-side-effects-of-drug-x-AbCd" class="thread-link current">${Q0}</a></${list}>
   <main><div class="conversation">${turnHtml(Q0, A0)}</div></main>`;

describe('#9 (review 2026-12-04): the repair never takes the thread list for the question', () => {
  for (const list of ['div', 'nav'] as const) {
    it(`thread list in a <${list}>: the question bubble is the turn, and a follow-up's question reads`, () => {
      loadHtml(page(list), URL);
      expect(turnsOf(document, live2026)).toHaveLength(0);
      const outcome = deriveRepair(document, live2026, JSON_TURNS, 'gen-b-2026-12-derived');
      if (!outcome.ok) throw new Error(`${outcome.probe}: ${outcome.reason}`);
      for (const probe of ['turn', 'userBubble', 'queryText'] as const) expect(outcome.derived.replaced[probe], probe).not.toMatch(/thread-link|current/);
      // The person asks a follow-up; the page draws it the same way.
      document.querySelector('.conversation')?.insertAdjacentHTML('beforeend', turnHtml(Q1, A1));
      const set = outcome.derived.set;
      const read = turnsOf(document, set).map((t) => readTurnNow(t, t.index, set));
      expect(read.map((r) => [r.question, r.response])).toEqual([
        [Q0, A0],
        [Q1, A1],
      ]);
    });
  }
});
