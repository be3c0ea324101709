import { describe, expect, it } from 'vitest';
import { RelayError } from '../../lib/protocol/errors';
import { accessNeed } from '../../lib/protocol/access';
import { ErrorPayload } from '../../lib/protocol/messages';
import { methods } from '../../lib/protocol/methods';
import { ExportedThread, LIBRARY_ERRORS, LibraryListParams, LibraryPage, LibraryThreadParams } from '../../lib/protocol/library/library';
import { frontMatter, threadMarkdown } from '../../lib/protocol/library/markdown';
import { threadSlugOf, threadUrlOf } from '../../lib/protocol/library/thread-ref';

/** The contract between the library's methods and what builds on them (tools, resources, `comet-relay export`). */

const thread: ExportedThread = {
  slug: 'why-is-the-sky-blue-AbC.12_x',
  url: 'https://www.perplexity.ai/search/why-is-the-sky-blue-AbC.12_x',
  title: 'Why is the sky blue?',
  created: '2026-08-01T13:08:23.763Z',
  updated: '2026-08-01T13:09:00.696Z',
  mode: 'search',
  model: 'pplx_pro',
  space: null,
  turns: [
    {
      question: 'Why is the sky blue?',
      answer: 'Rayleigh scattering [1] favours short wavelengths [2].\n\n## Details\n\n- more *blue*',
      sources: [
        { n: 1, title: 'Rayleigh scattering - Wikipedia', url: 'https://en.wikipedia.org/wiki/Rayleigh_scattering' },
        { n: 2, title: 'A [bracketed] title', url: 'https://example.org/a b(c)' },
      ],
    },
    { question: 'And at sunset?\nExplain it to a child.', answer: 'The light goes a longer way [1].', sources: [] },
  ],
  pages: 1,
};

describe('library methods', () => {
  it('are browser methods with the contract`s params, and read', () => {
    expect(methods['library.list'].params.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(LibraryListParams.safeParse({ limit: 101 }).success).toBe(false);
    expect(LibraryListParams.safeParse({ limit: 0 }).success).toBe(false);
    expect(LibraryListParams.safeParse({ since: '2026-13' }).success).toBe(false);
    expect(LibraryListParams.safeParse({ query: 'x', space: 'Work', limit: 100, offset: 40, since: '2026-01-31' }).success).toBe(true);
    expect(LibraryListParams.safeParse({ url: 'https://evil.example/' }).success).toBe(false);
    expect(LibraryThreadParams.safeParse({ thread: '' }).success).toBe(false);
    expect(LibraryPage.parse({ threads: [], total: null, offset: 0, nextOffset: null })).toBeTruthy();
    expect(ExportedThread.parse(thread)).toEqual(thread);
  });

  it('are open at the loopback door and need the person`s setting at the public door', () => {
    for (const method of ['library.list', 'library.thread', 'page.conversations']) {
      expect(accessNeed({ door: 'loopback', method })).toBe('open');
      expect(accessNeed({ door: 'public', method })).toBe('public-library');
    }
  });

  it('fail with the named codes, and a 429`s wait travels with its error', () => {
    for (const code of Object.values(LIBRARY_ERRORS)) expect(ErrorPayload.safeParse({ code, message: 'm' }).success).toBe(true);
    const limited = new RelayError('RATE_LIMITED', 'slow down', { retryAfterMs: 5000 });
    const payload = ErrorPayload.parse(limited.toPayload());
    expect(payload.data).toEqual({ retryAfterMs: 5000 });
    expect(RelayError.from(payload).data).toEqual({ retryAfterMs: 5000 });
    expect(new RelayError('JSON_SHAPE', 'm').toPayload()).toEqual({ code: 'JSON_SHAPE', message: 'm' });
    expect(ErrorPayload.safeParse({ code: 'RATE_LIMITED', message: 'm', data: { retryAfterMs: -1 } }).success).toBe(false);
  });
});

describe('threadSlugOf', () => {
  it('takes a slug or a perplexity.ai thread URL', () => {
    expect(threadSlugOf('why-is-the-sky-blue-AbC.12_x')).toBe('why-is-the-sky-blue-AbC.12_x');
    expect(threadSlugOf(' https://www.perplexity.ai/search/why-AbC?utm=1#x ')).toBe('why-AbC');
    expect(threadSlugOf('https://perplexity.ai/search/why-AbC/')).toBe('why-AbC');
    expect(threadSlugOf('https://www.perplexity.ai/computer/tasks/abcdefghijklmnopqrstuv')).toBe('abcdefghijklmnopqrstuv');
    expect(threadSlugOf(threadUrlOf('a-b'))).toBe('a-b');
  });

  it('refuses anything else', () => {
    for (const bad of [
      '',
      '../etc',
      'a/b',
      'a%2Fb',
      'http://www.perplexity.ai/search/x',
      'https://evil.example/search/x',
      'https://www.perplexity.ai.evil.example/search/x',
      'https://www.perplexity.ai/search/a%2F..%2Fb',
      'https://www.perplexity.ai/library',
      'https://www.perplexity.ai/search/x/y',
      'x'.repeat(201),
    ]) {
      expect(threadSlugOf(bad), bad).toBeNull();
    }
  });
});

describe('threadMarkdown', () => {
  it('has the header, every turn in order, the answer`s Markdown with its headings under the turn`s, and the sources by their numbers', () => {
    const md = threadMarkdown(thread);
    expect(md).toBe(
      [
        '# Why is the sky blue?',
        '',
        '- URL: https://www.perplexity.ai/search/why-is-the-sky-blue-AbC.12_x',
        '- Created: 2026-08-01T13:08:23.763Z',
        '- Updated: 2026-08-01T13:09:00.696Z',
        '- Mode: search',
        '- Model: pplx_pro',
        '',
        '---',
        '',
        '## 1. Why is the sky blue?',
        '',
        'Rayleigh scattering [1] favours short wavelengths [2].',
        '',
        '### Details',
        '',
        '- more *blue*',
        '',
        '**Sources**',
        '',
        '1. [Rayleigh scattering - Wikipedia](https://en.wikipedia.org/wiki/Rayleigh_scattering)',
        '2. [A \\[bracketed\\] title](<https://example.org/a%20b(c)>)',
        '',
        '---',
        '',
        '## 2. And at sunset? Explain it to a child.',
        '',
        '> And at sunset?',
        '> Explain it to a child.',
        '',
        'The light goes a longer way [1].',
        '',
      ].join('\n'),
    );
  });

  it('says when a turn has no answer, and names the Space', () => {
    const md = threadMarkdown({ ...thread, space: 'Work', turns: [{ question: 'q', answer: ' ', sources: [] }] });
    expect(md).toContain('- Space: Work');
    expect(md).toContain('## 1. q\n\n*(no answer)*');
  });
});

describe('frontMatter', () => {
  it('is YAML with the contract`s fields, space only when there is one', () => {
    expect(frontMatter(thread)).toBe(
      [
        '---',
        'title: "Why is the sky blue?"',
        'url: "https://www.perplexity.ai/search/why-is-the-sky-blue-AbC.12_x"',
        'created: "2026-08-01T13:08:23.763Z"',
        'updated: "2026-08-01T13:09:00.696Z"',
        'mode: "search"',
        'model: "pplx_pro"',
        'turns: 2',
        '---',
        '',
      ].join('\n'),
    );
    const odd = frontMatter({ ...thread, title: 'a "quoted": title\nwith # and ---', model: null, space: 'Work' });
    expect(odd).toContain('title: "a \\"quoted\\": title with # and ---"');
    expect(odd).toContain('model: null');
    expect(odd).toContain('space: "Work"');
  });
});
