import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PACK_KINDS } from '../../lib/packs/kinds';
import { parsePack, parsePackText } from '../../lib/packs/parse';
import type { PacksChanged } from '../../lib/protocol/packs';
import { silentLogger } from '../../lib/relay/logger';
import { PackFeed } from '../../lib/relay/pack-feed';
import { readPackFolder } from '../../lib/relay/pack-folder';

/**
 * A pack file is outside input like a frame: reader packs allow unknown keys (a newer reader file
 * loads in an older build), so a key nested a hundred thousand levels deep used to pass the check
 * and then break every hop that serialises it: the host's offer threw "Maximum call stack size
 * exceeded", and with it went every other pack in the folder (and the rest of the handshake).
 */
let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-pack-depth-'));
  fs.mkdirSync(path.join(home, 'selectors'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

function readerPack(extra?: unknown): Record<string, unknown> {
  const pack = structuredClone(PACK_KINDS['thread-page-reader']?.builtInPack('thread-page-2026-12')) as unknown as { reader: Record<string, unknown> };
  if (extra !== undefined) pack.reader.futureField = extra;
  return pack;
}

const deepText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('pack files nested too deep', () => {
  it('are refused with the depth and the limit, read from text or given as a value', () => {
    const text = JSON.stringify(readerPack());
    const deep = `${text.slice(0, -2)},"futureField":${deepText(100_000)}}}`;
    const fromText = parsePackText(deep);
    expect(fromText.ok).toBe(false);
    if (!fromText.ok) expect(fromText.problems.join(' ')).toMatch(/nests deeper than \d+ levels/);
    const fromValue = parsePack(readerPack(JSON.parse(deepText(100))));
    expect(fromValue.ok).toBe(false);
    expect(parsePack(readerPack({ a: { b: [1, 2, { c: 3 }] } })).ok).toBe(true);
  });

  it('are skipped by the host, which still offers the other packs', async () => {
    const dir = path.join(home, 'selectors');
    const other = readerPack();
    (other.reader as { name: string }).name = 'thread-page-2026-11';
    fs.writeFileSync(path.join(dir, 'a-good.json'), JSON.stringify(other));
    const good = JSON.stringify(readerPack());
    fs.writeFileSync(path.join(dir, 'b-deep.json'), `${good.slice(0, -2)},"futureField":${deepText(100_000)}}}`);
    const report = readPackFolder(home);
    expect(report.packs.map((p) => path.basename(p.source))).toEqual(['a-good.json']);
    expect(report.skipped.map((s) => path.basename(s.source))).toEqual(['b-deep.json']);

    const offers: PacksChanged[] = [];
    const feed = new PackFeed(home, silentLogger, (offer) => offers.push(offer));
    try {
      feed.start(); // loads the folder reader, then offers
      const deadline = Date.now() + 5000;
      while (offers.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(offers[0]?.packs.map((p) => path.basename(p.source))).toEqual(['a-good.json']);
      expect(offers[0]?.skipped[0]?.reason).toMatch(/nests deeper than/);
    } finally {
      feed.stop();
    }
  });
});
