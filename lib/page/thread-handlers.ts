import { RelayError } from '../protocol/errors';
import type { AttachmentPayload, ThreadAsset, ThreadReply } from '../protocol/threads';
import { THREAD_JSON_READERS } from '../selectors/thread-json';
import { THREAD_PAGE_READERS } from '../selectors/thread-page';
import type { ThreadJsonReader, ThreadPageReader } from '../selectors/thread-schema';
import type { PageDriver } from './driver';
import type { HandlerContext } from './handlers';
import { locateThread, pageAssets, readModels, readProjects } from './thread-account';
import { respondInThread, sendFollowUp, startThread, type TurnSettings } from './thread-actions';
import { checkpointOf, transcriptOf, webStateOf } from './thread-model';
import { ThreadSession } from './thread-session';
import { waitForCheckpoint } from './thread-wait';

/**
 * The content script's side of the `threads.*` and `account.*` methods. The worker has parsed the
 * params (lib/protocol/threads.ts) and routed the call to the tab that shows the thread; every
 * method checks that this tab does show it. Readers are the built-in ones (newest first).
 */
type Handler = (params: never, context: HandlerContext) => Promise<unknown>;

interface ThreadParams {
  threadId: string;
}

export function threadHandlers(win: Window, driver: () => PageDriver, readers: { json?: ThreadJsonReader; page?: ThreadPageReader } = {}): Record<string, Handler> {
  const json = readers.json ?? (THREAD_JSON_READERS[0] as ThreadJsonReader);
  const page = readers.page ?? (THREAD_PAGE_READERS[0] as ThreadPageReader);
  let session: ThreadSession | undefined;
  const threads = () => {
    session ??= new ThreadSession({ ctx: () => driver().context(), watcher: driver().watcher, json, page });
    return session;
  };

  /** This tab must show the thread the call is about. */
  const own = (threadId: string): ThreadSession => {
    const s = threads();
    if (s.threadId !== threadId) {
      throw new RelayError('TAB_NOT_FOUND', `This tab shows ${win.location.href}, not thread "${threadId}"; call again (the thread's tab is looked up anew).`);
    }
    if (s.notFound()) throw new RelayError('THREAD_NOT_FOUND', `thread_id "${threadId}" matches no Perplexity thread (${win.location.href} says it does not exist).`);
    return s;
  };

  const latest = async (s: ThreadSession) => {
    const reading = await s.reading();
    const turn = reading.turns.at(-1);
    if (!turn) throw new RelayError('AGENT_ERROR', `thread "${s.threadId}" has no turn the page can read yet (${win.location.href}).`);
    return { reading, turn };
  };

  const allAssets = async (s: ThreadSession): Promise<{ assets: ThreadAsset[]; source: 'json' | 'page' }> => {
    const reading = await s.reading({ full: true });
    if (reading.source === 'json') return { assets: reading.assets ?? [], source: 'json' };
    // The page shows files as links only: ids, versions and times come from its attributes where it has them.
    const files = reading.turns.flatMap((t) => t.files.map((f) => ({ t, f })));
    return {
      source: 'page',
      assets: files.map(({ t, f }) => ({
        asset_id: f.url,
        entry_id: t.entryId ?? `turn-${t.index}`,
        filename: f.filename,
        mime_type: f.media_type,
        size_bytes: f.size_bytes,
        asset_type: 'file',
        created_at: 0,
        is_primary_asset: null,
        root_asset_id: null,
        parent_asset_id: null,
        published_url: null,
      })),
    };
  };

  return {
    'threads.start': async (params: { message: string; attachments: AttachmentPayload[]; settings: TurnSettings; projectVisibility?: 'private' | 'project' }) => {
      const d = driver();
      return startThread(d.context(), d.watcher, page, params);
    },
    'threads.send': async (params: ThreadParams & { message: string; attachments: AttachmentPayload[]; settings: TurnSettings }) => {
      const d = driver();
      return sendFollowUp(d.context(), d.watcher, own(params.threadId), page, params);
    },
    'threads.respond': async (params: ThreadParams & { followupUuid?: string; reply: ThreadReply; attachments: AttachmentPayload[] }) => {
      if (params.attachments.length > 0) {
        throw new RelayError('INVALID_PARAMS', 'Perplexity takes files with a message, not with an answer: send them with call_perplexity_computer on the same thread_id.');
      }
      return respondInThread(driver().context(), own(params.threadId), page, params);
    },
    'threads.wait': async (params: ThreadParams & { turn?: number; timeoutMs: number; quietMs?: number }, { signal, progress }: HandlerContext) =>
      waitForCheckpoint(own(params.threadId), driver().watcher, params, { signal, onProgress: progress }),
    'threads.state': async (params: ThreadParams) => {
      const { reading, turn } = await latest(own(params.threadId));
      return checkpointOf(reading, turn);
    },
    'threads.read': async (params: ThreadParams & { maxChars: number }) => {
      const s = own(params.threadId);
      const reading = await s.reading({ full: true });
      const { text, truncated } = transcriptOf(reading, params.maxChars);
      const webState = webStateOf(reading);
      return {
        threadId: params.threadId,
        url: win.location.href,
        status: webState.thread_status,
        text,
        truncated,
        webState,
        ...(reading.source === 'page' && s.lastProblem ? { webStateError: `Read from the page instead: ${s.lastProblem}.` } : {}),
      };
    },
    'threads.assets': async (params: ThreadParams & { entryId?: string; cursor?: string }) => {
      const { assets } = await allAssets(own(params.threadId));
      return pageAssets(assets, params);
    },
    'threads.assetDownload': async (params: ThreadParams & { assetId: string }) => {
      const s = own(params.threadId);
      // Signed download links come with the thread JSON: reading it (when allowed) refreshes them.
      const { assets, source } = await allAssets(s);
      const asset = assets.find((a) => a.asset_id === params.assetId);
      if (!asset) throw new RelayError('INVALID_PARAMS', `asset_id "${params.assetId}" is not an asset of thread "${params.threadId}" (list_thread_assets lists them).`);
      if (source === 'page') return { asset_id: asset.asset_id, url: asset.asset_id, expires_in_seconds: null };
      const link = s.lastAssetLinks().get(params.assetId);
      if (!link) throw new RelayError('AGENT_ERROR', `Perplexity gives no download link for asset "${params.assetId}" right now; try again in a few seconds.`);
      const left = link.expiresAt !== undefined ? Math.max(0, Math.round(link.expiresAt - Date.now() / 1000)) : null;
      return { asset_id: asset.asset_id, url: link.url, expires_in_seconds: left };
    },
    /** Worker-only: does this tab show the thread, and if its page says "not found", where does it live? */
    'threads.locate': async (params: ThreadParams) => {
      const s = threads();
      const shows = s.threadId === params.threadId;
      if (shows && !s.notFound()) return { found: true };
      const path = await locateThread(win, json, params.threadId).catch(() => undefined);
      return { found: false, ...(path && path !== win.location.pathname ? { path } : {}) };
    },
    'account.models': async () => readModels(win, json),
    'account.projects': async (params: { searchTerm?: string; cursor?: string }) => readProjects(win, json, params),
  };
}
