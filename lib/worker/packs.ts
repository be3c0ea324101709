import { type ReaderInUse, readersInUse } from '../packs/kinds';
import { parsePack } from '../packs/parse';
import type { Envelope } from '../protocol/messages';
import { PacksChanged, type SkippedPack } from '../protocol/packs';
import { type AppliedPack, PACKS_APPLY_EVENT, type PacksApply } from '../protocol/ports';
import { MORE_LABELS } from '../selectors/words';
import { THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../selectors/reader-shelf';
import { THREAD_JSON_READERS } from '../selectors/thread-json';
import { THREAD_PAGE_READERS } from '../selectors/thread-page';

/** The built-in readers the threads kit reads with and does not carry: every page gets them with its packs. */
const KIT_READERS = { [THREAD_JSON_READER_KIND]: THREAD_JSON_READERS[0], [THREAD_PAGE_READER_KIND]: THREAD_PAGE_READERS[0] };
import type { SessionValue } from './browser/session-store';

/**
 * The worker's copy of the data packs the host offers. This is the trust boundary: whatever the host
 * sends is validated here again, pack by pack, with the same schemas the CLI used; only valid packs
 * reach a page, a bad one is set aside with its reason (the side panel shows it) and never breaks
 * the others. The list is kept in storage.session, so pages that connect to a restarted worker get
 * it before the host has reconnected.
 */
export interface PackSummary {
  added: { kind: string; name: string; source: string }[];
  /** The thread readers the tabs use (built-in, or added). */
  readers: ReaderInUse[];
  /** Files the host skipped, and packs this worker refused. */
  problems: SkippedPack[];
}

export interface PackStoreDeps {
  /** Sends an event to every connected page. */
  broadcast(message: Envelope): void;
  /** The summary changed; `itemsChanged` when what pages get changed too. */
  onChange(itemsChanged: boolean): void;
  /** Where the last offer is kept across worker restarts. */
  store?: SessionValue<PacksChanged>;
}

export class PackStore {
  private packs: AppliedPack[] = [];
  private problems: SkippedPack[] = [];
  /** The host has spoken in this worker's life: what it said wins over what was saved. */
  private received = false;

  constructor(private readonly deps: PackStoreDeps) {}

  /** Takes back what a previous worker of this browser session received (validated again). */
  async restore(): Promise<void> {
    const saved = PacksChanged.safeParse(await this.deps.store?.load().catch(() => undefined));
    if (saved.success && !this.received) this.accept(saved.data, false);
  }

  /** The host's `packs.changed` event. */
  receive(data: unknown): void {
    const parsed = PacksChanged.safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.problems = [{ source: 'the comet-relay host', reason: `sent its selector sets in a shape this extension does not know (${issue?.path.join('.')}: ${issue?.message}); update both to the same version` }];
      this.deps.onChange(false);
      return;
    }
    this.received = true;
    this.accept(parsed.data, true);
  }

  /**
   * The event that gives a page every valid pack, the built-in sets' words beyond English, which the page script
   * does not carry (lib/selectors/words.ts), and the built-in thread readers, which the threads kit does not.
   */
  message(): Envelope {
    return { kind: 'event', event: PACKS_APPLY_EVENT, data: { packs: this.packs, labels: MORE_LABELS, readers: KIT_READERS } satisfies PacksApply };
  }

  summary(): PackSummary {
    return { added: this.packs.map(({ kind, name, source }) => ({ kind, name, source })), readers: readersInUse(this.packs), problems: this.problems };
  }

  /** Every valid pack, in order (the worker picks its own readers among them: reader-shelf.ts). */
  added(): readonly AppliedPack[] {
    return this.packs;
  }

  private accept(data: PacksChanged, save: boolean): void {
    const packs: AppliedPack[] = [];
    const problems: SkippedPack[] = [...data.skipped];
    for (const offer of data.packs) {
      const checked = parsePack(offer.pack);
      if (!checked.ok) {
        problems.push({ source: offer.source, reason: checked.problems.join('; ') });
        continue;
      }
      const twin = packs.find((p) => p.kind === checked.kind && p.name === checked.name);
      if (twin) {
        problems.push({ source: offer.source, reason: `another file (${twin.source}) already adds the ${checked.kind} "${checked.name}"` });
        continue;
      }
      packs.push({ kind: checked.kind, name: checked.name, source: offer.source, item: checked.item });
    }
    const changed = JSON.stringify(packs) !== JSON.stringify(this.packs);
    this.packs = packs;
    this.problems = problems;
    if (save) void this.deps.store?.save(data).catch(() => {});
    if (changed) this.deps.broadcast(this.message());
    this.deps.onChange(changed);
  }
}
