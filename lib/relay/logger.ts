import fs from 'node:fs';
import path from 'node:path';
import type { LogName } from './paths';
import { ensurePrivateDir } from './private-dir';

/**
 * A small rotating file log. The host's stdout belongs to native messaging, so nothing may ever
 * be printed there; everything worth knowing goes to <state>/logs/<name>.log instead.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface FileLoggerOptions {
  dir: string;
  /** One of the names `uninstall --purge` knows (paths.ts), so it can remove the file later. */
  name: LogName;
  maxBytes?: number;
  keep?: number;
}

/**
 * Several processes write one log (every `comet-relay mcp` of every client appends to mcp.log), so the size that
 * decides a rotation is the file's own, read before each line, never a count kept per process: with per-process
 * counts each writer rotated on its own schedule, the rotations cascaded and lines fell off the end (review of
 * 2026-12-02, #26). Lines are appended (O_APPEND: whole lines, opened by path each time, so a line lands in the
 * file or in the one just renamed, never nowhere), and one writer at a time rotates, under an exclusive lock file,
 * after checking the file is still over the limit.
 */
export function createFileLogger({ dir, name, maxBytes = 1024 * 1024, keep = 3 }: FileLoggerOptions): Logger {
  const file = path.join(dir, `${name}.log`);
  let ready = false;
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    try {
      if (!ready) {
        ensurePrivateDir(dir); // what agents asked ends up here: only this user may read it
        ready = true;
      }
      const line = `${new Date().toISOString()} ${level} [${process.pid}] ${message}${fields ? ` ${safeJson(fields)}` : ''}\n`;
      if (sizeOf(file) + Buffer.byteLength(line) > maxBytes) rotateOnce(file, keep, maxBytes - Buffer.byteLength(line));
      fs.appendFileSync(file, line, { mode: 0o600 });
    } catch {
      // Logging must never take the host down (disk full, directory removed…).
    }
  };
  return {
    info: (m, f) => write('INFO', m, f),
    warn: (m, f) => write('WARN', m, f),
    error: (m, f) => write('ERROR', m, f),
  };
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** A lock older than this was left by a writer that died mid-rotation (a rotation takes microseconds). */
const STALE_LOCK_MS = 10_000;

/** Rotates unless another writer holds the lock (it is rotating now) or already did (the file is small again). */
function rotateOnce(file: string, keep: number, roomFor: number): void {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = fs.openSync(lock, 'wx', 0o600);
  } catch {
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
    } catch {
      // gone meanwhile: its owner finished
    }
    return; // the line goes to the file as it is; the next line rotates if it must
  }
  try {
    if (sizeOf(file) > roomFor) rotate(file, keep);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(lock, { force: true });
  }
}

function rotate(file: string, keep: number): void {
  for (let i = keep - 1; i >= 1; i--) {
    const from = `${file}.${i}`;
    if (fs.existsSync(from)) fs.renameSync(from, `${file}.${i + 1}`);
  }
  if (fs.existsSync(file)) fs.renameSync(file, `${file}.1`);
  fs.rmSync(`${file}.${keep + 1}`, { force: true });
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '[unserialisable]';
  }
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
