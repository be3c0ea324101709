import { cliCommand, quoteArg } from '../../lib/relay/invocation';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSelectors } from '../../lib/cli/selectors-command';
import type { RelayError } from '../../lib/protocol/errors';
import { PacksChanged } from '../../lib/protocol/packs';
import { type Logger, silentLogger } from '../../lib/relay/logger';
import { PackFeed } from '../../lib/relay/pack-feed';
import { packOffer, readPackFolder } from '../../lib/relay/pack-folder';
import { BUILT_IN_SOURCES, type SelectorSet } from '../../lib/selectors';

const sourceB = BUILT_IN_SOURCES.find((s) => s.name === 'gen-b-2026-10') as SelectorSet;
const pack = (set: Partial<SelectorSet>) => JSON.stringify({ kind: 'selector-set', set: { ...sourceB, ...set } });

let home: string;
let dir: string;
let output: string;
const io = {
  out: (text: string) => {
    output += text;
  },
};
const selectors = (...args: string[]) => runSelectors(home, args, {}, io);

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-packs-'));
  dir = path.join(home, 'selectors');
  output = '';
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function write(name: string, text: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function caught(run: () => unknown): RelayError {
  try {
    run();
  } catch (error) {
    return error as RelayError;
  }
  throw new Error('did not throw');
}

describe('the packs folder', () => {
  it('a missing folder is simply empty', () => {
    expect(readPackFolder(home)).toEqual({ dir, packs: [], skipped: [] });
  });

  it('uses every valid pack and skips each bad file with its reason, never stopping at one', () => {
    const good = write('b.json', pack({ name: 'gen-b-2026-12' }));
    write('a.json', '{ not json');
    write('c.json', pack({ name: 'gen-b-2026-12' }));
    write('d.json', pack({ name: 'gen-b-2026-11', turn: [] }));
    write('notes.txt', 'ignored');
    write('.selector-set.x.json.1.tmp', 'ignored');
    fs.symlinkSync(good, path.join(dir, 'e.json'));
    const report = readPackFolder(home);
    expect(report.packs.map((p) => [path.basename(p.source), p.name])).toEqual([['b.json', 'gen-b-2026-12']]);
    expect(report.skipped.map((s) => [path.basename(s.source), s.reason])).toEqual([
      ['a.json', expect.stringMatching(/^not valid JSON/)],
      ['c.json', 'adds the selector-set "gen-b-2026-12", which b.json already adds; remove one of them'],
      ['d.json', expect.stringMatching(/^set\.turn: Too small/)],
      ['e.json', expect.stringMatching(/^not a plain file/)],
    ]);
  });

  it('the offer to the extension names as many skipped files as it takes and sums up the rest, its packs kept (relay review R3)', () => {
    write('a-good.json', pack({ name: 'gen-b-2026-12' }));
    for (let i = 0; i < 300; i++) write(`bad-${String(i).padStart(3, '0')}.json`, '{ not json');
    const offer = packOffer(readPackFolder(home));
    expect(PacksChanged.safeParse(offer).success).toBe(true);
    expect(offer.packs).toHaveLength(1);
    expect(offer.skipped).toHaveLength(256);
    expect(offer.skipped.at(-1)).toEqual({ source: dir, reason: `45 more files in it could not be used either; \`${cliCommand('selectors list')}\` names them all` });
  });
});

describe('comet-relay selectors', () => {
  it('add checks the file, installs it into the folder, and says what it does', () => {
    const file = path.join(home, 'fixed.json');
    fs.writeFileSync(file, pack({ name: 'gen-b-2026-12' }));
    expect(selectors('add', file)).toBe(0);
    const installed = path.join(dir, 'selector-set.gen-b-2026-12.json');
    expect(JSON.parse(fs.readFileSync(installed, 'utf8')).set.name).toBe('gen-b-2026-12');
    expect(fs.statSync(installed).mode & 0o777).toBe(0o600);
    expect(output).toContain(`Added the selector set gen-b-2026-12: ${installed}`);
    expect(output).toContain('competes with the built-in selector sets');
    output = '';
    expect(selectors('add', file)).toBe(0);
    expect(output).toMatch(/^Updated the selector set/);
    expect(fs.readdirSync(dir)).toEqual(['selector-set.gen-b-2026-12.json']);
  });

  it('add refuses a bad file with each wrong field and what to do, and installs nothing', () => {
    const file = path.join(home, 'bad.json');
    fs.writeFileSync(file, pack({ name: 'gen-b-2026-12', composer: [] as never }));
    const error = caught(() => selectors('add', file));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(`${file} was not added: it is not a valid selector set or reader (the built-in ones keep working).`);
    expect(error.message).toContain('  set.composer: Too small: expected array to have >=1 items; it is [] (expected a list of 1 to 64 CSS selectors');
    expect(error.message).toContain(`Fix that field and run \`${cliCommand(`selectors add ${quoteArg(file)}`)}\` again`);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('add names a built-in set it replaces, and refuses a name another file in the folder already adds', () => {
    const file = path.join(home, 'fixed-b.json');
    fs.writeFileSync(file, pack({}));
    selectors('add', file);
    expect(output).toContain('It replaces the built-in selector set of the same name');
    write('by-hand.json', pack({ name: 'gen-b-2026-12' }));
    fs.writeFileSync(file, pack({ name: 'gen-b-2026-12' }));
    expect(caught(() => selectors('add', file)).message).toMatch(/by-hand\.json already adds the selector set "gen-b-2026-12", so .* was not added/);
  });

  it('list shows added sets first, built-in ones (and what replaced them), then skipped files; exit 1 while a file is skipped', () => {
    write('selector-set.gen-a-2026-04.json', pack({ ...BUILT_IN_SOURCES[1] }));
    expect(selectors('list')).toBe(0);
    expect(output.indexOf('gen-a-2026-04')).toBeLessThan(output.indexOf('gen-b-2026-10'));
    expect(output).toContain(`built-in, replaced by ${path.join(dir, 'selector-set.gen-a-2026-04.json')}`);
    write('broken.json', '[]');
    output = '';
    expect(selectors('list')).toBe(1);
    expect(output).toContain('Skipped (not used until fixed; the other sets keep working):\n  broken.json: kind: the file is not a JSON object');
  });

  it('remove deletes only files in the folder: a set by name, a skipped file by file name; built-in sets cannot be removed', () => {
    const kept = path.join(home, 'outside.json');
    fs.writeFileSync(kept, pack({ name: 'gen-b-2026-12' }));
    selectors('add', kept);
    write('broken.json', '{');
    expect(selectors('remove', 'gen-b-2026-12')).toBe(0);
    expect(selectors('remove', 'broken.json')).toBe(0);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.existsSync(kept)).toBe(true);
    expect(caught(() => selectors('remove', '../outside.json')).message).toMatch(/No added selector set, reader or skipped file is named/);
    expect(caught(() => selectors('remove', 'gen-b-2026-10')).message).toMatch(/is a built-in selector set: it cannot be removed, only replaced/);
  });

  it('show prints a set as a pack file to start from', () => {
    expect(selectors('show', 'gen-a-2026-04')).toBe(0);
    expect(JSON.parse(output)).toMatchObject({ kind: 'selector-set', set: { name: 'gen-a-2026-04', labels: { fr: expect.any(Object) } } });
    expect(caught(() => selectors('show', 'nope')).message).toMatch(/No selector set or reader is named "nope"/);
  });

  it('thread readers are packs too: show one to start from, add it fixed, list it under its kind; a wrong field is named', () => {
    expect(selectors('show', 'thread-json-2026-12')).toBe(0);
    const builtIn = JSON.parse(output) as { kind: string; reader: { name: string; thread: Record<string, unknown> } };
    expect(builtIn).toMatchObject({ kind: 'thread-json-reader', reader: { name: 'thread-json-2026-12' } });
    const file = path.join(home, 'reader.json');
    fs.writeFileSync(file, JSON.stringify({ ...builtIn, reader: { ...builtIn.reader, name: 'thread-json-2027-01', thread: { ...builtIn.reader.thread, entries: 'data.turns' } } }));
    const error = caught(() => selectors('add', file));
    expect(error.message).toContain('reader.thread.entries: Invalid input: expected array, received string; it is "data.turns" (expected a list of 1 or more JSON paths');
    fs.writeFileSync(file, JSON.stringify({ ...builtIn, reader: { ...builtIn.reader, name: 'thread-json-2027-01', thread: { ...builtIn.reader.thread, entries: ['data.turns'] } } }));
    output = '';
    expect(selectors('add', file)).toBe(0);
    expect(output).toContain(`Added the thread JSON reader thread-json-2027-01: ${path.join(dir, 'thread-json-reader.thread-json-2027-01.json')}`);
    expect(output).toContain('Thread tabs use it instead of the built-in thread JSON reader from their next read');
    output = '';
    selectors('list');
    const section = output.slice(output.indexOf('Thread JSON readers (the first one is used'));
    expect(section.indexOf('thread-json-2027-01')).toBeLessThan(section.indexOf('thread-json-2026-12'));
    expect(caught(() => selectors('remove', 'thread-page-2026-12')).message).toMatch(/is a built-in thread page reader: it cannot be removed/);
    expect(selectors('remove', 'thread-json-2027-01')).toBe(0);
  });
});

describe('the host’s pack feed', () => {
  const waitFor = async (check: () => boolean, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('offers the folder at start and again whenever it changes, logging each skipped file once', async () => {
    const offers: PacksChanged[] = [];
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (m, f) => void warnings.push(`${m} ${String(f?.file)}`) };
    const feed = new PackFeed(home, logger, (offer) => offers.push(offer));
    try {
      feed.start();
      expect(offers).toEqual([{ packs: [], skipped: [] }]);
      write('one.json', pack({ name: 'gen-b-2026-12' }));
      await waitFor(() => offers.length === 2);
      expect(offers[1]?.packs.map((p) => p.source)).toEqual([path.join(dir, 'one.json')]);
      write('two.json', 'nope');
      await waitFor(() => offers.length === 3);
      expect(offers[2]?.skipped.map((s) => path.basename(s.source))).toEqual(['two.json']);
      fs.rmSync(dir, { recursive: true });
      await waitFor(() => offers.length === 4);
      expect(offers[3]).toEqual({ packs: [], skipped: [] });
      // The folder comes back (a later `selectors add`): seen through its parent.
      write('three.json', pack({ name: 'gen-b-2026-12' }));
      await waitFor(() => offers.length === 5);
      expect(warnings).toEqual([`skipped a selector set file ${path.join(dir, 'two.json')}`]);
    } finally {
      feed.stop();
    }
  });
});
