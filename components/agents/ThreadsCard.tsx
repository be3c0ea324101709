import type { PanelConnection } from '../../lib/panel/connection';
import type { ThreadEntry } from '../../lib/protocol/panel';
import { ThreadItem } from './ThreadItem';

/** Threads agents started, the one open in the page, and the page's conversation links, newest first. */
export function ThreadsCard({ threads, connection }: { threads: ThreadEntry[]; connection: PanelConnection }) {
  return (
    <section class="card" aria-labelledby="threads-heading">
      <h2 id="threads-heading">Threads ({threads.length})</h2>
      {threads.length === 0 ? (
        <p class="muted" data-testid="no-threads">
          No threads yet. Threads agents start, and the conversations on the Perplexity page, show here.
        </p>
      ) : (
        <ul class="plain threads" aria-labelledby="threads-heading" data-testid="threads">
          {threads.map((thread) => (
            <ThreadItem key={thread.key} thread={thread} connection={connection} />
          ))}
        </ul>
      )}
    </section>
  );
}
