import fs from 'node:fs';
import path from 'node:path';
import { MAX_PACK_BYTES, parsePackText } from '../packs/parse';
import { MAX_PACKS, type PacksChanged, type SkippedPack } from '../protocol/packs';
import type { Logger } from './logger';
import { packsDir } from './paths';

/**
 * The packs folder (`<home>/selectors/`): every `*.json` file in it is a data pack. Reading it never
 * throws and never stops at a bad file: a file that is not a valid pack, is too big, is not a plain
 * file, or adds a name another file already adds, is skipped with its reason, and the rest are used.
 * The host, `selectors list` and `doctor` all read it through here.
 */
export interface FolderPack {
  /** Absolute path of the file. */
  source: string;
  kind: string;
  name: string;
  /** The pack as validated. */
  pack: { kind: string };
}

export interface FolderReport {
  dir: string;
  packs: FolderPack[];
  skipped: SkippedPack[];
}

export function readPackFolder(home: string): FolderReport {
  const dir = packsDir(home);
  const report: FolderReport = { dir, packs: [], skipped: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') report.skipped.push({ source: dir, reason: `the folder cannot be read: ${(error as Error).message}` });
    return report;
  }
  for (const name of names) {
    const source = path.join(dir, name);
    // Clipped to what the extension accepts (lib/protocol/packs.ts), so one long reason cannot void the offer.
    const skip = (reason: string) => report.skipped.push({ source, reason: reason.length > 2000 ? `${reason.slice(0, 1999)}…` : reason });
    let text: string;
    try {
      const stat = fs.lstatSync(source);
      if (!stat.isFile()) {
        skip('not a plain file (a folder or a link); copy the pack here with `comet-relay selectors add FILE`');
        continue;
      }
      if (stat.size > MAX_PACK_BYTES) {
        skip(`${stat.size} bytes; a data pack may be at most ${MAX_PACK_BYTES} bytes`);
        continue;
      }
      text = fs.readFileSync(source, 'utf8');
    } catch (error) {
      skip(`cannot be read: ${(error as Error).message}`);
      continue;
    }
    const checked = parsePackText(text);
    if (!checked.ok) {
      skip(checked.problems.join('; '));
      continue;
    }
    const twin = report.packs.find((p) => p.kind === checked.kind && p.name === checked.name);
    if (twin) {
      skip(`adds the ${checked.kind} "${checked.name}", which ${path.basename(twin.source)} already adds; remove one of them`);
      continue;
    }
    if (report.packs.length >= MAX_PACKS) {
      skip(`more than ${MAX_PACKS} packs in the folder; remove some with \`comet-relay selectors remove NAME\``);
      continue;
    }
    report.packs.push({ source, kind: checked.kind, name: checked.name, pack: checked.pack });
  }
  return report;
}

/** What the host offers the extension: the packs (the worker validates them again) and the skipped files. */
export function packOffer(report: FolderReport): PacksChanged {
  return { packs: report.packs.map(({ source, pack }) => ({ source, pack })), skipped: report.skipped };
}

const SETTLE_MS = 150;

/**
 * Watches the packs folder and calls `send` with the whole offer at start and after every change
 * that changes it (editors save in several steps: changes settle for a moment first). Logs every
 * file it skips, once per reason.
 */
export class PackFeed {
  private watcher?: fs.FSWatcher;
  private watching?: string;
  private timer?: NodeJS.Timeout;
  private last = '';
  private logged = new Set<string>();
  private stopped = false;

  constructor(
    private readonly home: string,
    private readonly logger: Logger,
    private readonly send: (offer: PacksChanged) => void,
  ) {}

  /** Sends the folder's packs now (again, for a new handshake) and keeps watching. */
  start(): void {
    this.stopped = false;
    try {
      fs.mkdirSync(packsDir(this.home), { recursive: true, mode: 0o700 });
    } catch (error) {
      this.logger.warn('cannot create the selector sets folder', { error: String(error) });
    }
    this.last = '';
    this.refresh();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
    this.watching = undefined;
  }

  private refresh(): void {
    if (this.stopped) return;
    const report = readPackFolder(this.home);
    this.arm();
    const seen = new Set<string>();
    for (const { source, reason } of report.skipped) {
      const key = `${source}\0${reason}`;
      seen.add(key);
      if (!this.logged.has(key)) this.logger.warn('skipped a selector set file', { file: source, reason });
    }
    this.logged = seen;
    const offer = packOffer(report);
    const json = JSON.stringify(offer);
    if (json === this.last) return;
    this.last = json;
    this.logger.info('selector sets offered to the extension', { packs: report.packs.map((p) => `${p.kind} ${p.name}`), skipped: report.skipped.length });
    this.send(offer);
  }

  /** Watches the folder, or, while it does not exist, its parent (to see it come back). */
  private arm(): void {
    const dir = packsDir(this.home);
    const target = fs.existsSync(dir) ? dir : this.home;
    if (this.watching === target && this.watcher) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watching = undefined;
    try {
      const watcher = fs.watch(target, { persistent: false }, () => this.schedule());
      watcher.on('error', () => {
        if (this.watcher !== watcher) return;
        watcher.close();
        this.watcher = undefined;
        this.schedule();
      });
      this.watcher = watcher;
      this.watching = target;
    } catch (error) {
      this.logger.warn('cannot watch the selector sets folder; changes need a browser restart', { folder: target, error: String(error) });
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), SETTLE_MS);
  }
}
