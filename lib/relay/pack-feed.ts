import fs from 'node:fs';
import type { PacksChanged } from '../protocol/packs';
import type { Logger } from './logger';
import { isPackFileName, packsDir } from './paths';

type FolderReader = typeof import('./pack-folder');

const SETTLE_MS = 150;

/**
 * The host's watch on the packs folder: calls `send` with the whole offer at start and after every
 * change that changes it (editors save in several steps: changes settle for a moment first). Logs
 * every file it skips, once per reason.
 *
 * The folder is read by pack-folder.ts, which validates packs with zod; it is loaded only once the
 * folder holds a pack file. A host whose folder is empty (most) never loads zod: ~10 MB less
 * resident memory for a process that lives as long as the browser.
 */
export class PackFeed {
  private watcher?: fs.FSWatcher;
  private watching?: string;
  private timer?: NodeJS.Timeout;
  private last = '';
  private logged = new Set<string>();
  private stopped = false;
  private reader?: FolderReader;
  private loading = false;

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
    if (!this.reader && this.mayHoldPacks()) {
      this.loadReader();
      return;
    }
    const report = this.reader?.readPackFolder(this.home);
    this.arm();
    const seen = new Set<string>();
    for (const { source, reason } of report?.skipped ?? []) {
      const key = `${source}\0${reason}`;
      seen.add(key);
      if (!this.logged.has(key)) this.logger.warn('skipped a selector set file', { file: source, reason });
    }
    this.logged = seen;
    const offer: PacksChanged = report && this.reader ? this.reader.packOffer(report) : { packs: [], skipped: [] };
    const json = JSON.stringify(offer);
    if (json === this.last) return;
    this.last = json;
    this.logger.info('selector sets offered to the extension', { packs: report?.packs.map((p) => `${p.kind} ${p.name}`) ?? [], skipped: offer.skipped.length });
    this.send(offer);
  }

  /** False only when the folder is certainly without pack files (missing, or none in it). */
  private mayHoldPacks(): boolean {
    try {
      return fs.readdirSync(packsDir(this.home)).some(isPackFileName);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code !== 'ENOENT'; // unreadable: the reader says why
    }
  }

  private loadReader(): void {
    if (this.loading) return;
    this.loading = true;
    import('./pack-folder').then(
      (reader) => {
        this.reader = reader;
        this.refresh();
      },
      (error: unknown) => {
        this.loading = false;
        this.logger.error('cannot load the selector sets reader; added sets are not offered', { error: String(error) });
        this.arm();
      },
    );
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
