import { RelayError } from '../../protocol/error/relay-error';
import type { AttachmentPayload, ThreadReply } from '../../protocol/threads/threads';
import { FILES_WITH_A_REPLY } from '../../protocol/threads/thread-replies';
import { sameThreadId, showsThread } from '../../protocol/threads/thread-ids';
import type { ThreadReply as PanelReply } from '../../protocol/watch';
import { type ReaderKind, type ReaderShelf, THREAD_JSON_READER_KIND, THREAD_PAGE_READER_KIND } from '../../selectors/reader-shelf';
import type { ThreadJsonReader, ThreadPageReader } from '../../selectors/thread-schema';
import type { HandlerContext } from '../handlers';
import { guarded, type KitHandlers, type PageKitHost } from '../kit-registry';
import { lastSubmission, sendFollowUp, startThread, type TurnSettings } from './thread-actions';
import { respond, respondInThread } from './thread-answers';
import { pageAssets } from './thread-dom-reader';
import { ThreadSession } from './thread-session';
import { waitForCheckpoint } from './thread-wait';

/**
 * The threads kit (lib/protocol/page/page-kits.ts): the content script's side of the `threads.*`
 * methods, and `page.respond` (the side panel answering what a task waits on), loaded into a tab
 * the first time one of them is asked there. The worker has parsed the params
 * (lib/protocol/threads/threads.ts) and routed the call to the tab that shows the thread; every method
 * checks that this tab does show it. Reads answer with the thread's *reading* (from the JSON or
 * the page, saying which); the worker makes the contract's results of it
 * (lib/worker/threads/thread-results.ts). The readers are the page script's (host.readers): the built-in
 * ones, or those added as files, looked up at every call so an added one is used at once.
 */

interface ThreadParams {
  threadId: string;
}

export function threadHandlers({ win, driver, readers }: PageKitHost): KitHandlers {
  // The built-in readers come from the worker with the packs (reader-shelf.ts setBuiltIns): this kit carries none.
  const json = () => need<ThreadJsonReader>(readers, THREAD_JSON_READER_KIND);
  const pageReader = () => need<ThreadPageReader>(readers, THREAD_PAGE_READER_KIND);
  // One session per thread the tab shows, not per document: what a session knows (prompts answered,
  // when we last acted, cached JSON, asset links) is about one conversation, and a same-page
  // navigation to another must not carry it over. A Computer task re-summarized under a new slug is the same thread
  // (sameThreadId) and keeps its session: what was answered stays answered (review 15a, F3).
  let session: { threadId: string | undefined; session: ThreadSession } | undefined;
  const threads = () => {
    const fresh = new ThreadSession({ ctx: () => driver().context(), watcher: driver().watcher, json, page: pageReader });
    const same = session?.threadId !== undefined && fresh.threadId !== undefined ? sameThreadId(session.threadId, fresh.threadId) : session?.threadId === fresh.threadId;
    if (!session || !same) session = { threadId: fresh.threadId, session: fresh };
    return session.session;
  };

  /** This tab must show the thread the call is about. */
  const own = (threadId: string): ThreadSession => {
    const s = threads();
    if (!showsThread(win.location.href, threadId)) {
      throw new RelayError('TAB_NOT_FOUND', `This tab shows ${win.location.href}, not thread "${threadId}"; call again (the thread's tab is looked up anew).`);
    }
    if (s.notFound()) throw new RelayError('THREAD_NOT_FOUND', `thread_id "${threadId}" matches no Perplexity thread (${win.location.href} says it does not exist).`);
    return s;
  };

  const full = async (s: ThreadSession) => {
    const reading = await s.reading({ full: true });
    return { reading, ...(reading.source === 'page' && s.lastProblem ? { problem: s.lastProblem } : {}) };
  };

  return guarded(driver, {
    // The acting methods take the caller's signal: a cancelled call stops before its next step in the page.
    'threads.start': async (
      params: { message: string; attachments: AttachmentPayload[]; settings: TurnSettings; projectVisibility?: 'private' | 'project' },
      { signal }: HandlerContext,
    ) => {
      const d = driver();
      return startThread(d.context(), d.watcher, pageReader(), params, { signal });
    },
    'threads.send': async (params: ThreadParams & { message: string; attachments: AttachmentPayload[]; settings: TurnSettings }, { signal }: HandlerContext) => {
      const d = driver();
      return sendFollowUp(d.context(), d.watcher, own(params.threadId), pageReader(), params, { signal });
    },
    'threads.respond': async (params: ThreadParams & { followupUuid?: string; reply: ThreadReply; attachments: AttachmentPayload[] }, { signal }: HandlerContext) => {
      if (params.attachments.length > 0) {
        throw new RelayError('INVALID_PARAMS', FILES_WITH_A_REPLY);
      }
      return respondInThread(driver().context(), own(params.threadId), pageReader(), params, signal);
    },
    'threads.wait': async (params: ThreadParams & { turn?: number; timeoutMs: number; quietMs?: number }, { signal, progress }: HandlerContext) =>
      waitForCheckpoint(own(params.threadId), driver().watcher, params, { signal, onProgress: progress }),
    'threads.state': async (params: ThreadParams) => {
      const s = own(params.threadId);
      const reading = await s.reading();
      const turn = reading.turns.at(-1);
      if (!turn) throw new RelayError('AGENT_ERROR', `thread "${params.threadId}" has no turn the page can read yet (${win.location.href}).`);
      return { reading, turn };
    },
    'threads.read': async (params: ThreadParams) => full(own(params.threadId)),
    'threads.assets': async (params: ThreadParams) => full(own(params.threadId)),
    'threads.assetDownload': async (params: ThreadParams) => {
      // Signed download links come with the thread JSON (the reading asks it when allowed); the
      // page's cards give theirs. Both, so an id listed from either source can be resolved.
      const s = own(params.threadId);
      const { reading } = await full(s);
      const cards = Object.fromEntries(pageAssets(driver().context(), pageReader()).map(({ asset, url }) => [asset.asset_id, { url }]));
      const signed = Object.fromEntries(s.lastAssetLinks());
      // The source that answered gives the link; the other's are there to resolve its ids.
      return { reading, links: reading.source === 'json' ? { ...cards, ...signed } : { ...signed, ...cards } };
    },
    /** Worker-only: did a start in this tab submit its prompt (after a start failed)? */
    'threads.submitted': async () => lastSubmission(),
    /** Worker-only: does this tab show the thread, or does its page say "not found"? */
    'threads.locate': async (params: ThreadParams) => {
      const s = threads();
      return { found: showsThread(win.location.href, params.threadId) && !s.notFound() };
    },
    /** The side panel answers what the current turn waits on (a task's question, a research answer's). */
    'page.respond': async (params: { interactionId: string; reply: PanelReply }) => respond(driver().context(), pageReader(), params.interactionId, params.reply),
  });
}

/** The reader of `kind` in use, which this kit carries no built-in of. */
function need<R>(readers: ReaderShelf, kind: ReaderKind): R {
  const reader = readers.pick<R | undefined>(kind, undefined).reader;
  // The worker gives them before any request can reach the page (lib/worker/main.ts onConnect): not seen in use.
  if (reader === undefined) throw new RelayError('AGENT_ERROR', `This page has no ${kind} yet (the extension gives it when the page connects): call again.`);
  return reader;
}
