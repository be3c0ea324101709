import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { WholeFiles } from '../../lib/cli/export/atomic-write';
import { type ExportIo, exportOptions, runExportCommand, summaryText } from '../../lib/cli/export/export-command';
import { renderThread } from '../../lib/cli/export/render';
import { Manifest, MANIFEST_NAME } from '../../lib/cli/export/manifest';
import { baseName, datePart, disambiguated, titlePart } from '../../lib/cli/export/names';
import { Pacer } from '../../lib/cli/export/pacer';
import { barProgress, lineProgress, type Progress, type ThreadOutcome } from '../../lib/cli/export/progress';
import { type ExportOptions, runExport } from '../../lib/cli/export/run-export';
import type { ExportSource, ListedThread, ListParams, WholeThread } from '../../lib/cli/export/source';
import { threadFileBase } from '../../lib/protocol/library/file-name';

/**
 * `comet-relay export` against a fake library: names, manifest and resume, the site's pace (429s),
 * failures named at the end, files whole or absent (links planted at the target, Ctrl-C mid-run).
 */

function relayError(code: string, message: string, data?: unknown) {
  return Object.assign(new Error(message), { code, data });
}

interface FakeThread extends ListedThread {
  turns: number;
  /** What exportThread does for it: answer, or fail with these errors in turn. */
  failures?: unknown[];
  /** exportThread never answers until cancelled; `hung` is called when it starts to. */
  hang?: boolean;
}

class FakeLibrary implements ExportSource {
  threads: FakeThread[];
  listCalls: ListParams[] = [];
  exportCalls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  hung = () => {};
  constructor(count: number) {
    this.threads = Array.from({ length: count }, (_, i) => thread(i));
  }
  async listThreads(params: ListParams): Promise<{ threads: ListedThread[]; total: number; offset: number; nextOffset: number | null }> {
    this.listCalls.push(params);
    const matching = this.threads.filter((t) => !params.query || t.title.includes(params.query));
    const page = matching.slice(params.offset, params.offset + params.limit).map(({ turns, failures, hang, ...listed }) => listed);
    const next = params.offset + page.length;
    return { threads: page, total: matching.length, offset: params.offset, nextOffset: next < matching.length ? next : null };
  }
  async exportThread(slug: string, signal: AbortSignal): Promise<WholeThread> {
    this.exportCalls.push(slug);
    const t = this.threads.find((x) => x.slug === slug);
    if (!t) throw relayError('THREAD_NOT_FOUND', `No thread ${slug} on perplexity.ai (404).`);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((r) => setTimeout(r, 1));
      if (t.hang) {
        this.hung();
        await new Promise((_, reject) => {
          if (signal.aborted) reject(relayError('CANCELLED', 'cancelled'));
          signal.addEventListener('abort', () => reject(relayError('CANCELLED', 'cancelled')), { once: true });
        });
      }
      const failure = t.failures?.shift();
      if (failure) throw failure;
      return {
        slug,
        url: t.url,
        title: t.title,
        created: t.created,
        updated: t.lastActivity,
        mode: t.mode,
        model: 'sonar',
        space: t.space,
        turns: Array.from({ length: t.turns }, (_, i) => ({ question: `q${i}`, answer: `a${i} of ${t.lastActivity}`, sources: [] })),
        pages: 1,
      };
    } finally {
      this.inFlight -= 1;
    }
  }
  bump(slug: string, when: string) {
    const i = this.threads.findIndex((t) => t.slug === slug);
    const [t] = this.threads.splice(i, 1) as [FakeThread];
    t.lastActivity = when;
    this.threads.unshift(t);
  }
}

function thread(i: number): FakeThread {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return {
    slug: `thread-${i}-Ab${i}x`,
    title: `Question number ${i}`,
    url: `https://www.perplexity.ai/search/thread-${i}-Ab${i}x`,
    lastActivity: `2026-11-${day}T10:00:00Z`,
    created: `2026-10-${day}T09:00:00Z`,
    mode: 'search',
    space: null,
    turns: 1 + (i % 3),
  };
}

const render = (t: WholeThread, format: 'md' | 'json') => (format === 'json' ? JSON.stringify(t) : `---\ntitle: ${t.title}\n---\n${t.turns.map((x) => x.answer).join('\n')}\n`);

class Recorder implements Progress {
  outcomes: ThreadOutcome[] = [];
  waits: number[] = [];
  totals: (number | null)[] = [];
  total(total: number | null) {
    this.totals.push(total);
  }
  thread(outcome: ThreadOutcome) {
    this.outcomes.push(outcome);
  }
  waiting(ms: number) {
    this.waits.push(ms);
  }
  end() {}
}

/** A pacer whose waits take no time but are recorded. */
function quickPacer(waits: number[]) {
  let clock = 0;
  return new Pacer({
    now: () => clock,
    random: () => 1,
    sleep: async (ms) => {
      waits.push(ms);
      clock += ms;
    },
  });
}

let out: string;
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-test-'));
});
afterEach(() => {
  fs.rmSync(out, { recursive: true, force: true });
});

function run(library: ExportSource, options: Partial<ExportOptions> = {}, extra: { signal?: AbortSignal; pacer?: Pacer } = {}) {
  const progress = new Recorder();
  const promise = runExport(
    { out, format: 'md', concurrency: 3, ...options },
    { source: library, render, progress, signal: extra.signal ?? new AbortController().signal, pacer: extra.pacer },
  );
  return { progress, promise };
}

const listing = () => fs.readdirSync(out).sort();

describe('file names', () => {
  it('are the creation date and the title, as words a file system holds', () => {
    expect(baseName({ title: 'Why is the sky blue?', created: '2026-02-21T10:00:00Z' })).toBe('2026-02-21-why-is-the-sky-blue');
    expect(baseName({ title: '../../etc/passwd', created: null, lastActivity: '2026-03-01T00:00:00' })).toBe('2026-03-01-etc-passwd');
    expect(baseName({ title: '', created: null })).toBe('undated-untitled');
    expect(titlePart('Qu’est-ce que « Comet » ? 東京の天気')).toBe('qu-est-ce-que-comet-東京の天気');
    expect(titlePart('CON: a\u0000b\nc / d \\ e')).toBe('con-a-b-c-d-e');
    expect(datePart('yesterday')).toBe('undated');
  });

  it('stay under 100 bytes of UTF-8 for the title, cut on a character', () => {
    const long = titlePart('日本語'.repeat(100));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(100);
    expect(long).toMatch(/^(日本語)+(日本?|日)?$/u);
  });

  it('tell two threads of one name apart by the slug, the same way every time, in lower case', () => {
    expect(disambiguated('2026-01-01-x', 'abc-XYZ')).toBe(disambiguated('2026-01-01-x', 'abc-XYZ'));
    expect(disambiguated('2026-01-01-x', 'abc-XYZ')).not.toBe(disambiguated('2026-01-01-x', 'abc-xyz'));
    expect(disambiguated('2026-01-01-x', 'abc-XYZ')).toMatch(/^2026-01-01-x--[0-9a-f]{8}$/);
  });
});

describe('an export run', () => {
  it('writes one file per thread, paging the list, and a manifest', async () => {
    const library = new FakeLibrary(250);
    const { progress, promise } = run(library);
    const summary = await promise;
    expect(summary).toMatchObject({ written: 250, unchanged: 0, failed: [], interrupted: false, total: 250 });
    expect(library.listCalls.map((c) => c.offset)).toEqual([0, 100, 200]);
    expect(progress.totals).toEqual([250]);
    const files = listing();
    expect(files).toContain(MANIFEST_NAME);
    expect(files.filter((f) => f.endsWith('.md'))).toHaveLength(250);
    expect(files).toContain('2026-10-01-question-number-0.md');
    expect(fs.readFileSync(path.join(out, '2026-10-01-question-number-0.md'), 'utf8')).toMatch(/^---\ntitle: Question number 0\n/);
    expect(library.maxInFlight).toBeLessThanOrEqual(3);
    expect(library.maxInFlight).toBeGreaterThan(1);
  });

  it('resumes: a second run fetches nothing; a bumped thread alone is fetched and rewritten', async () => {
    const library = new FakeLibrary(40);
    await run(library).promise;
    const before = new Map(listing().map((f) => [f, fs.statSync(path.join(out, f)).mtimeMs]));
    library.exportCalls = [];
    const again = await run(library).promise;
    expect(again).toMatchObject({ written: 0, unchanged: 40, failed: [] });
    expect(library.exportCalls).toEqual([]);

    library.bump('thread-7-Ab7x', '2026-12-03T08:00:00Z');
    const third = await run(library).promise;
    expect(third).toMatchObject({ written: 1, unchanged: 39 });
    expect(library.exportCalls).toEqual(['thread-7-Ab7x']);
    expect(listing()).toEqual([...before.keys()]);
    expect(fs.readFileSync(path.join(out, '2026-10-08-question-number-7.md'), 'utf8')).toContain('2026-12-03T08:00:00Z');
    for (const [file, mtime] of before) {
      if (file === MANIFEST_NAME || file === '2026-10-08-question-number-7.md') continue;
      expect(fs.statSync(path.join(out, file)).mtimeMs, file).toBe(mtime);
    }
  });

  it('fetches again a thread whose file was deleted', async () => {
    const library = new FakeLibrary(3);
    await run(library).promise;
    fs.rmSync(path.join(out, '2026-10-02-question-number-1.md'));
    expect(await run(library).promise).toMatchObject({ written: 1, unchanged: 2 });
    expect(listing().filter((f) => f.endsWith('.md'))).toHaveLength(3);
  });

  it('names two threads of the same date and title apart, the same on a rerun', async () => {
    const library = new FakeLibrary(2);
    Object.assign(library.threads[1] as FakeThread, { title: 'Question number 0', created: (library.threads[0] as FakeThread).created });
    await run(library, { concurrency: 2 }).promise;
    const first = listing();
    expect(first.filter((f) => f.startsWith('2026-10-01-question-number-0'))).toHaveLength(2);
    expect(first).toContain(`${disambiguated('2026-10-01-question-number-0', 'thread-1-Ab1x')}.md`);
    library.bump('thread-1-Ab1x', '2026-12-04T00:00:00Z');
    await run(library).promise;
    expect(listing()).toEqual(first);
  });

  it('keeps to the list’s filters: search and since stop where they should', async () => {
    const library = new FakeLibrary(30);
    const summary = await run(library, { search: 'number 1' }).promise;
    expect(summary.written).toBe(11); // 1, 10–19
    expect(library.listCalls[0]).toMatchObject({ query: 'number 1', offset: 0, limit: 100 });
    const since = new FakeLibrary(30);
    since.threads.sort((a, b) => String(b.lastActivity).localeCompare(String(a.lastActivity)));
    fs.rmSync(out, { recursive: true });
    expect((await run(since, { since: '2026-11-27' }).promise).written).toBe(2); // days 27 and 28
    expect(since.listCalls).toHaveLength(1);
  });

  it('streams the list: a page is asked for only once the threads before it are taken', async () => {
    const library = new FakeLibrary(300);
    const startedBefore: number[] = [];
    const list = library.listThreads.bind(library);
    library.listThreads = async (params) => {
      startedBefore.push(library.exportCalls.length);
      return list(params);
    };
    await run(library, { concurrency: 3 }).promise;
    expect(startedBefore).toHaveLength(3);
    expect(startedBefore[0]).toBe(0);
    expect(startedBefore[1]).toBeGreaterThanOrEqual(100 - 3);
    expect(startedBefore[2]).toBeGreaterThanOrEqual(200 - 3);
  });

  it('exports the threads named, whatever the list says', async () => {
    const library = new FakeLibrary(5);
    const summary = await run(library, { threads: ['thread-3-Ab3x', 'thread-1-Ab1x'] }).promise;
    expect(summary).toMatchObject({ written: 2, total: 2 });
    expect(library.listCalls).toEqual([]);
  });
});

describe('a file of the thread’s name that the export did not make (review-relay #3)', () => {
  // The side panel's *Export as Markdown* names its file the same way: a thread saved there and edited.
  const panelName = `${threadFileBase({ title: 'Question number 0', created: '2026-10-01T09:00:00Z' })}.md`;
  const mine = Buffer.from('MY OWN NOTES, edited by hand\r\n\u0000\u00ff not made by comet-relay\n', 'latin1');
  const hashed = (base: string, slug: string) => `${disambiguated(base, slug)}.md`;

  it('is left byte for byte as it was, and the thread is written beside it under its slug-hashed name, saying so', async () => {
    expect(panelName).toBe('2026-10-01-question-number-0.md');
    const theirs = path.join(out, panelName);
    fs.writeFileSync(theirs, mine);
    fs.utimesSync(theirs, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const before = fs.statSync(theirs);
    const { progress, promise } = run(new FakeLibrary(1));
    const summary = await promise;
    expect(fs.readFileSync(theirs).equals(mine)).toBe(true);
    expect(fs.statSync(theirs)).toMatchObject({ ino: before.ino, mtimeMs: before.mtimeMs, size: before.size });
    const file = hashed('2026-10-01-question-number-0', 'thread-0-Ab0x');
    expect(listing()).toEqual([MANIFEST_NAME, panelName, file].sort());
    expect(fs.readFileSync(path.join(out, file), 'utf8')).toMatch(/^---\ntitle: Question number 0\n/);
    expect(progress.outcomes).toEqual([{ kind: 'written', file, turns: 1, beside: panelName }]);
    expect(summary).toMatchObject({ written: 1, beside: 1, failed: [] });
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_NAME), 'utf8')).threads).toEqual([expect.objectContaining({ slug: 'thread-0-Ab0x', file })]);
    expect(summaryText(summary)).toContain('1 written beside a file of the same name that the export did not make, which was left as it is.');
  });

  it('a re-export updates its own files in place: the one at its plain name and the one beside the person’s file', async () => {
    const library = new FakeLibrary(2);
    const theirs = path.join(out, '2026-10-02-question-number-1.md');
    fs.writeFileSync(theirs, mine);
    await run(library).promise;
    const first = listing();
    expect(first).toEqual([MANIFEST_NAME, '2026-10-01-question-number-0.md', '2026-10-02-question-number-1.md', hashed('2026-10-02-question-number-1', 'thread-1-Ab1x')].sort());
    library.bump('thread-0-Ab0x', '2026-12-06T00:00:00Z');
    library.bump('thread-1-Ab1x', '2026-12-07T00:00:00Z');
    const { progress, promise } = run(library);
    expect(await promise).toMatchObject({ written: 2, unchanged: 0 });
    expect(progress.outcomes.every((o) => o.kind === 'written' && o.beside === undefined)).toBe(true);
    expect(listing()).toEqual(first);
    expect(fs.readFileSync(path.join(out, '2026-10-01-question-number-0.md'), 'utf8')).toContain('2026-12-06T00:00:00Z');
    expect(fs.readFileSync(path.join(out, hashed('2026-10-02-question-number-1', 'thread-1-Ab1x')), 'utf8')).toContain('2026-12-07T00:00:00Z');
    expect(fs.readFileSync(theirs).equals(mine)).toBe(true);
  });

  it('numbers the name when the slug-hashed one is taken too; two threads of one name at once each get their own', async () => {
    const library = new FakeLibrary(2);
    Object.assign(library.threads[1] as FakeThread, { title: 'Question number 0', created: (library.threads[0] as FakeThread).created });
    const base = '2026-10-01-question-number-0';
    fs.writeFileSync(path.join(out, `${base}.md`), mine);
    fs.writeFileSync(path.join(out, hashed(base, 'thread-0-Ab0x')), mine);
    expect(await run(library, { concurrency: 2 }).promise).toMatchObject({ written: 2, failed: [] });
    expect(listing()).toEqual([MANIFEST_NAME, `${base}.md`, hashed(base, 'thread-0-Ab0x'), `${disambiguated(base, 'thread-0-Ab0x')}-2.md`, hashed(base, 'thread-1-Ab1x')].sort());
    expect(fs.readFileSync(path.join(out, `${base}.md`)).equals(mine)).toBe(true);
    expect(fs.readFileSync(path.join(out, hashed(base, 'thread-0-Ab0x'))).equals(mine)).toBe(true);
  });

  it('fails that thread, naming the names, when every name it could take is someone else’s file', async () => {
    const base = '2026-10-01-question-number-0';
    const taken = [`${base}.md`, hashed(base, 'thread-0-Ab0x'), ...Array.from({ length: 19 }, (_, i) => `${disambiguated(base, 'thread-0-Ab0x')}-${i + 2}.md`)];
    for (const name of taken) fs.writeFileSync(path.join(out, name), mine);
    const summary = await run(new FakeLibrary(1)).promise;
    expect(summary.failed).toEqual([expect.objectContaining({ slug: 'thread-0-Ab0x', why: expect.stringMatching(/^\[CONFIG_ERROR\] .*-20\.md are taken/) })]);
    for (const name of taken) expect(fs.readFileSync(path.join(out, name)).equals(mine), name).toBe(true);
    expect(listing()).toEqual([...taken].sort()); // nothing written, so no manifest either
  });

  it('a write that may not replace fails with EEXIST when the name is taken, leaving the file and no temporary file', async () => {
    const files = new WholeFiles(out);
    fs.writeFileSync(path.join(out, 'notes.md'), mine);
    await expect(files.write('notes.md', 'EXPORTED', { replace: false })).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(path.join(out, 'notes.md')).equals(mine)).toBe(true);
    await files.write('new.md', 'EXPORTED', { replace: false });
    expect(listing()).toEqual(['new.md', 'notes.md']);
    expect(fs.readFileSync(path.join(out, 'new.md'), 'utf8')).toBe('EXPORTED');
  });

  it('off a terminal, the line of a thread written beside such a file names it', () => {
    const lines: string[] = [];
    lineProgress({ write: (t) => lines.push(t) }).thread({ kind: 'written', file: 'a--12345678.md', turns: 1, beside: 'a.md' });
    expect(lines).toEqual(["[1] wrote a--12345678.md (1 turn; a.md is not the export's and was left as it is)\n"]);
  });
});

describe('the site’s pace', () => {
  it('waits as long as a 429’s Retry-After says, then goes on', async () => {
    const library = new FakeLibrary(6);
    (library.threads[2] as FakeThread).failures = [relayError('RATE_LIMITED', 'Too many requests (429).', { retryAfterMs: 7000 })];
    const waits: number[] = [];
    const summary = await run(library, {}, { pacer: quickPacer(waits) }).promise;
    expect(summary).toMatchObject({ written: 6, failed: [] });
    expect(waits[0]).toBe(7000);
  });

  it('without Retry-After backs off more and more (with jitter), and gives up naming the 429', async () => {
    const pacer = new Pacer({ random: () => 0 });
    expect([1, 2, 3, 4, 7, 12].map((n) => pacer.backoff(n))).toEqual([500, 1000, 2000, 4000, 30000, 30000]);
    expect(new Pacer({ random: () => 1 }).backoff(3)).toBe(4000);

    const library = new FakeLibrary(2);
    const limited = () => relayError('RATE_LIMITED', 'Too many requests (429).');
    (library.threads[0] as FakeThread).failures = [limited(), limited(), limited()];
    (library.threads[1] as FakeThread).failures = Array.from({ length: 8 }, limited);
    const waits: number[] = [];
    const summary = await run(library, { concurrency: 1 }, { pacer: quickPacer(waits) }).promise;
    expect(waits.slice(0, 3)).toEqual([1000, 2000, 4000]);
    expect(summary.written).toBe(1);
    expect(summary.failed).toEqual([{ slug: 'thread-1-Ab1x', title: 'Question number 1', why: '[RATE_LIMITED] Too many requests (429).' }]);
  });

  it('stops the run, saying when to go on, when the site asks to wait longer than a run should', async () => {
    const library = new FakeLibrary(5);
    (library.threads[1] as FakeThread).failures = [relayError('RATE_LIMITED', '429', { retryAfterMs: 3_600_000 })];
    const waits: number[] = [];
    await expect(run(library, { concurrency: 1 }, { pacer: quickPacer(waits) }).promise).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('asks to wait 60 min before more requests (HTTP 429). Run the same command again after that'),
    });
    expect(waits).toEqual([]);
    expect(library.exportCalls).toEqual(['thread-0-Ab0x', 'thread-1-Ab1x']);
  });

  it('holds every call back while one waits for a 429', async () => {
    const waits: number[] = [];
    let clock = 0;
    const pacer = new Pacer({ now: () => clock, sleep: async (ms) => void waits.push(ms) });
    let first = true;
    const signal = new AbortController().signal;
    await pacer.run(async () => {
      if (first) {
        first = false;
        throw relayError('RATE_LIMITED', '429', { retryAfterMs: 5000 });
      }
    }, signal).catch(() => undefined);
    clock = 1000;
    await pacer.run(async () => 'other', signal);
    expect(waits).toEqual([5000, 4000]);
  });
});

describe('failures', () => {
  it('names each thread that failed and why, and writes every other one', async () => {
    const library = new FakeLibrary(10);
    (library.threads[3] as FakeThread).failures = [relayError('THREAD_NOT_FOUND', 'No thread thread-3-Ab3x on perplexity.ai (404).')];
    (library.threads[6] as FakeThread).failures = [relayError('JSON_SHAPE', 'The thread JSON has no entries.')];
    const { progress, promise } = run(library);
    const summary = await promise;
    expect(summary.written).toBe(8);
    expect(summary.failed).toEqual([
      { slug: 'thread-3-Ab3x', title: 'Question number 3', why: '[THREAD_NOT_FOUND] No thread thread-3-Ab3x on perplexity.ai (404).' },
      { slug: 'thread-6-Ab6x', title: 'Question number 6', why: '[JSON_SHAPE] The thread JSON has no entries.' },
    ]);
    expect(progress.outcomes.filter((o) => o.kind === 'failed')).toHaveLength(2);
    expect(listing().filter((f) => f.endsWith('.md'))).toHaveLength(8);
    // The failed ones are tried again next time; the others are not.
    library.exportCalls = [];
    expect(await run(library).promise).toMatchObject({ written: 2, unchanged: 8 });
    expect(library.exportCalls.sort()).toEqual(['thread-3-Ab3x', 'thread-6-Ab6x']);
  });

  it('stops at once on what would fail every thread (no browser, signed out), keeping what was written', async () => {
    const library = new FakeLibrary(10);
    (library.threads[4] as FakeThread).failures = [relayError('SIGNED_OUT', 'Perplexity answered 401: sign in.')];
    await expect(run(library, { concurrency: 1 }).promise).rejects.toMatchObject({ code: 'SIGNED_OUT' });
    expect(listing().filter((f) => f.endsWith('.md'))).toHaveLength(4);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_NAME), 'utf8')).threads).toHaveLength(4);

    const none: ExportSource = {
      listThreads: async () => {
        throw relayError('EXTENSION_NOT_CONNECTED', 'No browser with the comet-relay extension is connected.');
      },
      exportThread: async () => {
        throw new Error('not reached');
      },
    };
    await expect(run(none).promise).rejects.toMatchObject({ code: 'EXTENSION_NOT_CONNECTED' });
  });

  it('starts afresh, saying so, from a manifest it cannot read', async () => {
    fs.writeFileSync(path.join(out, MANIFEST_NAME), '{"version": 1, "threads": [{"slug": "x", "file": "../../evil"');
    const warnings: string[] = [];
    const summary = await runExport(
      { out, format: 'md', concurrency: 2 },
      { source: new FakeLibrary(2), render, progress: new Recorder(), signal: new AbortController().signal, warn: (t) => warnings.push(t) },
    );
    expect(summary.written).toBe(2);
    expect(warnings[0]).toMatch(/not JSON: every thread is fetched again/);
  });
});

describe('files appear whole or not at all', () => {
  it('replaces a link planted at a thread’s own file instead of writing through it; a link it did not make stays', async () => {
    const victim = path.join(out, '..', `victim-${path.basename(out)}.txt`);
    fs.writeFileSync(victim, 'precious');
    try {
      const library = new FakeLibrary(2);
      const own = path.join(out, '2026-10-01-question-number-0.md');
      const foreign = path.join(out, '2026-10-02-question-number-1.md');
      fs.symlinkSync(victim, foreign);
      fs.symlinkSync(victim, path.join(out, MANIFEST_NAME));
      await run(library).promise;
      expect(fs.lstatSync(own).isFile()).toBe(true);
      expect(fs.lstatSync(foreign).isSymbolicLink()).toBe(true); // not the export's: left, the thread written beside it
      expect(listing()).toContain(`${disambiguated('2026-10-02-question-number-1', 'thread-1-Ab1x')}.md`);
      expect(fs.lstatSync(path.join(out, MANIFEST_NAME)).isFile()).toBe(true);

      fs.rmSync(own);
      fs.symlinkSync(victim, own); // planted at the file the manifest says is thread 0's
      library.bump('thread-0-Ab0x', '2026-12-05T00:00:00Z');
      await run(library).promise;
      expect(fs.lstatSync(own).isFile()).toBe(true);
      expect(fs.readFileSync(own, 'utf8')).toContain('2026-12-05T00:00:00Z');
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
    } finally {
      fs.rmSync(victim, { force: true });
    }
  });

  it('never leaves a temporary file, and removes one an earlier killed run left', async () => {
    fs.writeFileSync(path.join(out, '.2026-x.md.123-abcd.comet-relay-tmp'), 'half');
    fs.writeFileSync(path.join(out, '.keep-me'), 'mine');
    await run(new FakeLibrary(5)).promise;
    expect(listing().filter((f) => f.startsWith('.'))).toEqual([MANIFEST_NAME, '.keep-me'].sort());
  });

  it('a write cut short by an exiting process leaves neither the file nor its temporary file', async () => {
    const files = new WholeFiles(out);
    const writing = files.write('big.md', 'x'.repeat(8_000_000));
    files.removeTemporaries(); // what the second Ctrl-C does before exiting
    await writing.catch(() => undefined);
    expect(listing()).toEqual([]);
  });

  it('refuses a name that is not a plain file name', async () => {
    const files = new WholeFiles(out);
    await expect(files.write('../x.md', 'x')).rejects.toThrow(/not a plain file name/);
    await expect(files.write('..', 'x')).rejects.toThrow(/not a plain file name/);
  });

  it('Ctrl-C mid-run: nothing new is started, the calls under way are cancelled, no partial file, the manifest holds what was written', async () => {
    const library = new FakeLibrary(20);
    (library.threads[5] as FakeThread).hang = true;
    const ctrlC = new AbortController();
    const progress = new Recorder();
    library.hung = () => ctrlC.abort();
    const summary = await runExport({ out, format: 'md', concurrency: 1 }, { source: library, render, progress, signal: ctrlC.signal });
    expect(summary).toMatchObject({ interrupted: true, written: 5, failed: [] });
    expect(library.exportCalls).toHaveLength(6); // the sixth hung and was cancelled; none started after
    const files = listing();
    expect(files.filter((f) => f.endsWith('.md'))).toHaveLength(5);
    expect(files.filter((f) => f.endsWith('tmp'))).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_NAME), 'utf8')).threads).toHaveLength(5);
  });
});

describe('progress', () => {
  it('off a terminal: one line per thread written or failed, with the count', () => {
    const lines: string[] = [];
    const p = lineProgress({ write: (t) => lines.push(t) });
    p.total(3);
    p.thread({ kind: 'written', file: 'a.md', turns: 2 });
    p.thread({ kind: 'unchanged', file: 'b.md' });
    p.thread({ kind: 'failed', slug: 's', title: 'T', why: '[NOT_FOUND] gone' });
    p.waiting(2000, true);
    expect(lines).toEqual(['[1/3] wrote a.md (2 turns)\n', '[3/3] FAILED s (T): [NOT_FOUND] gone\n', 'Perplexity asked to slow down (429): waiting 2 s as it said, then going on.\n']);
  });

  it('never lets a title or an error drive the terminal', () => {
    const lines: string[] = [];
    lineProgress({ write: (t) => lines.push(t) }).thread({ kind: 'failed', slug: 's\x1b]0;x\x07', title: 'Evil \x1b[2J\x1b[31mred', why: '[JSON_SHAPE] no\rentries' });
    expect(lines[0]).not.toMatch(/[\x00-\x1f](?!$)/);
    expect(lines[0]).toBe('[1] FAILED s�]0;x� (Evil �[2J�[31mred): [JSON_SHAPE] no�entries\n');
    expect(summaryText({ out: '/x', written: 0, unchanged: 0, failed: [{ slug: 's', title: '\x1b[2J', why: 'w' }], interrupted: false, total: 1, ms: 0 })).not.toContain('\x1b');
  });

  it('on a terminal: one bar with done/total, rate and time left, redrawn in place', () => {
    let clock = 0;
    const text: string[] = [];
    const p = barProgress({ write: (t) => text.push(t), now: () => clock, columns: 200 });
    p.total(10);
    clock = 2000;
    p.thread({ kind: 'written', file: 'a.md', turns: 1 });
    clock = 4000;
    p.thread({ kind: 'written', file: 'b.md', turns: 1 });
    p.end();
    const last = text.at(-2) as string;
    expect(last.startsWith('\r\x1b[2K')).toBe(true);
    expect(last).toContain('2/10 · 0.5 threads/s · 16 s left');
    expect(text.at(-1)).toBe('\n');
  });
});

describe('the command', () => {
  function io(tty = false) {
    const seen = { out: '', err: '', exits: [] as number[], interrupt: (() => {}) as () => void };
    const value: ExportIo = {
      out: (t) => {
        seen.out += t;
      },
      err: (t) => {
        seen.err += t;
      },
      tty,
      columns: 120,
      onInterrupt(handler) {
        seen.interrupt = handler;
        return () => {
          seen.interrupt = () => {};
        };
      },
      exit: (code) => void seen.exits.push(code),
    };
    return { seen, io: value };
  }

  it('takes what it can and says what it cannot (usage errors)', () => {
    expect(exportOptions({ all: true }, [])).toMatchObject({ out: 'perplexity-export', format: 'md', concurrency: 3, threads: undefined });
    expect(exportOptions({}, ['https://www.perplexity.ai/search/why-Ab12?x=1', 'why-Ab12', 'other-Cd34']).threads).toEqual(['why-Ab12', 'other-Cd34']);
    // A Computer task's bare id (22 letters and digits) is a thread too (day-6 review F7).
    expect(exportOptions({}, ['Xy12AbCd34EfGh56IjKl78']).threads).toEqual(['Xy12AbCd34EfGh56IjKl78']);
    // One without a digit too (about 2% of them; day-7 review F3).
    expect(exportOptions({}, ['WlAqfRbSKKtZdjryXgQpLm']).threads).toEqual(['WlAqfRbSKKtZdjryXgQpLm']);
    const refused: [Parameters<typeof exportOptions>[0], string[], RegExp][] = [
      [{}, [], /Say what to export: --all/],
      [{ all: true }, ['x-1'], /not both/],
      [{ all: true, format: 'pdf' }, [], /--format pdf is not a format: md .* or json/],
      [{ all: true, concurrency: '0' }, [], /--concurrency 0 .* from 1 to 8/],
      [{ all: true, concurrency: 'lots' }, [], /--concurrency lots/],
      [{ since: '2026-02-30' }, [], /--since 2026-02-30 is not a day/],
      [{ since: 'last week' }, [], /YYYY-MM-DD/],
      [{ search: '  ' }, [], /--search needs/],
      [{}, ['https://evil.example/search/x'], /is not a Perplexity thread/],
      [{}, ['../../etc'], /is not a Perplexity thread/],
      // Half of an unquoted path is said so, never run as a thread (day-5 review F9).
      [{ out: 'My' }, ['Exports'], /"Exports" is not a thread's URL or slug.*quote the path/],
      [{ all: true, out: 'My' }, ['Exports'], /"Exports" is not a thread's URL or slug/],
      [{ out: '/home/ann/My' }, ['Backups2026_perplexity'], /"Backups2026_perplexity" is not a thread's URL or slug.*quote the path/],
      [{ out: '/home/ann/My' }, ['2026_November_backup'], /"2026_November_backup" is not a thread's URL or slug/],
      [{ out: '/home/ann/My' }, ['PerplexityExports'], /"PerplexityExports" is not a thread's URL or slug/],
      [{ out: '/home/ann/My' }, ['ConversationHistoryBackup2026'], /"ConversationHistoryBackup2026" is not a thread's URL or slug/],
    ];
    for (const [flags, positionals, message] of refused) {
      expect(() => exportOptions(flags, positionals), JSON.stringify([flags, positionals])).toThrow(message);
      try {
        exportOptions(flags, positionals);
      } catch (error) {
        expect((error as { exitCode?: number }).exitCode).toBe(2);
      }
    }
  });

  it('exits 0 with a summary when every thread is in the folder, 1 naming each one that failed', async () => {
    const library = new FakeLibrary(4);
    let r = io();
    expect(await runExportCommand({ out, format: 'md', concurrency: 2 }, library, r.io)).toBe(0);
    expect(r.seen.out).toMatch(/\[4\/4\] wrote 2026-10-0\d-question-number-\d\.md/);
    expect(r.seen.out).toMatch(new RegExp(`4 threads in ${out} \\(4 written, 0 unchanged\\) in \\d+ s\\.\\n$`));

    library.bump('thread-2-Ab2x', '2026-12-01T00:00:00Z');
    (library.threads[0] as FakeThread).failures = [relayError('THREAD_NOT_FOUND', 'Perplexity has no thread thread-2-Ab2x (404).')];
    r = io();
    expect(await runExportCommand({ out, format: 'md', concurrency: 2 }, library, r.io)).toBe(1);
    expect(r.seen.out).toContain('3 of 4 threads in');
    expect(r.seen.out).toContain('(0 written, 3 unchanged)');
    expect(r.seen.out).toContain('1 failed:\n  thread-2-Ab2x (Question number 2): [THREAD_NOT_FOUND] Perplexity has no thread thread-2-Ab2x (404).\n');
    expect(r.seen.out).toContain('Run the same command again to go on');
  });

  it('on a terminal draws the bar on stderr and keeps stdout for the summary', async () => {
    const r = io(true);
    expect(await runExportCommand({ out, format: 'md', concurrency: 2 }, new FakeLibrary(3), r.io)).toBe(0);
    expect(r.seen.err).toContain('\r\x1b[2K[########################] 3/3');
    expect(r.seen.out).not.toContain('wrote');
    expect(r.seen.out).toContain('3 threads in');
  });

  it('Ctrl-C once ends the run cleanly (exit 1, resumable); twice quits at once', async () => {
    const library = new FakeLibrary(10);
    (library.threads[3] as FakeThread).hang = true;
    const r = io();
    library.hung = () => r.seen.interrupt();
    expect(await runExportCommand({ out, format: 'md', concurrency: 1 }, library, r.io)).toBe(1);
    expect(r.seen.err).toContain('Stopping: the threads under way are cancelled');
    expect(r.seen.out).toContain('Interrupted: 3 of 10 threads');
    expect(r.seen.exits).toEqual([]);

    const again = io();
    (library.threads[3] as FakeThread).hang = true;
    library.hung = () => {
      again.seen.interrupt();
      again.seen.interrupt();
    };
    await runExportCommand({ out, format: 'md', concurrency: 1 }, library, again.io);
    expect(again.seen.exits).toEqual([1]);
  });

  it('fails whole with the relay’s own words when nothing can be read (no browser)', async () => {
    const none: ExportSource = {
      listThreads: async () => {
        throw relayError('EXTENSION_NOT_CONNECTED', 'No browser with the comet-relay extension is connected. Run `comet-relay doctor`.');
      },
      exportThread: async () => {
        throw new Error('not reached');
      },
    };
    await expect(runExportCommand({ out, format: 'md', concurrency: 1 }, none, io().io)).rejects.toMatchObject({
      code: 'EXTENSION_NOT_CONNECTED',
      message: expect.stringContaining('doctor'),
    });
    // A folder the failed run made for itself is not left behind empty (new-user review #19); one that was there stays.
    const fresh = path.join(out, 'made-by-the-run');
    await expect(runExportCommand({ out: fresh, format: 'md', concurrency: 1 }, none, io().io)).rejects.toMatchObject({ code: 'EXTENSION_NOT_CONNECTED' });
    expect(fs.existsSync(fresh)).toBe(false);
    expect(fs.existsSync(out)).toBe(true);
    // A run that ends well with nothing to write keeps the folder its summary names (day-5 review F10).
    const empty: ExportSource = { listThreads: async () => ({ threads: [], next: null }) as never, exportThread: none.exportThread };
    const kept = path.join(out, 'nothing-to-write');
    await runExportCommand({ out: kept, format: 'md', concurrency: 1, all: true } as never, empty, io().io);
    expect(fs.existsSync(kept)).toBe(true);
  });

  it('writes Markdown that opens with YAML front matter, every value escaped', () => {
    const text = renderThread(
      {
        slug: 's-1',
        url: 'https://www.perplexity.ai/search/s-1',
        title: 'He said "yes": no\n---\n# not a heading',
        created: '2026-02-21T10:00:00Z',
        updated: null,
        mode: 'research',
        model: 'sonar: pro',
        space: "Team's #1",
        turns: [{ question: 'q?', answer: 'a [1]', sources: [{ n: 1, title: 'Src', url: 'https://example.com/a' }] }],
        pages: 1,
      },
      'md',
    );
    const [, yaml, body] = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(text) ?? [];
    const fields = Object.fromEntries(
      (yaml as string).split('\n').map((line) => {
        const [, key, value] = /^(\w+): (.*)$/.exec(line) ?? [];
        return [key, JSON.parse(value as string)];
      }),
    );
    expect(fields).toEqual({
      title: 'He said "yes": no --- # not a heading',
      url: 'https://www.perplexity.ai/search/s-1',
      created: '2026-02-21T10:00:00Z',
      updated: null,
      mode: 'research',
      model: 'sonar: pro',
      space: "Team's #1",
      turns: 1,
    });
    expect(body).toMatch(/^# He said/);
    expect(body).toContain('1. [Src](https://example.com/a)');
  });

  it('escapes in the front matter what YAML allows in no double-quoted scalar raw (DEL, C1 controls, separators)', () => {
    const text = renderThread(
      { slug: 's', url: 'u', title: 't', created: null, updated: null, mode: null, model: 'a\u007fb\u0085c\u2028d\u001be', space: null, turns: [], pages: 1 },
      'md',
    );
    const line = text.split('\n').find((l) => l.startsWith('model: ')) as string;
    expect(line).toBe('model: "a\\u007fb\\u0085c\\u2028d\\u001be"');
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(JSON.parse(line.slice('model: '.length))).toBe('a\u007fb\u0085c\u2028d\u001be');
  });

  it('says how it went in one summary', () => {
    expect(summaryText({ out: '/x', written: 1, unchanged: 0, failed: [], interrupted: false, total: 1, ms: 61_000 })).toBe('1 thread in /x (1 written, 0 unchanged) in 1 min 1 s.\n');
  });
});

describe('a run that ends early keeps the record of what it wrote (review-install #1)', () => {
  const JOURNAL = '.comet-relay-export.journal';
  let copy: string;
  beforeEach(() => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'export-killed-'));
  });
  afterEach(() => {
    fs.rmSync(copy, { recursive: true, force: true });
  });

  /** Runs an export that hangs on thread `at`, and keeps the folder as it is then: what a killed process (SIGKILL, power cut) leaves. */
  async function killedAt(library: FakeLibrary, at: number) {
    (library.threads[at] as FakeThread).hang = true;
    const ctrlC = new AbortController();
    library.hung = () => {
      fs.cpSync(out, copy, { recursive: true });
      ctrlC.abort();
    };
    await runExport({ out, format: 'md', concurrency: 1 }, { source: library, render, progress: new Recorder(), signal: ctrlC.signal });
    (library.threads[at] as FakeThread).hang = false;
    library.exportCalls = [];
  }
  const resume = (library: FakeLibrary) => runExport({ out: copy, format: 'md', concurrency: 1 }, { source: library, render, progress: new Recorder(), signal: new AbortController().signal });

  it('a run killed outright: the next one knows every file it wrote, fetches only the rest and writes no duplicate', async () => {
    const library = new FakeLibrary(8);
    await killedAt(library, 5);
    expect(fs.readdirSync(copy).filter((f) => f.endsWith('.md'))).toHaveLength(5);
    const summary = await resume(library);
    expect(summary).toMatchObject({ written: 3, unchanged: 5, failed: [] });
    expect(summary.beside).toBeUndefined();
    expect(library.exportCalls).toEqual(['thread-5-Ab5x', 'thread-6-Ab6x', 'thread-7-Ab7x']);
    const files = fs.readdirSync(copy).sort();
    expect(files.filter((f) => f.endsWith('.md'))).toHaveLength(8);
    expect(files.filter((f) => f.includes('--'))).toEqual([]);
    expect(files).not.toContain(JOURNAL); // folded into the manifest by the run that ended well
    expect(JSON.parse(fs.readFileSync(path.join(copy, MANIFEST_NAME), 'utf8')).threads).toHaveLength(8);
  });

  it('takes no file for its own that is not exactly what it wrote: the person’s file of the name, a write cut short, a line cut in half', async () => {
    const library = new FakeLibrary(4);
    const mine = 'MY OWN NOTES, not made by comet-relay\n';
    fs.writeFileSync(path.join(out, '2026-10-01-question-number-0.md'), mine);
    await killedAt(library, 3);
    // A line noted for thread 3's file whose write the kill cut short (the file was never put in place),
    // one for a file the person has at that name since, and a line the kill cut in half.
    const noted = { slug: 'thread-3-Ab3x', format: 'md', lastActivity: '2026-11-04T10:00:00Z', sha256: 'a'.repeat(64) };
    fs.appendFileSync(path.join(copy, JOURNAL), `${JSON.stringify({ ...noted, file: '2026-10-04-question-number-3.md' })}\n{"slug":"thread-2-Ab2x","fi`);
    const summary = await resume(library);
    expect(summary).toMatchObject({ written: 1, unchanged: 3, failed: [] });
    expect(library.exportCalls).toEqual(['thread-3-Ab3x']);
    expect(fs.readFileSync(path.join(copy, '2026-10-01-question-number-0.md'), 'utf8')).toBe(mine);
    expect(fs.readdirSync(copy).filter((f) => f.endsWith('.md')).sort()).toEqual(
      ['2026-10-01-question-number-0.md', `${disambiguated('2026-10-01-question-number-0', 'thread-0-Ab0x')}.md`, '2026-10-02-question-number-1.md', '2026-10-03-question-number-2.md', '2026-10-04-question-number-3.md'].sort(),
    );
  });

  it('a line a full disk cut short does not swallow the next run’s first line (day-2 review L2)', async () => {
    const { Journal } = await import('../../lib/cli/export/journal');
    const { Manifest } = await import('../../lib/cli/export/manifest');
    fs.writeFileSync(path.join(copy, JOURNAL), '{"slug":"thread-9-Ab9x","file":"cut-sho');
    const journal = new Journal(copy);
    const text = 'the thread, whole\n';
    const entry = { slug: 'thread-1-Ab1x', file: 'a-thread.md', format: 'md' as const, lastActivity: '2026-11-02T10:00:00Z' };
    await journal.note(entry, text);
    fs.writeFileSync(path.join(copy, 'a-thread.md'), text);
    await journal.close();
    // The next run, after this one was killed: the file is known as the export's own.
    const { manifest } = await Manifest.load(copy);
    expect(await new Journal(copy).replay(manifest)).toBe(1);
    expect(manifest.get('thread-1-Ab1x', 'md')).toMatchObject({ file: 'a-thread.md' });
  });

  it('a journal name planted as a hard link to another file: refused, nothing appended to that file (review 11f, F2)', async () => {
    const { Journal } = await import('../../lib/cli/export/journal');
    const victim = path.join(copy, '..', `${path.basename(copy)}-victim-rc`);
    fs.writeFileSync(victim, 'export PATH=/usr/bin\n');
    onTestFinished(() => fs.rmSync(victim, { force: true }));
    fs.linkSync(victim, path.join(copy, JOURNAL));
    const journal = new Journal(copy);
    await expect(journal.note({ slug: 'abc', file: 'x.md', format: 'md', lastActivity: null }, 'text')).rejects.toThrow(/is not a file comet-relay made \(it is also another file, a hard link\); remove it/);
    await journal.close();
    expect(fs.readFileSync(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  function io() {
    const seen = { err: '', exits: [] as number[], interrupt: () => {}, terminate: (_signal: string) => {}, manifestAtExit: [] as unknown[], filesAtExit: [] as string[] };
    const value: ExportIo = {
      out: () => {},
      err: (t) => {
        seen.err += t;
      },
      tty: false,
      onInterrupt(handler) {
        seen.interrupt = handler;
        return () => {};
      },
      onTerminate(handler) {
        seen.terminate = handler;
        return () => {};
      },
      exit: (code) => {
        seen.exits.push(code);
        seen.filesAtExit = listing();
        seen.manifestAtExit = fs.existsSync(path.join(out, MANIFEST_NAME)) ? JSON.parse(fs.readFileSync(path.join(out, MANIFEST_NAME), 'utf8')).threads : [];
      },
    };
    return { seen, io: value };
  }

  for (const signal of ['SIGTERM', 'SIGHUP']) {
    it(`${signal} quits at once, the temporary files removed and the manifest saved first`, async () => {
      const library = new FakeLibrary(10);
      (library.threads[3] as FakeThread).hang = true;
      const r = io();
      library.hung = () => {
        r.seen.terminate(signal);
        if (r.seen.exits.length === 0) r.seen.interrupt(); // (a version that ignored the signal would hang here)
      };
      await runExportCommand({ out, format: 'md', concurrency: 1 }, library, r.io);
      expect(r.seen.exits).toEqual([1]);
      expect(r.seen.manifestAtExit).toHaveLength(3);
      expect(r.seen.filesAtExit.filter((f) => f.endsWith('tmp'))).toEqual([]);
      if (signal === 'SIGTERM') expect(r.seen.err).toContain('Run the same command again to go on');
    });
  }

  it('a second Ctrl-C saves the manifest before it quits', async () => {
    const library = new FakeLibrary(10);
    (library.threads[3] as FakeThread).hang = true;
    const r = io();
    library.hung = () => {
      r.seen.interrupt();
      r.seen.interrupt();
    };
    await runExportCommand({ out, format: 'md', concurrency: 1 }, library, r.io);
    expect(r.seen.exits).toEqual([1]);
    expect(r.seen.manifestAtExit).toHaveLength(3);
  });

  it('a link planted at the journal is never written through: the run stops, saying to remove it', async () => {
    const victim = path.join(out, '..', `victim-${path.basename(out)}.txt`);
    fs.writeFileSync(victim, 'precious');
    try {
      fs.symlinkSync(victim, path.join(out, JOURNAL));
      const library = new FakeLibrary(5);
      await expect(run(library, { concurrency: 1 }).promise).rejects.toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(/is a link.*Remove it/) });
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
      expect(library.exportCalls).toHaveLength(1);
      expect(fs.lstatSync(path.join(out, JOURNAL)).isSymbolicLink()).toBe(true);
    } finally {
      fs.rmSync(victim, { force: true });
    }
  });
});

describe('a disk that takes nothing stops the run at once (review-install #2)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const errno = (code: string, syscall: string) => Object.assign(new Error(`${code}: refused, ${syscall}`), { code, syscall });

  for (const [code, syscall, words] of [
    ['ENOSPC', 'write', /the disk is full \(ENOSPC\)\. Free some space/],
    ['EDQUOT', 'write', /quota is used up/],
    ['EROFS', 'open', /read-only file system \(EROFS\)\. Pass a folder on a writable disk with --out DIR/],
    ['EACCES', 'open', /Cannot create files in .*permission denied \(EACCES\)/],
  ] as const) {
    it(`${code} from a write: after the first thread, naming the folder and what to do`, async () => {
      vi.spyOn(WholeFiles.prototype, 'write').mockRejectedValue(errno(code, syscall));
      const library = new FakeLibrary(250);
      const failure = await run(library, { concurrency: 3 }).promise.then(
        () => undefined,
        (error) => error,
      );
      expect(failure).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(words) });
      expect(failure.message).toContain(out);
      expect(failure.message).toMatch(/run the same command again/);
      expect(library.exportCalls.length).toBeLessThanOrEqual(3);
    });
  }

  it('a file another program holds (EPERM from the rename) fails that thread only', async () => {
    const write = WholeFiles.prototype.write;
    vi.spyOn(WholeFiles.prototype, 'write').mockImplementation(function (this: WholeFiles, name, text, options) {
      if (name === '2026-10-02-question-number-1.md') return Promise.reject(errno('EPERM', 'rename'));
      return write.call(this, name, text, options);
    });
    const summary = await run(new FakeLibrary(4)).promise;
    expect(summary).toMatchObject({ written: 3, failed: [expect.objectContaining({ slug: 'thread-1-Ab1x', why: expect.stringContaining('EPERM') })] });
  });
});

describe('another format into the same folder (review-install #9)', () => {
  it('writes beside the first format’s files, keeping every one (an edited one too), and keeps both up to date in place', async () => {
    const library = new FakeLibrary(3);
    await run(library).promise;
    const edited = path.join(out, '2026-10-01-question-number-0.md');
    fs.appendFileSync(edited, '\nMY OWN NOTES ABOUT THIS THREAD\n');
    const mine = fs.readFileSync(edited, 'utf8');

    expect(await run(library, { format: 'json' }).promise).toMatchObject({ written: 3, unchanged: 0 });
    const both = ['0', '1', '2'].flatMap((i) => [`2026-10-0${Number(i) + 1}-question-number-${i}.md`, `2026-10-0${Number(i) + 1}-question-number-${i}.json`]);
    expect(listing().filter((f) => f !== MANIFEST_NAME)).toEqual(both.sort());
    expect(fs.readFileSync(edited, 'utf8')).toBe(mine);
    expect(JSON.parse(fs.readFileSync(path.join(out, '2026-10-01-question-number-0.json'), 'utf8')).slug).toBe('thread-0-Ab0x');

    // Back to Markdown: nothing to fetch; then a thread with new activity is rewritten in each format in place.
    expect(await run(library).promise).toMatchObject({ written: 0, unchanged: 3 });
    library.bump('thread-1-Ab1x', '2026-12-08T00:00:00Z');
    expect(await run(library).promise).toMatchObject({ written: 1, unchanged: 2 });
    expect(await run(library, { format: 'json' }).promise).toMatchObject({ written: 1, unchanged: 2 });
    expect(listing().filter((f) => f !== MANIFEST_NAME)).toEqual(both.sort());
    expect(fs.readFileSync(path.join(out, '2026-10-02-question-number-1.md'), 'utf8')).toContain('2026-12-08T00:00:00Z');
    expect(fs.readFileSync(path.join(out, '2026-10-02-question-number-1.json'), 'utf8')).toContain('2026-12-08T00:00:00Z');
  });
});

describe('the list moving while it is read (review-install #10)', () => {
  /** After `after` threads are fetched, thread `index` gains activity and jumps to the top of the list. */
  function movesDuringRun(library: FakeLibrary, after: number, index: number) {
    const fetch = library.exportThread.bind(library);
    const moved = (library.threads[index] as FakeThread).slug;
    library.exportThread = async (slug, signal) => {
      if (library.exportCalls.length === after) library.bump(moved, '2026-12-05T12:00:00Z');
      return fetch(slug, signal);
    };
    return moved;
  }

  it('a thread that jumps to the top past the pages read is found by reading the list again from the top', async () => {
    const library = new FakeLibrary(150);
    const moved = movesDuringRun(library, 50, 120);
    const summary = await run(library).promise;
    expect(summary).toMatchObject({ written: 150, failed: [], total: 150 });
    expect(summary.unlisted).toBeUndefined();
    expect(new Set(library.exportCalls).size).toBe(150);
    expect(library.exportCalls).toContain(moved);
    expect(library.listCalls.map((c) => c.offset)).toEqual([0, 100, 0]); // the second reading stops once it is found
  });

  it('threads still unseen after reading it again: exit 1, saying how many and that a rerun goes on', async () => {
    const library = new FakeLibrary(150);
    const list = library.listThreads.bind(library);
    library.listThreads = async (params) => ({ ...(await list(params)), total: 152 }); // two threads never show
    let text = '';
    const code = await runExportCommand({ out, format: 'md', concurrency: 3 }, library, {
      out: (t) => {
        if (!t.startsWith('[')) text += t;
      },
      err() {},
      tty: false,
      onInterrupt: () => () => {},
      onTerminate: () => () => {},
      exit() {},
    });
    expect(code).toBe(1);
    expect(text).toContain('150 of 152 threads in');
    expect(text).toContain('2 threads of the 152 the list counts never showed in it');
    expect(text).toContain('Run the same command again to go on');
    expect(library.listCalls.map((c) => c.offset)).toEqual([0, 100, 0, 100]); // read once more, finding nothing new
  });
});

describe('--out that cannot be the folder (review-install #11)', () => {
  it('a file, a link to nothing, or a path under a file: CONFIG_ERROR saying what is wrong and to pass another --out', async () => {
    const file = path.join(out, 'notes.txt');
    fs.writeFileSync(file, 'mine');
    fs.symlinkSync(path.join(out, 'gone-target'), path.join(out, 'gone'));
    const cases: [string, RegExp][] = [
      [file, /notes\.txt is a file, not a folder; pass a folder .* with --out DIR/],
      [path.join(out, 'gone'), /gone is a link to .*gone-target, which does not exist; create that folder, or pass another with --out DIR/],
      [path.join(file, 'sub'), /cannot be a folder: .*notes\.txt is a file, not a folder; pass another with --out DIR/],
    ];
    for (const [dir, words] of cases) {
      const library = new FakeLibrary(2);
      await expect(run(library, { out: dir }).promise, dir).rejects.toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(words) });
      expect(library.listCalls).toEqual([]);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');
  });

  it('a link to a folder is taken; a missing folder is created with its parents', async () => {
    const real = path.join(out, 'real');
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(out, 'link'));
    expect((await run(new FakeLibrary(1), { out: path.join(out, 'link') }).promise).written).toBe(1);
    expect(fs.readdirSync(real)).toContain('2026-10-01-question-number-0.md');
    expect((await run(new FakeLibrary(1), { out: path.join(out, 'a', 'b') }).promise).written).toBe(1);
  });

  it('a pipe or a link planted as the resume file neither hangs the run nor is read through: the run starts afresh, saying why (review 11f, F7)', async () => {
    const { execFileSync } = await import('node:child_process');
    const piped = path.join(out, 'piped');
    fs.mkdirSync(piped);
    execFileSync('mkfifo', [path.join(piped, MANIFEST_NAME)]);
    expect((await Manifest.load(piped)).problem).toMatch(/^cannot read \.comet-relay-export\.json \(it is not a file comet-relay made \(a pipe or a device\)\)$/);
    const linked = path.join(out, 'linked');
    fs.mkdirSync(linked);
    const elsewhere = path.join(out, 'elsewhere.json');
    fs.writeFileSync(elsewhere, JSON.stringify({ version: 1, threads: [] }));
    fs.symlinkSync(elsewhere, path.join(linked, MANIFEST_NAME));
    expect((await Manifest.load(linked)).problem).toMatch(/^cannot read \.comet-relay-export\.json \(ELOOP/);
  });

  it("a new folder only its maker can list; a folder every user may write, or another user's, refused (review 11f, F3)", async () => {
    const made = path.join(out, 'new-export');
    expect((await run(new FakeLibrary(1), { out: made }).promise).written).toBe(1);
    expect(fs.statSync(made).mode & 0o777).toBe(0o700);
    const open = path.join(out, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    const library = new FakeLibrary(1);
    await expect(run(library, { out: open }).promise).rejects.toMatchObject({
      code: 'CONFIG_ERROR',
      message: expect.stringMatching(/open can be written by every user: your threads' titles and files would be theirs to read or replace\. Pass a folder of your own with --out DIR/),
    });
    expect(library.listCalls).toEqual([]);
    if (process.getuid?.() === 0) {
      // Another user's folder (only root can make one here).
      const theirs = path.join(out, 'theirs');
      fs.mkdirSync(theirs);
      fs.chownSync(theirs, 4242, 4242);
      await expect(run(new FakeLibrary(1), { out: theirs }).promise).rejects.toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(/theirs belongs to user 4242/) });
    }
  });
});
