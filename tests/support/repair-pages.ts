/**
 * Real thread pages changed as the next redesign might change them (issue 24), and a thread JSON that
 * matches them, both made at test time from captures loaded from COMET_REAL_PERPLEXITY (never stored).
 *
 * The renaming touches every hook the built-in sets read a thread by: the `data-workflow-*` blocks,
 * the `prose` class, `data-renderer`, the question's and answer's group classes, and the citations'
 * attributes and class. Words, structure and everything else stay as captured.
 */

/** Every hook the built-in sets find a turn, an answer or a citation by, renamed. */
export function renameHooks(html: string): string {
  return html
    .replace(/data-workflow-/g, 'data-flow-')
    .replace(/data-renderer=/g, 'data-render-kind=')
    .replace(/data-pplx-citation-url=/g, 'data-cite-href=')
    .replace(/data-pplx-citation=/g, 'data-cite=')
    .replace(/class="([^"]*)"/g, (_whole, classes: string) => {
      const renamed = classes
        .replace(/group\/user-bubble/g, 'group/ask-bubble')
        .replace(/group\/query/g, 'group/ask')
        .replace(/group\/final-text/g, 'group/answer-text')
        .replace(/prose/g, 'richtext')
        .replace(/(^|\s)citation(-nbsp)?(?=\s|$)/g, '$1cite-chip$2');
      return `class="${renamed}"`;
    });
}

/** One turn of a thread, as its JSON holds it. */
export interface ThreadTurn {
  index: number;
  question: string;
  /** Markdown. */
  answer: string;
  sources: string[];
}

/**
 * A `GET /rest/thread/…` body in the shape of the real ones (thread-json-*-2026-08-01.json): entries in
 * thread order with `query_str`, `status`, the answer in an `ask_text` block's `markdown_block`, the
 * sources in a `web_results` block. Entries the page does not show (`index` skipped) get text of
 * their own that is nowhere on the page, as a long thread's unmounted turns would.
 */
export function threadJsonBody(turns: readonly ThreadTurn[], slug = 'a-captured-thread'): string {
  const count = Math.max(0, ...turns.map((t) => t.index + 1));
  const entries = Array.from({ length: count }, (_, i) => {
    const turn = turns.find((t) => t.index === i) ?? {
      index: i,
      question: `An earlier question of this thread, number ${i}, not on the page`,
      answer: `An earlier answer, number ${i}, which the page keeps unmounted.`,
      sources: [],
    };
    return {
      backend_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      uuid: `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      context_uuid: '20000000-0000-4000-8000-000000000000',
      thread_url_slug: slug,
      query_str: turn.question,
      status: 'COMPLETED',
      search_mode: 'SEARCH',
      blocks: [
        { intended_usage: 'ask_text', markdown_block: { progress: 'DONE', answer: turn.answer, chunks: [turn.answer] } },
        { intended_usage: 'web_results', web_result_block: { progress: 'DONE', web_results: turn.sources.map((url, n) => ({ name: `Source ${n + 1}`, url, snippet: '' })) } },
      ],
    };
  });
  return JSON.stringify({ status: 'success', entries, has_next_page: false, next_cursor: null, thread_metadata: { uuid: '20000000-0000-4000-8000-000000000000', slug, title: 'A captured thread' } });
}

/**
 * The turns of an unchanged capture as the thread JSON would hold them, found by plain structural
 * queries (not the selector sets): the question's own text, the answer's prose with each citation
 * written `[n]` after its URL's place in the sources and each formula as `$TeX$`, the cited URLs.
 * Self-contained, so a browser can run it too (`page.evaluate(threadTurnsByStructure)`); the index
 * is the page's own (`data-workflow-entry`, else the position).
 */
export function threadTurnsByStructure(doc: Document): ThreadTurn[] {
  const after = (a: Node, b: Node) => (a.compareDocumentPosition(b) & 4) !== 0;
  const questions = [...doc.querySelectorAll('[data-workflow-entry], [class~="group/user-bubble"]')].filter(
    (q) => !q.parentElement?.closest('[data-workflow-entry], [class~="group/user-bubble"]'),
  );
  const answers = [...doc.querySelectorAll('[data-workflow-final-text]')].filter((a) => (a.textContent ?? '').trim() !== '');
  const owners = answers.map((answer) => {
    const question = questions.filter((q) => after(q, answer)).at(-1);
    // A question already paired with an earlier answer is not this one's: its own is not mounted.
    return question && !answers.some((other) => other !== answer && after(question, other) && after(other, answer)) ? question : undefined;
  });
  const known = owners.map((q) => {
    const n = Number(q?.getAttribute('data-workflow-entry') ?? Number.NaN);
    return Number.isInteger(n) ? n : null;
  });
  // Unnumbered turns count back from the next numbered one (an unmounted question), else on from the previous.
  const indexes: number[] = [];
  for (const [i, n] of known.entries()) {
    const next = known.findIndex((k, j) => j > i && k !== null);
    indexes.push(n ?? (next >= 0 ? (known[next] as number) - (next - i) : (indexes.at(-1) ?? -1) + 1));
  }
  return answers.map((answer, i) => {
    const own = owners[i];
    const index = indexes[i] as number;
    const text = own?.querySelector('[data-renderer], [class*="whitespace-pre-line"]')?.textContent?.trim() ?? '';
    const prose = (answer.querySelector('.prose') ?? answer).cloneNode(true) as Element;
    const sources: string[] = [];
    for (const c of [...prose.querySelectorAll('[data-pplx-citation-url]')]) {
      const url = c.getAttribute('data-pplx-citation-url') as string;
      if (!sources.includes(url)) sources.push(url);
      c.replaceWith(` [${sources.indexOf(url) + 1}]`);
    }
    for (const m of [...prose.querySelectorAll('.katex')]) m.replaceWith(` $${m.querySelector('annotation')?.textContent ?? ''}$ `);
    for (const b of [...prose.querySelectorAll('p, li, h1, h2, h3, h4, pre, tr, br, hr')]) b.after('\n');
    for (const b of [...prose.querySelectorAll('button, svg, figcaption, [aria-hidden="true"]')]) b.remove();
    return { index, question: text, answer: (prose.textContent ?? '').replace(/[ \t]+/g, ' ').trim(), sources };
  });
}
