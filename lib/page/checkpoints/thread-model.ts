import type {
  AccountBlock as AccountBlockSchema,
  ThreadAsset,
  ThreadCheckpoint,
  ThreadCheckpointInteraction,
  ThreadEvent,
  ThreadFile,
  ThreadSource,
  ThreadWebState,
} from '../../protocol/threads/threads';
import { pageEntryStatus, threadStatusOf } from '../../protocol/threads/thread-events';
import type { ThreadInteraction } from '../../protocol/watch';
import type { z } from 'zod';

/**
 * What either thread reader (the thread JSON, the page) makes of a thread, before it becomes the
 * contract's checkpoint, web_state or transcript. Both readers fill the same shape, so the rest of
 * the code never knows which one answered except through `source`.
 */
export type CheckpointEvent = Exclude<ThreadEvent, 'timeout'>;
export type AccountBlock = z.infer<typeof AccountBlockSchema>;
export type Interaction = ThreadCheckpointInteraction;

export interface TurnReading {
  index: number;
  entryId?: string;
  query: string;
  /** null while the turn still runs. */
  event: CheckpointEvent | null;
  /**
   * The JSON entry's own status (web_state.entries). Absent on a page reading: the page shows none, and web_state says
   * the event table's word for the turn instead (pageEntryStatus).
   */
  entryStatus?: string;
  /** The answer so far, Markdown. */
  answer: string;
  errorMessage?: string;
  /** What a block says (an external wait, a two-factor prompt, a credits or access notice). */
  notice?: string;
  steps: string[];
  sources: ThreadSource[];
  files: ThreadFile[];
  wakeAt?: string;
  /** Required and waiting, in page order. */
  interactions: Interaction[];
  optionalAuth: Interaction[];
  account?: AccountBlock;
}

export interface ThreadReading {
  source: 'json' | 'page';
  /** What the JSON says the thread is (`computer`, `research`, `search`), when the reader knows the value. */
  kind?: string;
  threadId: string;
  url: string;
  title?: string;
  turnCount: number;
  /** Perplexity's own word for the thread's state (the JSON's thread_status), when the reading came with one. */
  threadStatus?: string;
  /** The JSON calls the last turn finished, but no answer or file of it was read: it reads as running (event null). */
  answerUnread?: boolean;
  /** JSON: every turn read; page: the turns it could read (at least the latest). */
  turns: TurnReading[];
  /**
   * Every file the thread produced. JSON: versions included. Page (full readings): what its file
   * cards show, by the card's id (the JSON's id) when it carries one, else by its link.
   */
  assets?: ThreadAsset[];
}

const numbered = (options: readonly string[]) => options.map((o, i) => `${i + 1}. ${o}`).join('\n');

/** The Markdown a checkpoint carries, per event: the answer, or what the agent waits on, or why it stopped. */
export function checkpointText(turn: TurnReading): string {
  const [first] = turn.interactions;
  switch (turn.event) {
    case 'ask_user_question':
      return turn.interactions
        .flatMap((i) => (i.questions?.length ? i.questions : [{ id: i.followupUuid, text: i.text }]))
        .map((q) => ('options' in q && q.options?.length ? `${q.text}\n${numbered(q.options)}` : q.text))
        .join('\n\n');
    case 'confirm_action':
      return turn.interactions.map((i) => i.text).join('\n\n');
    case 'auth_required':
      return turn.interactions
        .map((i) => `${i.title ?? `Connect ${i.displayName ?? i.connector ?? 'a service'}`}${i.description ? `: ${i.description}` : ''}${i.authUrl ? `\n${i.authUrl}` : ''}`)
        .join('\n\n');
    case 'interaction_required':
      return `${first?.text ?? 'Perplexity needs input it can only take in its own page.'}${first?.url ? `\n${first.url}` : ''}`;
    case 'two_factor_required':
      return first?.text ?? turn.notice ?? 'A two-factor code is needed.';
    case 'sleep':
      return [turn.answer, `Sleeping until ${turn.wakeAt ?? 'a scheduled time'}.${turn.notice ? ` ${turn.notice}` : ''}`].filter(Boolean).join('\n\n');
    case 'waiting':
      return [turn.answer, turn.notice].filter(Boolean).join('\n\n') || 'The task is waiting on an external condition.';
    case 'error':
      return [turn.errorMessage ?? 'The task failed.', turn.answer ? `Partial answer:\n\n${turn.answer}` : ''].filter(Boolean).join('\n\n');
    case 'insufficient_credits':
    case 'access_denied':
      return turn.notice ?? (turn.event === 'access_denied' ? 'Computer is not available for this account.' : 'Insufficient credits.');
    case 'cancelled':
      return turn.answer || 'The task was stopped before it finished.';
    default:
      return turn.answer;
  }
}

export function checkpointOf(reading: ThreadReading, turn: TurnReading): ThreadCheckpoint {
  return {
    threadId: reading.threadId,
    url: reading.url,
    ...(reading.title ? { title: reading.title } : {}),
    turn: turn.index,
    ...(turn.entryId ? { entryId: turn.entryId } : {}),
    event: turn.event,
    text: checkpointText(turn),
    steps: turn.steps,
    sources: turn.sources.slice(0, 50),
    files: turn.files,
    ...(turn.wakeAt ? { wakeAt: turn.wakeAt } : {}),
    interactions: turn.interactions,
    optionalAuth: turn.optionalAuth,
    ...(turn.account ? { account: turn.account } : {}),
    source: reading.source,
  };
}

/** The thread's status in words (read_thread's `status`), from its latest turn. */
export function threadStatus(turn: TurnReading | undefined): string {
  return threadStatusOf(turn ? turn.event : undefined);
}

/**
 * read_thread's `status`: the latest turn's, in the seed's words (running, idle, waiting_for_user, …); for a turn the
 * JSON calls finished whose answer the reader did not find (it reads as running), Perplexity's own word for the
 * thread: such a task read "running" for ever (review 14b, F2). A turn the JSON itself says runs stays "running",
 * whatever the thread's word (review 14d: a thread-level "completed" may lag a new turn).
 */
export function readThreadStatus(reading: ThreadReading): string {
  return reading.answerUnread && reading.threadStatus ? reading.threadStatus : threadStatus(reading.turns.at(-1));
}

export function webStateOf(reading: ThreadReading): ThreadWebState {
  const last = reading.turns.at(-1);
  const pending = last?.interactions ?? [];
  return {
    // Perplexity's word where the JSON said it (the seed: "the thread state shown in Perplexity"), ours from the
    // latest turn's event otherwise (review 14b, F2).
    thread_status: reading.threadStatus ?? threadStatus(last),
    wake_at: last?.wakeAt ?? null,
    entries: reading.turns.map((t) => ({ entry_id: t.entryId ?? null, status: t.entryStatus ?? pageEntryStatus(t.event, t.interactions.length > 0) })),
    interactions: pending.filter((i) => i.type !== 'auth_required' && i.type !== 'interaction_required'),
    auth_requests: [...pending.filter((i) => i.type === 'auth_required'), ...(last?.optionalAuth ?? [])],
    form_links: pending.filter((i) => i.type === 'interaction_required' && i.url).map((i) => ({ title: i.title ?? i.text, url: i.url as string })),
    source: reading.source,
  };
}

/** The turns as Markdown, most recent kept within maxChars. */
export function transcriptOf(reading: ThreadReading, maxChars: number): { text: string; truncated: boolean } {
  const parts = reading.turns.map((t) => {
    const said = t.event && t.event !== 'complete' ? checkpointText(t) : t.answer;
    return `**User:** ${t.query}\n\n**Perplexity:** ${said || '(no answer yet)'}`;
  });
  const kept: string[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as string;
    if (size + part.length > maxChars && kept.length > 0) break;
    kept.unshift(part.length > maxChars ? `…${part.slice(part.length - maxChars + 1)}` : part);
    size += part.length + 7;
  }
  const truncated = kept.length < parts.length || (parts.length > 0 && (parts.at(-1)?.length ?? 0) > maxChars);
  const note = kept.length < parts.length ? `[${parts.length - kept.length} earlier turn(s) left out]\n\n---\n\n` : '';
  return { text: note + kept.join('\n\n---\n\n'), truncated };
}

/**
 * One waiting prompt as the side panel and comet_wait show it (lib/protocol/watch.ts): its id is
 * the followup_uuid; a single question's choices are its options; several questions stay apart.
 */
export function toWatched(i: Interaction): ThreadInteraction {
  const questions = i.questions ?? [];
  const single = questions.length === 1 ? questions[0] : undefined;
  const url = i.authUrl ?? i.url;
  return {
    type: i.type,
    id: i.followupUuid,
    text: i.text,
    ...(single?.options?.length ? { options: single.options } : {}),
    ...(questions.length > 1 ? { questions: questions.map((q) => ({ id: q.id, text: q.text, ...(q.options?.length ? { options: q.options } : {}) })) } : {}),
    ...(url ? { url } : {}),
    ...(i.expiresAt ? { expiresAt: i.expiresAt } : {}),
  };
}
