import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFileLogger } from '../../lib/relay/logger';

/**
 * Several processes append to one log (every `comet-relay mcp` writes mcp.log). Each logger here stands for one
 * process: it keeps no state another could see, as separate processes keep none.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function logDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cr-logs-'));
  dirs.push(dir);
  return dir;
}

function linesIn(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^mcp\.log(\.\d+)?$/.test(f))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean));
}

describe('one log, several writers', () => {
  it('loses no line and rotates only as often as the file fills, however many processes write', () => {
    const dir = logDir();
    const maxBytes = 2000;
    const writers = Array.from({ length: 4 }, () => createFileLogger({ dir, name: 'mcp', maxBytes, keep: 40 }));
    for (let i = 0; i < 150; i++) {
      for (const [n, w] of writers.entries()) w.info(`line ${n}-${i}`);
    }
    const lines = linesIn(dir);
    expect(lines).toHaveLength(600);
    expect(new Set(lines.map((l) => l.replace(/^.* (line \S+)$/, '$1'))).size).toBe(600);
    for (const f of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, f)).size, f).toBeLessThanOrEqual(maxBytes);
    expect(fs.existsSync(path.join(dir, 'mcp.log.lock'))).toBe(false);
  });

  it('keeps writing past a lock a dead writer left, and clears it once it is stale', () => {
    const dir = logDir();
    const lock = path.join(dir, 'mcp.log.lock');
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const log = createFileLogger({ dir, name: 'mcp', maxBytes: 200, keep: 5 });
    for (let i = 0; i < 20; i++) log.info(`line ${i}`);
    expect(linesIn(dir)).toHaveLength(20);
    expect(fs.existsSync(lock)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'mcp.log.1'))).toBe(true);
  });
});
