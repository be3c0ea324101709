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

export function createFileLogger({ dir, name, maxBytes = 1024 * 1024, keep = 3 }: FileLoggerOptions): Logger {
  const file = path.join(dir, `${name}.log`);
  let size = -1;
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    try {
      if (size < 0) {
        ensurePrivateDir(dir); // what agents asked ends up here: only this user may read it
        size = fs.existsSync(file) ? fs.statSync(file).size : 0;
      }
      const line = `${new Date().toISOString()} ${level} [${process.pid}] ${message}${fields ? ` ${safeJson(fields)}` : ''}\n`;
      if (size + line.length > maxBytes) {
        rotate(file, keep);
        size = 0;
      }
      fs.appendFileSync(file, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
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
