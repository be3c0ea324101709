import type { PanelConnection } from '../../lib/panel/connection';
import { saveTextFile } from '../../lib/panel/save-file';
import { formatClock, shortUrl, THREAD_STATUS_LABEL } from '../../lib/panel/view';
import type { ThreadEntry } from '../../lib/protocol/panel';
import { InteractionForm } from './InteractionForm';
import { useAction } from '../common/useAction';

/** One thread: a button that opens it in the Perplexity tab, its status, latest step, and what it waits on. */
export function ThreadItem({ thread, connection }: { thread: ThreadEntry; connection: PanelConnection }) {
  const { error, held, run } = useAction();
  const status = THREAD_STATUS_LABEL[thread.status];
  const detailId = `thread-detail-${thread.key.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const title = thread.title || (thread.url ? shortUrl(thread.url) : 'Untitled');
  const open = () => thread.url && run(() => connection.request('panel.openThread', { url: thread.url ?? '' }));
  const save = () =>
    run(async () => {
      const file = (await connection.request('panel.exportThread', { url: thread.url ?? '' })) as { fileName: string; markdown: string };
      saveTextFile(file.fileName, file.markdown);
    });
  return (
    <li class={`thread${thread.current ? ' current' : ''}`} data-testid="thread" data-status={thread.status} data-key={thread.key}>
      <div class="thread-head">
        {thread.url ? (
          <button type="button" class="thread-open" {...held} aria-describedby={detailId} onClick={() => void open()}>
            {title}
          </button>
        ) : (
          <span class="thread-title">{title}</span>
        )}
        {status ? <span class={`badge badge-${thread.status}`}>{status}</span> : null}
      </div>
      <p id={detailId} class="muted small thread-detail">
        {thread.current ? 'Open in the Perplexity tab. ' : ''}
        {thread.latestStep ? <span data-testid="thread-step">{thread.latestStep}</span> : null}
        {thread.startedBy ? (
          <span>
            {thread.latestStep ? ' · ' : ''}by {thread.startedBy}
            {thread.updatedAt ? ` · ${formatClock(thread.updatedAt)}` : ''}
          </span>
        ) : null}
      </p>
      {thread.current && thread.url ? (
        <button type="button" class="small" {...held} data-testid="export-thread" onClick={() => void save()}>
          Export as Markdown
        </button>
      ) : null}
      {thread.error ? <p class="error small">{thread.error}</p> : null}
      {thread.interactions.map((interaction) => (
        <InteractionForm key={interaction.id} threadKey={thread.key} interaction={interaction} connection={connection} />
      ))}
      {error ? (
        <p class="error small" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}
