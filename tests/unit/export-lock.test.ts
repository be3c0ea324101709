import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ExportIo, runExportCommand } from '../../lib/cli/export/export-command';
import { FolderLock } from '../../lib/cli/export/folder-lock';
import { MANIFEST_NAME } from '../../lib/cli/export/manifest';
import type { Progress } from '../../lib/cli/export/progress';
import { type ExportOptions, runExport } from '../../lib/cli/export/run-export';
import type { ExportSource, ListedThread, WholeThread } from '../../lib/cli/export/source';

/**
 * One export at a time into a folder: two at once (a cron job and a run by hand) would each save the
 * manifest as it knows it and delete each other's temporary files. The second refuses, naming the first;
 * a lock whose process is gone is taken over; the lock goes on every way out, and only a run's own.
 */

const LOCK = '.comet-relay-export.lock';

function listed(i: number): ListedThread {
  return { slug: `thread-${i}-Ab${i}x`, title: `Question ${i}`, url: `https://www.perplexity.ai/search/thread-${i}-Ab${i}x`, lastActivity: `2026-11-1${i}T10:00:00Z`, created: `2026-10-1${i}T10:00:00Z`, mode: 'search', space: null };
}

/** A library of `count` threads; `hold(slug)` makes that thread's fetch wait until `release()`, calling `held()` when it starts to. */
class Library implements ExportSource {
  exportCalls: string[] = [];
  listCalls = 0;
  private gate: Promise<void> | undefined;
  private open = () => {};
  private holding = '';
  held = () => {};
  listError: unknown;
  constructor(private readonly count: number) {}
  hold(slug: string) {
    this.holding = slug;
    this.gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }
  release() {
    this.open();
  }
  async listThreads() {
    this.listCalls += 1;
    if (this.listError) throw this.listError;
    const threads = Array.from({ length: this.count }, (_, i) => listed(i));
    return { threads, total: threads.length, offset: 0, nextOffset: null };
  }
  async exportThread(slug: string, signal: AbortSignal): Promise<WholeThread> {
    this.exportCalls.push(slug);
    if (slug === this.holding && this.gate) {
      this.held();
      await Promise.race([
        this.gate,
        new Promise((_, reject) => {
          const cancel = () => reject(Object.assign(new Error('cancelled'), { code: 'CANCELLED' }));
          if (signal.aborted) cancel();
          signal.addEventListener('abort', cancel, { once: true });
        }),
      ]);
    }
    const t = listed(Number(slug.split('-')[1]));
    return { slug, url: t.url, title: t.title, created: t.created, updated: t.lastActivity, mode: t.mode, model: 'sonar', space: null, turns: [{ question: 'q', answer: `a for ${slug}`, sources: [] }], pages: 1 };
  }
}

const quiet: Progress = { total() {}, thread() {}, waiting() {}, end() {} };
const render = (t: WholeThread) => `---\ntitle: ${t.title}\n---\n${t.turns.map((x) => x.answer).join('\n')}\n`;

let out: string;
let lock: string;
beforeEach(() => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'export-lock-'));
  lock = path.join(out, LOCK);
});
afterEach(() => {
  fs.rmSync(out, { recursive: true, force: true });
});

function run(library: ExportSource, extra: { signal?: AbortSignal; warn?: (text: string) => void } = {}, options: Partial<ExportOptions> = {}) {
  return runExport({ out, format: 'md', concurrency: 1, ...options }, { source: library, render, progress: quiet, signal: extra.signal ?? new AbortController().signal, warn: extra.warn });
}

const holderLock = (pid: number, host = os.hostname()) => `${JSON.stringify({ pid, host, started: '2026-12-05T08:00:00.000Z' })}\n`;

/** A pid that ran and is gone: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return child.pid as number;
}

describe('two exports into one folder', () => {
  it('the second refuses while the first runs, naming its pid and start and what to do; the first finishes whole', async () => {
    const first = new Library(4);
    first.hold('thread-2-Ab2x');
    const started = new Promise<void>((resolve) => {
      first.held = resolve;
    });
    const running = run(first);
    await started;
    expect(fs.existsSync(lock)).toBe(true);

    const second = new Library(4);
    const refused = run(second);
    await expect(refused).rejects.toMatchObject({ code: 'CONFIG_ERROR' });
    const message = String(await refused.catch((error: Error) => error.message));
    expect(message).toMatch(new RegExp(`^Another export is writing into ${out} \\(pid ${process.pid}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)`));
    expect(message).toContain('Wait for it to finish');
    expect(message).toContain(`if that process is gone, remove ${lock} and run the same command again`);
    expect(second.listCalls + second.exportCalls.length).toBe(0);

    first.release();
    expect(await running).toMatchObject({ written: 4, failed: [] });
    expect(fs.existsSync(lock)).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_NAME), 'utf8')).threads).toHaveLength(4);
    expect(await run(new Library(4))).toMatchObject({ written: 0, unchanged: 4 });
  });

  it('a lock whose process still runs is left as it is, and nothing is fetched; one from another host too', async () => {
    for (const text of [holderLock(process.ppid), holderLock(1, 'another-machine')]) {
      fs.writeFileSync(lock, text);
      const library = new Library(2);
      const refused = run(library);
      await expect(refused).rejects.toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringMatching(/^Another export is writing into .* started 2026-12-05T08:00:00\.000Z\)/) });
      expect(fs.readFileSync(lock, 'utf8')).toBe(text);
      expect(library.listCalls + library.exportCalls.length).toBe(0);
    }
    await expect(run(new Library(2))).rejects.toThrow(/\(pid 1 on another-machine, started/);
  });

  it('a stale lock (its process gone) is taken over with a note, and removed at the end', async () => {
    const pid = deadPid();
    fs.writeFileSync(lock, holderLock(pid));
    const notes: string[] = [];
    expect(await run(new Library(3), { warn: (text) => notes.push(text) })).toMatchObject({ written: 3 });
    expect(notes).toEqual([`${lock} was left by an export that is no longer running (pid ${pid}, started 2026-12-05T08:00:00.000Z); this run takes it over.`]);
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.readdirSync(out).filter((f) => f.includes('.lock'))).toEqual([]);
  });

  it('a lock that cannot be read is not taken over: the run refuses, saying to remove it if no export runs', async () => {
    fs.writeFileSync(lock, '');
    await expect(run(new Library(1))).rejects.toThrow(`its lock file ${lock} cannot be read`);
    expect(fs.readFileSync(lock, 'utf8')).toBe('');
  });

  it('a link planted at the lock is never followed or written through', async () => {
    const victim = path.join(os.tmpdir(), `victim-${path.basename(out)}.txt`);
    fs.writeFileSync(victim, 'precious');
    try {
      fs.symlinkSync(victim, lock);
      const library = new Library(1);
      await expect(run(library)).rejects.toThrow(`${lock} is a link, not a lock file an export made`);
      expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
      expect(fs.lstatSync(lock).isSymbolicLink()).toBe(true);
      expect(library.listCalls).toBe(0);
    } finally {
      fs.rmSync(victim, { force: true });
    }
  });
});

describe('the lock goes on every way out, and only the run’s own', () => {
  it('a run that fails (no browser) held the lock, and removes it', async () => {
    const library = new Library(2);
    let heldWhileRunning = false;
    library.listError = Object.assign(new Error('No browser with the comet-relay extension is connected.'), { code: 'EXTENSION_NOT_CONNECTED' });
    const listThreads = library.listThreads.bind(library);
    library.listThreads = async () => {
      heldWhileRunning = fs.existsSync(lock);
      return listThreads();
    };
    await expect(run(library)).rejects.toMatchObject({ code: 'EXTENSION_NOT_CONNECTED' });
    expect(heldWhileRunning).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
  });

  function io() {
    const seen = { exits: [] as number[], interrupt: () => {}, terminate: (_signal: string) => {}, lockAtExit: true };
    const value: ExportIo = {
      out: () => {},
      err: () => {},
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
        seen.lockAtExit = fs.existsSync(lock);
      },
    };
    return { seen, io: value };
  }

  it('Ctrl-C once, twice, and SIGTERM: the lock is gone (before the process exits, where it quits at once)', async () => {
    for (const stop of ['ctrl-c', 'ctrl-c twice', 'SIGTERM'] as const) {
      const library = new Library(4);
      library.hold('thread-1-Ab1x');
      const r = io();
      let heldWhileRunning = false;
      library.held = () => {
        heldWhileRunning = fs.existsSync(lock);
        if (stop === 'SIGTERM') r.seen.terminate('SIGTERM');
        else r.seen.interrupt();
        if (stop === 'ctrl-c twice') r.seen.interrupt();
        if (r.seen.exits.length === 0 && stop !== 'ctrl-c') r.seen.interrupt(); // (a version that ignored the signal would hang here)
      };
      expect(await runExportCommand({ out, format: 'md', concurrency: 1 }, library, r.io)).toBe(1);
      expect(heldWhileRunning, stop).toBe(true);
      if (stop !== 'ctrl-c') expect(r.seen).toMatchObject({ exits: [1], lockAtExit: false });
      expect(fs.existsSync(lock), stop).toBe(false);
    }
  });

  it('a lock another run put in its place is left there', async () => {
    const library = new Library(3);
    library.hold('thread-1-Ab1x');
    const other = holderLock(process.ppid);
    library.held = () => {
      fs.writeFileSync(lock, other); // taken over by a run that judged this one gone
      library.release();
    };
    expect(await run(library)).toMatchObject({ written: 3 });
    expect(fs.readFileSync(lock, 'utf8')).toBe(other);
  });
});

describe('a stale lock is taken over by one run at a time (day-4 review F6)', () => {
  afterEach(() => vi.restoreAllMocks());

  type Attempt = { name: string; lock?: FolderLock; refused?: string };
  function attempt(name: string, runs: Attempt[], notes: string[] = []): Attempt {
    const run: Attempt = { name };
    try {
      run.lock = FolderLock.take(out, { warn: (text) => notes.push(text) });
    } catch (error) {
      run.refused = (error as Error).message;
    }
    runs.push(run);
    return run;
  }
  const lockText = (run: Attempt) => (run.lock as unknown as { text: string }).text;
  const lockFiles = () => fs.readdirSync(out).filter((f) => f.startsWith(LOCK)).sort();

  /** Calls `after(name, args)` once each listed fs call of the lock's module returns or throws (each run would be its own process). */
  function hook(after: (call: string, args: unknown[]) => void) {
    let inner = false;
    for (const name of ['openSync', 'closeSync', 'renameSync', 'linkSync', 'rmSync'] as const) {
      const real = (fs[name] as (...args: unknown[]) => unknown).bind(fs);
      vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
        try {
          return real(...args);
        } finally {
          if (!inner) {
            inner = true;
            try {
              after(name, args);
            } finally {
              inner = false;
            }
          }
        }
      }) as never);
    }
  }

  it('B judged the lock stale, A took it over first: B removes nothing of A\'s, and a run C tried after each of B\'s file calls never finds the folder free', () => {
    fs.writeFileSync(lock, holderLock(deadPid()));
    const runs: Attempt[] = [];
    let a: Attempt | undefined;
    hook((call) => {
      // B has read the stale lock (and judges it stale next); A takes it over first. From then on, C tries at every step of B's.
      if (!a) {
        if (call === 'closeSync') a = attempt('A', runs);
        return;
      }
      attempt(`C after B's ${call}`, runs);
    });
    const b = attempt('B', []);
    vi.restoreAllMocks();
    expect(a?.lock).toBeDefined();
    expect(runs.filter((r) => r.lock).map((r) => r.name)).toEqual(['A']);
    expect(runs.length).toBeGreaterThan(3);
    for (const c of runs.slice(1)) expect(c.refused, c.name).toMatch(/^Another export is writing into /);
    expect(b.refused).toMatch(/^Another export is writing into /);
    expect(fs.readFileSync(lock, 'utf8')).toBe(lockText(a as Attempt));
    expect(lockFiles()).toEqual([LOCK]);
    a?.lock?.releaseSync();
    expect(lockFiles()).toEqual([]);
  });

  it('C finds the takeover held while B clears the stale lock: it waits a moment, then refuses naming the takeover file; B takes over', () => {
    fs.writeFileSync(lock, holderLock(deadPid()));
    const runs: Attempt[] = [];
    let made = false;
    hook((call, args) => {
      // B has made its takeover file (opened, written, closed): C comes now.
      if (call === 'openSync' && args[0] === `${lock}.takeover` && args[1] === 'wx') made = true;
      else if (call === 'closeSync' && made && runs.length === 0) attempt('C', runs);
    });
    const notes: string[] = [];
    const b = attempt('B', [], notes);
    vi.restoreAllMocks();
    expect(runs.map((r) => r.name)).toEqual(['C']);
    expect(runs[0]?.refused).toMatch(
      new RegExp(`^Another export \\(pid ${process.pid}, started [^)]+\\) is taking over the stale lock of ${out} this very moment: ${lock}\\.takeover is held\\. .* Run the same command again in a moment; if no export is running, remove ${lock}\\.takeover and run it again\\.$`),
    );
    expect(b.lock).toBeDefined();
    expect(notes).toHaveLength(1);
    expect(fs.readFileSync(lock, 'utf8')).toBe(lockText(b));
    expect(lockFiles()).toEqual([LOCK]);
    b.lock?.releaseSync();
  });

  it('a takeover file a live run holds is waited for briefly, then refused, naming it; the stale lock stays', () => {
    const stale = holderLock(deadPid());
    fs.writeFileSync(lock, stale);
    fs.writeFileSync(`${lock}.takeover`, holderLock(process.ppid));
    const started = Date.now();
    expect(() => FolderLock.take(out)).toThrow(`is taking over the stale lock of ${out} this very moment: ${lock}.takeover is held.`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fs.readFileSync(lock, 'utf8')).toBe(stale);
    expect(lockFiles()).toEqual([LOCK, `${LOCK}.takeover`]);
  });

  it('a takeover file a killed run left does not block: it is cleared the same way, and the stale lock taken over', () => {
    fs.writeFileSync(lock, holderLock(deadPid()));
    fs.writeFileSync(`${lock}.takeover`, holderLock(deadPid()));
    const notes: string[] = [];
    const taken = attempt('next', [], notes);
    expect(taken.lock).toBeDefined();
    expect(notes).toHaveLength(1);
    expect(lockFiles()).toEqual([LOCK]);
    taken.lock?.releaseSync();
    expect(lockFiles()).toEqual([]);
  });

  it('a killed run\'s takeover file at the last level is named, to be removed; once removed, the run goes ahead', () => {
    const top = `${lock}.takeover.takeover`;
    fs.writeFileSync(lock, holderLock(deadPid()));
    fs.writeFileSync(`${lock}.takeover`, holderLock(deadPid()));
    fs.writeFileSync(top, holderLock(deadPid()));
    expect(() => FolderLock.take(out)).toThrow(new RegExp(`^${top} was left by an export that stopped while taking over the lock of ${out} \\(pid \\d+, started [^;]+; no longer running\\)\\. Remove ${top}, then run the same command again\\.$`));
    expect(lockFiles()).toHaveLength(3);
    fs.rmSync(top);
    FolderLock.take(out).releaseSync();
    expect(lockFiles()).toEqual([]);
  });
});
