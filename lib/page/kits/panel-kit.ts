import { type Conversation, listConversations } from './conversations';
import type { HandlerContext } from '../handlers';
import type { PageDriver } from '../driver';
import type { KitHandlers, PageKitHost } from '../kit-registry';
import { watchPage } from './watch';
import { pageReader } from '../checkpoints/thread-readers';
import type { ErrorPayload } from '../../protocol/errors';
import { LIBRARY_POST_PATH } from '../../protocol/urls';

/**
 * The panel kit (lib/protocol/page/page-kits.ts): the side panel's live view of the page (`page.watch`)
 * and the sidebar's conversations (`page.conversations`: the panel's list, comet_list_conversations),
 * and the library's thread list (`library.post`, the one POST the worker makes: lib/worker/threads/library.ts),
 * loaded into a tab the first time one of them asks. A tab no panel looks at never carries it.
 */
export function panelKit({ win, driver, readers }: PageKitHost): KitHandlers {
  // The boxes a task waits on, read with the page script's reader (an added one included), as comet_wait reads them.
  const boxes = () => pageReader(readers);
  return {
    'page.watch': async (_params: Record<string, never>, context: HandlerContext) => watchPage(win, driver(), context, boxes),
    'page.conversations': async () => conversationsThrough(driver()),
    'library.post': async (params: PostParams, { signal }: HandlerContext) => post(win, params, signal),
  };
}

/** A bare error payload the page script knows as ours by its name (lib/protocol/error/relay-error.ts isOurs). */
type KitError = ErrorPayload & { name: 'RelayError' };

/** Worker-only: a POST only to a fixed list endpoint (LIBRARY_POST_PATH), its body a small JSON object. */
type PostParams = { path: string; query: Record<string, string>; headers: Record<string, string>; body: string };

export async function post(win: Window, params: PostParams, signal: AbortSignal): Promise<{ status: number; body: string; retryAfter?: string }> {
  const { path, body } = params;
  if (!LIBRARY_POST_PATH.test(path) || typeof body !== 'string' || body.length > 4096 || !/^\{.*\}$/s.test(body)) {
    // Error payloads, not RelayError: the kit stays small (the page script sends either back alike, knowing them by the name).
    throw { name: 'RelayError', code: 'INVALID_PARAMS', message: `not a POST comet-relay makes: ${String(path)}` } satisfies KitError;
  }
  const url = new URL(path, win.location.origin);
  for (const [k, v] of Object.entries(params.query)) if (v !== '') url.searchParams.set(k, v);
  try {
    const headers = { ...params.headers, 'content-type': 'application/json' };
    const res = await win.fetch(url.href, { method: 'POST', headers, body, credentials: 'include', cache: 'no-store', signal });
    return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') ?? undefined };
  } catch (e) {
    throw { name: 'RelayError', code: 'EVALUATION_FAILED', message: `Could not read ${url.pathname} (${(e as Error).message}).` } satisfies KitError;
  }
}

/** `page.conversations`: the conversations the page links to, with the driver's error shaping. */
export function conversationsThrough(driver: PageDriver): Promise<{ conversations: Conversation[] }> {
  return driver.run('listing conversations', () => ({ conversations: listConversations(driver.context()) }));
}
