import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownDocument } from '../../lib/protocol/library/file-name';
import { ExportedThread } from '../../lib/protocol/library/library';
import { threadMarkdown } from '../../lib/protocol/library/markdown';
import { firstString, pick } from '../../lib/selectors/language/json-path';
import { libraryJson2026 } from '../../lib/selectors/library/library-json';
import { threadJson2026 } from '../../lib/selectors/thread-json';
import { exportThread, type LibraryFetch } from '../../lib/worker/threads/library';

/**
 * What a turn of an exported thread holds besides its answer, and how its answer sits under it (review 15e, F1–F3,
 * F7–F11): the thread JSON captures of COMET_REAL_PERPLEXITY read at run time (never copied in; skipped without the
 * folder), and bodies of our own for what no capture shows.
 */
const readers = { library: libraryJson2026, thread: threadJson2026 };
const folder = process.env.COMET_REAL_PERPLEXITY ?? '';
const present = folder !== '' && existsSync(join(folder, 'README.md'));
const read = (name: string) => readFileSync(join(folder, name), 'utf8');
const whole = (body: string): LibraryFetch => async () => ({ status: 200, body });
const exported = (body: unknown) => exportThread('x-Ab12', whole(typeof body === 'string' ? body : JSON.stringify(body)), readers);
const markdown = async (body: unknown) => threadMarkdown(await exported(body));

const CANCELED = 'SIMULATED-computer-thread-json-canceled-pplx-tools.json';
const QUESTIONS = 'SIMULATED-computer-thread-json-user-questions-pplx-tools.json';
const RESEARCH = 'thread-json-perplexity-client-research-resume-2026-07-31.json';
const MULTITURN = 'thread-json-perplexity-client-multiturn-2026-08-01.json';

const entry = (query: string, blocks: unknown[], more: Record<string, unknown> = {}) => ({ uuid: `e-${query.length}`, query_str: query, status: 'COMPLETED', blocks, ...more });
const askText = (answer: string) => ({ intended_usage: 'ask_text', markdown_block: { answer } });

/** Lines outside fenced code (a fence is three backticks or tildes, at any indent). */
function outsideCode(md: string): string[] {
  let open = false;
  return md.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      open = !open;
      return false;
    }
    return !open;
  });
}

describe.skipIf(!present)('F1: a Computer task`s files (the captures)', () => {
  for (const name of [CANCELED, QUESTIONS]) {
    it(`${name}: every file the thread reader finds is listed, with its type, and its link where the JSON gives one`, async () => {
      const body = read(name);
      const assets = pick(JSON.parse(body), threadJson2026.thread.assets ?? []).values;
      expect(assets.length).toBeGreaterThan(1);
      const thread = await exported(body);
      const files = thread.turns.at(-1)?.files ?? [];
      expect(files.map((f) => f.id)).toEqual(assets.map((a) => firstString(a, threadJson2026.asset.id)));
      const md = markdownDocument(thread);
      for (const a of assets) {
        const filename = firstString(a, threadJson2026.asset.filename);
        const url = firstString(a, threadJson2026.asset.url);
        if (filename) expect(md, filename).toContain(filename);
        if (url) expect(md).toContain(url);
      }
      expect(md).toMatch(/\((pdf|doc|code) file/);
      // A Computer task's files are its result: not "(no answer)".
      expect(md).not.toContain('*(no answer)*');
    });
  }
});

describe('F1: files (our bodies)', () => {
  it('an entry`s own files stay with it; the thread`s shared files count with its latest turn, as read_thread counts them', async () => {
    const file = (uuid: string, filename: string, url?: string) => ({ uuid, asset_type: 'CODE_FILE', code_file: { filename }, ...(url ? { download_info: [{ url, filename, size: 2048 }] } : {}) });
    const own = { intended_usage: 'assets_answer_mode', assets_mode_block: { assets: [file('a1', 'first.py', 'https://files.example/first.py')] } };
    const thread = await exported({
      entries: [entry('make a script', [askText('Done.'), own], { search_mode: 'ASI' }), entry('and a test', [askText('Done too.')], { search_mode: 'ASI' })],
      thread_metadata: { workflow_snapshots: { SHARED_FILES: { shared_files: { items: [file('a1', 'first.py', 'https://files.example/first.py'), file('a2', 'test_first.py')] } } } },
    });
    expect(thread.turns[0]?.files).toEqual([{ id: 'a1', name: 'first.py', type: 'code_file', url: 'https://files.example/first.py', size: 2048 }]);
    expect(thread.turns[1]?.files).toEqual([{ id: 'a2', name: 'test_first.py', type: 'code_file', url: null, size: null }]);
    const md = threadMarkdown(thread);
    expect(md).toContain('- [first.py](https://files.example/first.py) (code file, 2 KB)');
    expect(md).toContain('- test_first.py (code file, no download link in the thread)');
  });
});

describe.skipIf(!present)('F2: the canceled Computer task (the capture)', () => {
  it('says it was cancelled before its answer, in the event table`s words', async () => {
    const body = read(CANCELED);
    expect(firstString(JSON.parse(body), [`entries[0].${threadJson2026.entry.workflowStatus[0]}`])).toBe('WORKFLOW_CANCELED');
    const thread = await exported(body);
    expect(thread.turns[0]?.outcome).toBe('cancelled');
    const md = threadMarkdown(thread);
    const note = md.indexOf('*(Cancelled: the turn was stopped before it finished; what it had written follows.)*');
    expect(note).toBeGreaterThan(0);
    expect(note).toBeLessThan(md.indexOf(thread.turns[0]?.answer as string));
  });
});

describe('F2: a failed or stopped turn (our bodies)', () => {
  const workflow = (status: string, more: Record<string, unknown> = {}) => ({ intended_usage: 'workflow_root', workflow_block: { status, steps: [], ...more } });

  it('a failure says so, with the site`s reason, never "(no answer)"', async () => {
    const thread = await exported({ entries: [entry('why is the sky blue', [workflow('WORKFLOW_ERROR', { error_message: 'Something went *wrong*' })], { search_mode: 'SEARCH' })] });
    expect(thread.turns[0]).toMatchObject({ outcome: 'error', error: 'Something went *wrong*', answer: '' });
    const md = threadMarkdown(thread);
    expect(md).toContain('*(Failed: Something went \\*wrong\\*)*');
    expect(md).not.toContain('(no answer)');
  });

  it('a failure with no reason, and a stop before any answer, say so too', async () => {
    const md = await markdown({ entries: [entry('one', [workflow('WORKFLOW_FAILED')]), entry('two', [workflow('WORKFLOW_CANCELLED')])] });
    expect(md).toContain('*(Failed, and the site says no reason)*');
    expect(md).toContain('*(Cancelled: the turn was stopped before it finished.)*');
    expect(md).not.toContain('(no answer)');
  });

  it('a stopped turn`s partial answer is not a running one`s', async () => {
    const thread = await exported({ entries: [entry('go on', [askText('Half of it'), workflow('WORKFLOW_CANCELED')], { status: 'PENDING' })] });
    expect(thread.turns[0]).toMatchObject({ outcome: 'cancelled', answer: 'Half of it' });
    expect(thread.turns[0]?.running).toBeUndefined();
  });
});

describe.skipIf(!present)('F3: questions the turn asked (the captures)', () => {
  it('the Computer task: each question with the person`s answer, and the later group not answered', async () => {
    const body = read(QUESTIONS);
    const given = pick(JSON.parse(body), ['entries[0].blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_USER_RESPONSE].payload.user_response_payload.responses[]']).values;
    expect(given.length).toBeGreaterThan(0);
    const thread = await exported(body);
    const asked = thread.turns[0]?.asked ?? [];
    expect(asked).toHaveLength(2);
    expect(asked[0]?.answers).toEqual(given);
    expect(asked[1]?.answers).toEqual([]);
    const md = threadMarkdown(thread);
    for (const a of given as { question: string; answer: string }[]) expect(md).toContain(`- ${a.question} → ${a.answer}`);
    expect(md).toContain('*(Not answered.)*');
  });

  it('the Deep Research thread of 2026-07-31: the clarifying questions it asked, which timed out, are named as not answered', async () => {
    const body = read(RESEARCH);
    const title = firstString(JSON.parse(body), ['entries[0].blocks[intended_usage=workflow_root].workflow_block.steps[].items[type=WORKFLOW_ITEM_USER_QUESTIONS].payload.user_questions_payload.title']);
    const md = await markdown(body);
    expect(md).toContain(`**Asked:** ${title}`);
    expect(md).toContain('*(Not answered.)*');
  });
});

describe('F7: an answer`s headings and rules sit under its turn (our bodies)', () => {
  it('headings shift so the highest is ###, outside code only; setext headings too; a rule is no `---`', async () => {
    const answer = [
      '# Top',
      'Intro.',
      '',
      '## Part',
      '',
      'Under',
      'it',
      '---',
      '',
      '---',
      '',
      '```bash',
      '# a comment, not a heading',
      '---',
      '```',
      '- item',
      '---',
    ].join('\n');
    const thread = await exported({ entries: [entry('q', [askText(answer)])] });
    // The JSON keeps the answer as the site wrote it; only the Markdown nests it.
    expect(thread.turns[0]?.answer).toBe(answer);
    const md = threadMarkdown(thread);
    expect(md).toContain(
      ['### Top', 'Intro.', '', '#### Part', '', '#### Under it', '', '* * *', '', '```bash', '# a comment, not a heading', '---', '```', '- item', '* * *'].join('\n'),
    );
    const outside = outsideCode(md);
    expect(outside.filter((l) => /^#{1,2} /.test(l))).toEqual(['# q', '## 1. q']);
  });

  it('leaves an answer whose headings already sit below the turn as written', async () => {
    const md = await markdown({ entries: [entry('q', [askText('### Small\n\ntext')])] });
    expect(md).toContain('### Small\n\ntext');
  });
});

describe.skipIf(!present)('F7: the captures', () => {
  it('the Deep Research thread: the only level-1 and level-2 headings are the document`s and the turn`s', async () => {
    const md = await markdown(read(RESEARCH));
    expect(outsideCode(md).filter((l) => /^#{1,2} /.test(l))).toEqual([
      '# compare the economic policies of Australia and New Zealand since 2020',
      '## 1. compare the economic policies of Australia and New Zealand since 2020',
    ]);
  });
});

describe('F8: a partial answer cut inside a code block (our body)', () => {
  it('gets its fence closed before the note, so the next turn is no code', async () => {
    const md = await markdown({
      entries: [
        entry('write a loop', [askText('Here:\n\n```js\nfor (;;) {}\n```')]),
        { query_str: 'now in python', status: 'PENDING', blocks: [{ intended_usage: 'ask_text', markdown_block: { chunks: ['Sure:\n\n~~~~python\nwhile True:\n    pa'] } }] },
        { query_str: 'thanks', status: 'PENDING', blocks: [] },
      ],
    });
    expect(md).toContain('    pa\n~~~~\n\n*(Still being written');
    expect(outsideCode(md)).toContain('## 3. thanks');
  });
});

describe('F9: blocks the export holds nothing of (our body)', () => {
  it('names a kind it does not read, and says the known image blocks were left out', async () => {
    const thread = await exported({
      entries: [
        entry('plan a trip', [
          { intended_usage: 'plan', plan_block: {} },
          askText('Here is a short intro.'),
          { intended_usage: 'ask_text_0_markdown', markdown_block: { answer: 'Here is a short intro.' } },
          { intended_usage: 'itinerary_card', itinerary_block: { days: [] } },
          { intended_usage: 'itinerary_card', itinerary_block: { days: [] } },
          { intended_usage: 'ask_text_1_images', inline_entity_block: {} },
          { intended_usage: 'toString', x: {} },
        ]),
      ],
    });
    expect(thread.turns[0]?.unread).toEqual([
      { kind: 'itinerary_card', blocks: 2 },
      { kind: 'ask_text_1_images', blocks: 1, what: 'images shown with the answer' },
      { kind: 'toString', blocks: 1 },
    ]);
    const md = threadMarkdown(thread);
    expect(md).toContain('*(Not in this export: 3 blocks of kinds comet-relay does not read: itinerary_card, toString.)*');
    expect(md).toContain('*(Not in this export: images shown with the answer (1 block: ask_text_1_images).)*');
  });

  it('the known kinds are the reader`s data, dated with the captures they were read from', () => {
    expect(threadJson2026.blockKinds?.read).toContain('ask_text');
    expect(threadJson2026.blockKinds?.ignored).toContain('ask_text_{n}_markdown');
  });
});

describe.skipIf(!present)('F9: the captures', () => {
  it('the multi-turn search: every block kind is known, and its image blocks are said to be left out', async () => {
    const thread = await exported(read(MULTITURN));
    expect(thread.turns.flatMap((t) => t.unread ?? []).every((u) => u.what === 'images shown with the answer')).toBe(true);
    expect(thread.turns.map((t) => t.unread?.length ?? 0).every((n) => n > 0)).toBe(true);
    for (const name of [RESEARCH, CANCELED, QUESTIONS]) expect((await exported(read(name))).turns.flatMap((t) => t.unread ?? [])).toEqual([]);
  });
});

describe('F10: a question as typed (our body)', () => {
  it('its heading and quote keep asterisks, angle brackets and a leading list marker literal', async () => {
    const question = 'is 2*3*4 the same as <b>24</b>?\n1. or _this_ # [x](y)';
    const md = await markdown({ entries: [entry(question, [askText('Yes.')])] });
    expect(md).toContain('## 1. is 2\\*3\\*4 the same as \\<b\\>24\\</b\\>? 1. or \\_this\\_ \\# \\[x\\](y)');
    expect(md).toContain('> is 2\\*3\\*4 the same as \\<b\\>24\\</b\\>?\n> 1\\. or \\_this\\_ \\# \\[x\\](y)');
  });

  it('a snake_case word stays as it is', async () => {
    expect(await markdown({ entries: [entry('what does read_thread do', [askText('It reads.')])] })).toContain('## 1. what does read_thread do');
  });
});

describe('F11: a long question`s heading (our body)', () => {
  it('is cut before an emoji rather than through it', async () => {
    const question = `${'a'.repeat(118)}😀 and then some more words to make it long`;
    const md = await markdown({ entries: [entry(question, [askText('Yes.')])] });
    expect(md).toContain(`## 1. ${'a'.repeat(118)}…\n`);
  });
});

describe('the JSON keeps what the Markdown says', () => {
  it('ExportedThread parses a turn`s new fields as they are (the side panel parses before it renders)', async () => {
    const thread = await exported({
      entries: [
        entry('q', [
          askText('A'),
          { intended_usage: 'workflow_root', workflow_block: { status: 'WORKFLOW_ERROR', error_message: 'boom', steps: [] } },
          { intended_usage: 'new_kind', x: {} },
        ]),
      ],
      thread_metadata: { workflow_snapshots: { SHARED_FILES: { shared_files: { items: [{ uuid: 'f', asset_type: 'DOC_FILE', doc_file: { filename: 'a.md' } }] } } } },
    });
    expect(thread.turns[0]).toMatchObject({ outcome: 'error', error: 'boom', files: [{ name: 'a.md' }], unread: [{ kind: 'new_kind' }] });
    expect(ExportedThread.parse(JSON.parse(JSON.stringify(thread)))).toEqual(thread);
  });
});

describe('the Markdown read as CommonMark reads it (review 15g)', () => {
  const doc = (...turns: [string, string][]) =>
    threadMarkdown({ slug: 's', url: 'https://www.perplexity.ai/search/s', title: 'T', created: null, updated: null, mode: null, model: null, space: null, pages: 1, turns: turns.map(([question, answer]) => ({ question, answer, sources: [] })) } as ExportedThread);

  it('a line that starts with ``` but opens no fence (a code span, code indented four spaces) is no fence: nothing is closed after it (G1)', () => {
    for (const answer of ['```x = 1``` sets x.\n\n## Why\n\nBecause.', 'A fence looks like this:\n\n    ```\n    code\n\n## Why']) {
      const md = doc(['q1', answer], ['q2', 'Second.']);
      expect(md).toContain('### Why');
      expect(md).not.toMatch(/^```[ \t]*$/m);
    }
    // A fence a list item holds, indented four spaces under it, is one.
    expect(doc(['q', '1. Run:\n\n    ```sh\n    ls'])).toMatch(/ls\n```/);
  });

  it('pasted code in a question is quoted as typed, without backslashes a code block would show (G2)', () => {
    const md = doc(['Why does this fail?\n\ndef f(self):\n    a = 1\n\n    return a*b[0] + __x__', 'ok']);
    expect(md.split('\n')).toContain('>     return a*b[0] + __x__');
    expect(md.split('\n')).toContain('> def f(self):');
  });

  it("a list item's continuation under --- stays in its item, and the --- is a rule (G3)", () => {
    const md = doc(['q', '1. First\n   detail\n---\n\nAfter.'], ['r', '- one\n- two\nlazy\n---\nafter']);
    expect(md).not.toMatch(/^#+ (detail|lazy)$/m);
    expect(md).toContain('   detail');
    expect(md).toContain('* * *');
    // A paragraph of its own still makes a heading of its underline.
    expect(doc(['q', 'Intro\n\nSection\n---\n\nBody.'])).toContain('### Section');
  });
});
