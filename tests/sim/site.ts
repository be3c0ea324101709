/**
 * The simulated perplexity.ai, as a plain request handler (no Playwright, no HTTP server): tests route
 * requests to it (playwright.ts) and the standalone server (server.ts) wraps it in HTTPS.
 *
 * Pages are an HTML shell with the page's data as JSON; the page script (client/, bundled at
 * /_sim/app.js) builds the DOM described in lib/selectors/README.md. Threads live here, server side, so
 * home → /search/{slug} → /library stay consistent across SPA navigation and full page loads.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { answerPlainText } from './answer';
import { clientBundle } from './bundle';
import { SIM_HOOKS, type SimHooksName } from './hooks';
import { isSimLanguage, SIM_LANGUAGES, type SimLanguage } from './locales';
import { spriteHtml } from './icons';
import { SCENARIO_NAMES, SCENARIOS, buildResume, buildScript, resolveScenario, stripScenarioTag } from './scenarios';
import { CSS } from './styles';
import { TASK_CSS } from './tasks/task-styles';
import { interactionIdOf } from './tasks/task-paths';
import { type RateLimit, taskRoutes } from './tasks/task-routes';
import { type LibrarySeed, SimLibrary } from './json/library';
import { playAskStream } from './json/ask-stream';
import { SIM_LAYOUTS } from './types';
import type {
  AskRequest,
  AskResponse,
  BootData,
  Generation,
  ModeId,
  PageData,
  PageVariants,
  SimLayout,
  ThreadData,
  ThreadLayout,
  ThreadKind,
  ThreadSummary,
  TurnData,
  TurnReply,
} from './types';

export type { Generation } from './types';

export interface SimOptions {
  /** UI generation: 'A' (spring 2026, slash typeahead) or 'B' (autumn 2026, mode chip). Default 'B'. */
  generation?: Generation;
  /** Scenario for asks without `#scenario:<name>`. Default 'short'. */
  scenario?: string;
  /** Time scale: 4 plays everything 4× faster. Default 1. */
  speed?: number;
  /** Start with a few existing conversations in the sidebar and library. Default true. */
  seedThreads?: boolean;
  /** The site's clock (server side). Default Date.now; tests move it to see a task at any moment. */
  clock?: () => number;
  /** computer-long's wall-clock length in ms (default 150 000: longer than any hold). */
  longTaskMs?: number;
  /** The thread JSON's rate limit (default 150 requests per 5 minutes, as peers saw). */
  jsonRateLimit?: RateLimit;
  /** Entries per page of the thread JSON (default 20). */
  jsonPageSize?: number;
  /** The thread JSON at start: `ok` (default), or `moved` (a shape no built-in reader knows), `empty`, `malformed`, `error`. */
  jsonMode?: import('./json/thread-json').JsonMode;
  /**
   * How thread pages lay their turns out (types.ts ThreadLayout), or `mixed-2026-08`: threads alternate
   * between the August and the February layout, as the live site served them in August 2026. Default:
   * the environment's COMET_SIM_LAYOUT, else defaultLayout(generation).
   */
  layout?: SimLayout;
  /** Page variants (types.ts PageVariants); none by default. */
  variants?: PageVariants;
  /** The language of the page's labels: 'en', 'fr' or 'ar' (right to left). Default 'en'. */
  language?: SimLanguage;
  /** 'renamed': the composer and mode chip carry hooks no built-in selector set knows (hooks.ts). Default 'standard'. */
  hooks?: SimHooksName;
  /**
   * The composer's dictation is on in every page loaded (as for a person dictating): its microphone
   * button reads "Stop dictation" and carries the stop icon of "Stop response". Default off; a page's
   * URL can say `?dictation=on` (or `off`) for itself.
   */
  dictation?: boolean;
  /** Seed the library (library.ts) at start; without it the library is empty until `site.library.seed()`. */
  library?: LibrarySeed;
  /**
   * Answers come through the page's own fetch of the ask stream (`POST /rest/sse/perplexity_ask`, ask-stream.ts),
   * as on the live site, and Stop posts `/rest/sse/perplexity_terminate`. Default on (`COMET_SIM_STREAM=off` turns it
   * off); off, the page plays answers from the ask's reply alone (the paint-only path). A page's URL can say `?stream=off`.
   */
  askStream?: boolean;
  /** A turn asked in a page is drawn this many ms behind its script (and stream). Default 0, or `COMET_SIM_PAINT_LAG` (site.setPaintLag). */
  paintLagMs?: number;
}

export interface SimRequest {
  method: string;
  /** A path (`/search/x?y`) or an absolute URL (`https://perplexity.ai/…` redirects to www). */
  url: string;
  body?: string;
  /** Request headers, names in lower case (the thread JSON checks the app's headers). */
  headers?: Record<string, string>;
}

export interface SimResponse {
  status: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
  /**
   * A body written as it happens (the ask stream, ask-stream.ts): the HTTP server (server.ts) sends each piece at
   * once (the e2e worlds reach it through Chromium's network); Playwright's routing alone (playwright.ts), which can
   * only answer whole, answers when the stream has ended. `'cut'`: the stream was cut, the connection is dropped.
   */
  stream?: (write: (text: string) => void, closed: () => boolean) => Promise<undefined | 'cut'>;
}

export interface SimSite {
  handle(req: SimRequest): Promise<SimResponse>;
  setScenario(name: string): void;
  setGeneration(g: Generation): void;
  setSpeed(speed: number): void;
  /** The layout of threads created from now on (existing ones keep theirs). */
  setLayout(layout: SimLayout): void;
  /** Answers through the ask stream or not, in pages loaded from now on (SimOptions.askStream). */
  setAskStream(on: boolean): void;
  /** The next ask streams are cut (the connection dropped, no final frame, no end) after this many frames; null: not. */
  setAskStreamCut(frames: number | null): void;
  /** The `message` frames and bytes (UTF-16 units) the site's ask streams have sent so far (the bench's per-frame costs divide by them). */
  askStreamSent(): { frames: number; bytes: number };
  /**
   * Pages loaded from now on type a turn asked in them this many ms behind its stream (SimOptions.paintLagMs), as the
   * live page types the answer out after the stream has said it; `?paintLag=ms` in a page's URL for that load.
   */
  setPaintLag(ms: number): void;
  /** Dictation on or off in pages loaded from now on (SimOptions.dictation). */
  setDictation(on: boolean): void;
  /** A turn's replies are answered out of order: one that leaves others waiting gets its answer after the next one's. */
  setRepliesOutOfOrder(on: boolean): void;
  readonly generation: Generation;
  readonly layout: SimLayout;
  readonly language: SimLanguage;
  readonly scenario: string;
  readonly speed: number;
  /** Snapshot of all threads, newest first. */
  threads(): ThreadData[];
  /** A thread by slug, id or path. */
  thread(ref: string): ThreadData | undefined;
  /** The web app's thread JSON: break it, rate-limit it, count its requests (tasks/task-routes.ts). */
  readonly json: import('./tasks/task-routes').JsonControls;
  /** Whether the account may run Computer tasks (tasks/task-routes.ts). */
  readonly account: import('./tasks/task-routes').AccountControls;
  /** The person's library: thread list, Spaces, threads paged by cursor, failures (library.ts). */
  readonly library: SimLibrary;
}

export const SIM_ORIGIN = 'https://www.perplexity.ai';
/**
 * The layout of a site created without one (and without COMET_SIM_LAYOUT): generation B serves the live
 * layout of Aug–Oct 2026; generation A (the slash-typeahead composer, spring 2026) keeps the pre-capture
 * layout until a selector set reads that composer beside the captured layouts.
 */
export function defaultLayout(generation: Generation): SimLayout {
  return generation === 'B' ? 'blocks-2026-08' : 'turn-2026-04';
}
export const MODE_IDS: ModeId[] = ['standard', 'deep-research', 'model-council', 'create', 'learn', 'review', 'computer'];
export { SCENARIO_NAMES };

const SLUG_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(n: number): string {
  const bytes = randomBytes(n);
  let s = '';
  for (const b of bytes) s += SLUG_CHARS[b % SLUG_CHARS.length];
  return s;
}

export function slugify(title: string): string {
  const base = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${base || 'thread'}-${randomId(22)}`;
}

function titleOf(query: string): string {
  const t = stripScenarioTag(query).replace(/\s+/g, ' ').trim() || 'New Thread';
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function json(status: number, value: unknown): SimResponse {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value), headers: { 'cache-control': 'no-store' } };
}

function safeJsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function pageTitle(page: PageData): string {
  switch (page.kind) {
    case 'home':
      return 'Perplexity';
    case 'thread':
      return `${page.thread.title} - Perplexity`;
    case 'sidecar':
      return page.thread ? `${page.thread.title} - Perplexity Assistant` : 'Perplexity Assistant';
    case 'library':
      return 'Library - Perplexity';
    case 'static':
      return `${page.title} - Perplexity`;
    case 'project':
      return `${page.project.name} - Perplexity`;
    case 'not-found':
      return 'Page not found - Perplexity';
  }
}

export function createSimSite(options: SimOptions = {}): SimSite {
  let generation: Generation = options.generation ?? 'B';
  let scenario = options.scenario ?? 'short';
  let dictation = options.dictation ?? false;
  let askStream = options.askStream ?? process.env.COMET_SIM_STREAM !== 'off';
  let askStreamCut: number | null = null;
  let repliesOutOfOrder = false;
  /** While `repliesOutOfOrder`: per turn, the held answer to a reply that left others waiting. */
  const heldReplies = new Map<TurnData, () => void>();
  const askStreamSent = { frames: 0, bytes: 0 };
  let paintLagMs = Math.max(0, options.paintLagMs ?? (Number(process.env.COMET_SIM_PAINT_LAG ?? 0) || 0));
  let speed = options.speed ?? 1;
  const now = options.clock ?? Date.now;
  const language = options.language ?? 'en';
  const hooks = options.hooks ?? 'standard';
  if (!isSimLanguage(language)) throw new Error(`unknown language "${String(language)}" (known: ${Object.keys(SIM_LANGUAGES).join(', ')})`);
  if (!Object.hasOwn(SIM_HOOKS, hooks)) throw new Error(`unknown hooks "${String(hooks)}" (known: ${Object.keys(SIM_HOOKS).join(', ')})`);
  if (!(scenario in SCENARIOS)) throw new Error(`unknown scenario "${scenario}" (known: ${SCENARIO_NAMES.join(', ')})`);
  if (!(speed > 0)) throw new Error(`speed must be a positive number, got ${speed}`);

  let layout: SimLayout = options.layout ?? ((process.env.COMET_SIM_LAYOUT || undefined) as SimLayout | undefined) ?? defaultLayout(generation);
  if (!SIM_LAYOUTS.includes(layout)) throw new Error(`unknown layout "${String(layout)}" (known: ${SIM_LAYOUTS.join(', ')})`);
  let laidOut = 0;
  /** The next thread's layout: under `mixed-2026-08`, every other thread has the February one. */
  function nextLayout(): ThreadLayout {
    laidOut += 1;
    if (layout !== 'mixed-2026-08') return layout;
    return laidOut % 2 === 1 ? 'blocks-2026-08' : 'markdown-2026-02';
  }
  const pageLayout = (): ThreadLayout => (layout === 'mixed-2026-08' ? 'blocks-2026-08' : layout);

  const threads = new Map<string, ThreadData>(); // by id
  const doubled = new Set<string>(); // thread ids whose sidebar title renders twice
  let created = 0;

  function makeTurn(index: number, query: string, mode: ModeId, model: string, scen: string, startedAt: number): TurnData {
    return {
      index,
      query,
      scenario: scen,
      mode,
      model,
      startedAt,
      script: buildScript(scen, { query, mode, longTaskMs: options.longTaskMs }, speed),
      stoppedAfter: null,
      uuid: randomUUID(),
    };
  }

  function pathFor(kind: ThreadKind, slug: string, id: string, sidecar: boolean): string {
    if (kind === 'computer') return `/computer/tasks/${id}`;
    if (kind === 'copilot') return `/copilot/${slug}`;
    return sidecar ? `/sidecar/search/${slug}` : `/search/${slug}`;
  }

  function seed(): void {
    const day = 24 * 3600 * 1000;
    const seededAt = now();
    const mk = (
      id: string,
      slug: string,
      kind: ThreadKind,
      queries: string[],
      ageDays: number,
      mode: ModeId,
      dbl: boolean,
    ): void => {
      const t0 = seededAt - ageDays * day;
      const t: ThreadData = {
        id,
        slug,
        kind,
        path: pathFor(kind, slug, id, false),
        title: titleOf(queries[0] ?? ''),
        createdAt: t0,
        updatedAt: t0 + queries.length * 60_000,
        turns: queries.map((q, i) => makeTurn(i, q, mode, 'Best', 'short', t0 + i * 60_000)),
        layout: nextLayout(),
      };
      threads.set(id, t);
      if (dbl) doubled.add(id);
    };
    mk('8c0d3f4e-0001-4a1b-9c11-000000000001', 'rust-vs-go-Xq7Lr2TmQ1uV9cWzE0aB3g', 'search',
      ['Rust vs Go', 'Which one compiles faster?', 'What about memory safety?', 'Summarize it in one line'], 1, 'standard', true);
    mk('8c0d3f4e-0002-4a1b-9c11-000000000002', 'what-is-the-model-context-protocol-Hn4PkW8sYt2Ra6LmZc1Qeg', 'copilot',
      ['What is the Model Context Protocol?'], 2, 'standard', false);
    mk('8c0d3f4e-0003-4a1b-9c11-000000000003', 'book-a-table-for-two-on-friday-Jd2Lq0Vb7Nn4Ws1Ex5Cr9t', 'computer',
      ['Book a table for two on Friday'], 3, 'computer', false);
    mk('8c0d3f4e-0004-4a1b-9c11-000000000004', 'best-noise-cancelling-headphones-2026-Pz3Mv8Ky1Gt6Hq0Rw4Ls7a', 'search',
      ['Best noise-cancelling headphones 2026'], 5, 'standard', true);
  }
  if (options.seedThreads ?? true) seed();

  function findThread(ref: string): ThreadData | undefined {
    const r = ref.replace(/\/+$/, '');
    for (const t of threads.values()) {
      if (t.id === r || t.slug === r || t.path === r || `/search/${t.slug}` === r || `/sidecar/search/${t.slug}` === r) return t;
    }
    return undefined;
  }

  function sortedThreads(): ThreadData[] {
    return [...threads.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  function summaries(): ThreadSummary[] {
    return sortedThreads().map((t) => {
      const text = answerPlainText(t.turns[0]?.script.answer ?? []).replace(/\s+/g, ' ');
      return {
        path: t.path,
        title: t.title,
        snippet: text.length > 180 ? `${text.slice(0, 179)}…` : text,
        kind: t.kind,
        updatedAt: t.updatedAt,
        doubledTitle: doubled.has(t.id),
      };
    });
  }

  /** What a path shows; null = not a page (404). */
  function pageFor(pathname: string, url: URL = new URL(pathname, SIM_ORIGIN)): PageData | null {
    const p = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
    if (p === '/') return { kind: 'home' };
    let m = /^\/(search|copilot)\/([^/]+)$/.exec(p);
    if (m) {
      const t = findThread(decodeURIComponent(m[2] as string));
      return t ? { kind: 'thread', thread: t } : { kind: 'not-found' };
    }
    m = /^\/computer\/tasks\/([^/]+)$/.exec(p);
    if (m) {
      const t = findThread(decodeURIComponent(m[1] as string));
      return t ? { kind: 'thread', thread: t } : { kind: 'not-found' };
    }
    if (p === '/sidecar') return { kind: 'sidecar', thread: null };
    m = /^\/sidecar\/search\/([^/]+)$/.exec(p);
    if (m) {
      const t = findThread(decodeURIComponent(m[1] as string));
      return t ? { kind: 'sidecar', thread: t } : { kind: 'not-found' };
    }
    if (p === '/library') return { kind: 'library', threads: summaries() };
    m = /^\/s\/([^/]+)$/.exec(p);
    if (m) {
      const t = findThread(decodeURIComponent(m[1] as string));
      return t ? { kind: 'thread', thread: t } : { kind: 'not-found' };
    }
    const taskPage = tasks.pageFor(p, url);
    if (taskPage) return taskPage;
    const statics: Record<string, [string, string]> = {
      '/spaces': ['Spaces', 'Organize your threads and files into Spaces. You have no Spaces yet.'],
      '/projects': ['Projects', 'No projects yet.'],
      '/computer/artifacts': ['Artifacts', 'Files and apps created by Computer appear here. Nothing yet.'],
      '/discover': ['Discover', 'Top stories for you. (The simulated site has no news.)'],
      '/account': ['Account', 'Signed in as sim-user@example.com.'],
    };
    const s = statics[p];
    if (s) return { kind: 'static', title: s[0], text: s[1] };
    m = /^\/page\/([^/]+)$/.exec(p);
    if (m) return { kind: 'static', title: 'Page', text: `A published Perplexity Page (${m[1]}).` };
    return null;
  }

  /** Dictation for a page load: the URL's `?dictation=on|off`, else the site's switch. */
  function dictationFor(url?: URL): boolean {
    const asked = url?.searchParams.get('dictation');
    return asked === 'on' ? true : asked === 'off' ? false : dictation;
  }

  function boot(page: PageData, url?: URL): BootData {
    const threadLayout = page.kind === 'thread' || page.kind === 'sidecar' ? page.thread?.layout : undefined;
    return {
      generation,
      layout: threadLayout ?? pageLayout(),
      language,
      hooks,
      scenario,
      dictation: dictationFor(url),
      askStream: url?.searchParams.get('stream') === 'off' ? false : url?.searchParams.get('stream') === 'on' ? true : askStream,
      paintLagMs: Math.max(0, Number(url?.searchParams.get('paintLag') ?? paintLagMs) || 0),
      speed,
      now: now(),
      page,
      ...(options.variants ? { variants: options.variants } : {}),
    };
  }

  function htmlPage(page: PageData, url?: URL): string {
    const data = boot(page, url);
    return (
      `<!DOCTYPE html><html lang="${SIM_LANGUAGES[language].lang}" dir="${SIM_LANGUAGES[language].dir}" class="light"><head><meta charset="utf-8">` +
      '<meta name="viewport" content="width=device-width, initial-scale=1">' +
      `<title>${escHtml(pageTitle(page))}</title><link rel="icon" href="data:,">` +
      `<style>${CSS}${TASK_CSS}</style></head><body>${spriteHtml()}<div id="__next"></div>` +
      `<script id="__SIM_BOOT__" type="application/json">${safeJsonForScript(data)}</script>` +
      '<script src="/_sim/app.js"></script></body></html>'
    );
  }

  async function ask(body: string | undefined): Promise<SimResponse> {
    let req: AskRequest;
    try {
      req = JSON.parse(body ?? '') as AskRequest;
    } catch {
      return json(400, { error: 'body must be JSON' });
    }
    if (typeof req.query !== 'string' || !req.query.trim()) return json(400, { error: 'query must be a non-empty string' });
    const mode: ModeId = MODE_IDS.includes(req.mode) ? req.mode : 'standard';
    const model = typeof req.model === 'string' && req.model ? req.model : 'Best';
    // The server round trip: for this long the previous answer is still the last one on the page.
    await sleep(150 / speed);
    const refused = tasks.refusal(mode);
    if (refused) return refused;
    let thread = req.thread ? findThread(req.thread) : undefined;
    if (req.thread && !thread) return json(404, { error: `no thread "${req.thread}"` });
    const at = now();
    if (!thread) {
      const id = randomUUID();
      const kind: ThreadKind = mode === 'computer' ? 'computer' : 'search';
      const slug = slugify(titleOf(req.query));
      thread = {
        id,
        slug,
        kind,
        path: pathFor(kind, slug, id, !!req.sidecar),
        title: titleOf(req.query),
        createdAt: at,
        updatedAt: at,
        turns: [],
        layout: nextLayout(),
      };
      if (req.project) Object.assign(thread, tasks.projectOf(req.project));
      threads.set(id, thread);
      created += 1;
      if (created % 2 === 0) doubled.add(id);
    }
    const scen = resolveScenario(req.query, scenario, mode, thread.turns.at(-1)?.scenario);
    const turn = makeTurn(thread.turns.length, req.query, mode, model, scen, at);
    tasks.prepareTurn(turn, req);
    thread.turns.push(turn);
    thread.updatedAt = at;
    const res: AskResponse = { thread, turn, siteScenario: scenario, now: now() };
    return json(200, res);
  }

  /** A request about one turn (`{ thread, turn, ... }`): the body, its thread and turn, or the 400/404 to answer. */
  function turnRequest<R>(body: string | undefined): { req: R & { thread?: string; turn?: number }; thread: ThreadData; turn: TurnData } | SimResponse {
    let req: R & { thread?: string; turn?: number };
    try {
      req = JSON.parse(body ?? '') as typeof req;
    } catch {
      return json(400, { error: 'body must be JSON' });
    }
    const thread = req.thread ? findThread(req.thread) : undefined;
    const turn = thread?.turns[req.turn ?? -1];
    if (!thread || !turn) return json(404, { error: 'no such turn' });
    return { req, thread, turn };
  }

  /** The page's fetch of its answer stream: `{ query_str, params: { frontend_uuid, thread, turn } }` (thread and turn are the sim's). */
  function askStreamOf(body: string | undefined): SimResponse {
    let params: { thread?: string; turn?: number } = {};
    try {
      params = (JSON.parse(body ?? '') as { params?: typeof params }).params ?? {};
    } catch {
      return json(400, { error: 'body must be JSON' });
    }
    const thread = params.thread ? findThread(params.thread) : undefined;
    const turn = thread?.turns[params.turn ?? -1];
    if (!thread || !turn) return json(404, { error: 'no such turn' });
    return {
      status: 200,
      contentType: 'text/event-stream; charset=utf-8',
      body: '',
      headers: { 'cache-control': 'no-cache' },
      stream: (write, closed) => {
        const counted = (text: string) => {
          if (text.startsWith('event: message')) askStreamSent.frames++;
          askStreamSent.bytes += text.length;
          write(text);
        };
        return playAskStream({ thread, turn, now, origin: SIM_ORIGIN, sleep, write: counted, closed, cutAfter: askStreamCut });
      },
    };
  }

  function stop(body: string | undefined): SimResponse {
    const found = turnRequest<{ applied?: number }>(body);
    if (!('turn' in found)) return found;
    const { req, turn } = found;
    if (turn.stoppedAfter === null) turn.stoppedAfter = Math.max(0, Math.floor(req.applied ?? 0));
    return json(200, { ok: true, stoppedAfter: turn.stoppedAfter });
  }

  /**
   * The person's reply to a turn's interaction (question or confirmation): the turn's continuation is
   * built now and appended to its script, timed from now. A second reply to the same turn is refused.
   */
  async function reply(body: string | undefined): Promise<SimResponse> {
    const found = turnRequest<{ interaction?: string; reply?: TurnReply }>(body);
    if (!('turn' in found)) return found;
    const { req, thread, turn } = found;
    const r = req.reply;
    if (!r || !validReply(r)) {
      return json(400, { error: 'reply must be {kind:"answer",text} | {kind:"answers",answers} | {kind:"approve"} | {kind:"deny"} | {kind:"connected"} | {kind:"skip"}' });
    }
    const result = takeReply(thread, turn, r, req.interaction, now());
    // The turn as it is now: a snapshot, whenever it is answered.
    const answer = json(result.status, result.status === 200 ? { turn } : { error: result.error });
    return repliesOutOfOrder && result.status === 200 ? outOfOrder(turn, answer) : answer;
  }

  /**
   * Two replies on two connections can be answered in either order: held, the answer to a reply that left others
   * waiting goes out just after the next reply's to the same turn (or after 2 s), so the page gets the older turn
   * after the newer one.
   */
  function outOfOrder(turn: TurnData, answer: SimResponse): SimResponse | Promise<SimResponse> {
    const earlier = heldReplies.get(turn);
    heldReplies.delete(turn);
    if (earlier) setTimeout(earlier, 50);
    if (turn.reply) return answer;
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(cap);
        if (heldReplies.get(turn) === release) heldReplies.delete(turn);
        resolve(answer);
      };
      const cap = setTimeout(release, 2000);
      heldReplies.set(turn, release);
    });
  }

  /**
   * Records a reply to one of the interactions the turn waits on. Once every one of them has its
   * reply, the continuation is built and appended, timed from `at`.
   */
  function takeReply(thread: ThreadData, turn: TurnData, r: TurnReply, interaction: string | undefined, at: number) {
    const waiting = tasks.pendingOf(turn, at);
    if (r.kind === 'skip' && turn.reply?.kind === 'skip') return { status: 200 as const };
    if (waiting.length === 0 || turn.stoppedAfter !== null) return { status: 409 as const, error: 'this turn is not waiting for a reply' };
    const idOf = (w: (typeof waiting)[number]) => interactionIdOf(turn, w);
    const target = interaction ? waiting.find((w) => idOf(w) === interaction) : waiting[0];
    if (!target) return { status: 409 as const, error: `no interaction "${interaction}" is waiting in this turn` };
    const stamped = { ...r, at };
    turn.replies = { ...turn.replies, [idOf(target)]: stamped };
    if (waiting.some((w) => !turn.replies?.[idOf(w)])) {
      thread.updatedAt = at;
      return { status: 200 as const };
    }
    const replies = Object.fromEntries(Object.entries(turn.replies ?? {}).map(([k, v]) => [k, v as TurnReply]));
    const rest = buildResume(turn.scenario, { query: turn.query, mode: turn.mode }, r, speed, at - turn.startedAt, replies);
    if (!rest) return { status: 409 as const, error: 'this turn never asks anything' };
    turn.script = { events: [...turn.script.events, ...rest.events], answer: rest.answer, sources: rest.sources };
    turn.reply = stamped;
    thread.updatedAt = at;
    return { status: 200 as const };
  }

  const tasks = taskRoutes({
    now,
    speed: () => speed,
    origin: SIM_ORIGIN,
    threads: () => sortedThreads(),
    findThread,
    takeReply,
    rateLimit: options.jsonRateLimit,
    pageSize: options.jsonPageSize,
    ...(options.jsonMode ? { jsonMode: options.jsonMode } : {}),
  });

  const library = new SimLibrary();
  if (options.library) library.seed(options.library);

  async function handle(req: SimRequest): Promise<SimResponse> {
    let url: URL;
    try {
      url = new URL(req.url, SIM_ORIGIN);
    } catch {
      return { status: 400, contentType: 'text/plain', body: 'bad url' };
    }
    if (url.hostname === 'perplexity.ai') {
      // Like the real site: the bare domain redirects to www.
      return { status: 301, contentType: 'text/plain', body: '', headers: { location: `${SIM_ORIGIN}${url.pathname}${url.search}` } };
    }
    const method = req.method.toUpperCase();
    const path = url.pathname;

    if (path === '/_sim/app.js') {
      return { status: 200, contentType: 'text/javascript; charset=utf-8', body: await clientBundle(), headers: { 'cache-control': 'no-cache' } };
    }
    const fromLibrary = library.handle(method, url, req);
    if (fromLibrary) return fromLibrary;
    const task = await tasks.handle(method, url, req);
    if (task) return task;
    if (path === '/rest/sse/perplexity_ask' && method === 'POST') return askStreamOf(req.body);
    if (path === '/rest/sse/perplexity_terminate' && method === 'POST') return json(200, { status: 'success' });
    if (path.startsWith('/_sim/api/')) {
      const api = path.slice('/_sim/api/'.length);
      if (api === 'ask' && method === 'POST') return ask(req.body);
      if (api === 'stop' && method === 'POST') return stop(req.body);
      if (api === 'reply' && method === 'POST') return reply(req.body);
      if (api === 'threads' && method === 'GET') {
        // Slow enough that the sidebar's skeleton loaders are visible for a moment.
        await sleep(300 / speed);
        return json(200, { threads: summaries() });
      }
      if (api === 'page' && method === 'GET') {
        const target = new URL(url.searchParams.get('path') ?? '/', SIM_ORIGIN);
        const page = pageFor(target.pathname, target) ?? { kind: 'not-found' as const };
        return json(200, { title: pageTitle(page), boot: boot(page, target) });
      }
      if (api === 'state' && method === 'GET') return json(200, { generation, scenario, speed, threads: sortedThreads() });
      return json(404, { error: `no API ${method} ${path}` });
    }
    if (path === '/favicon.ico') return { status: 204, contentType: 'image/x-icon', body: '' };
    if (method !== 'GET' && method !== 'HEAD') return { status: 405, contentType: 'text/plain', body: 'method not allowed' };

    const page = pageFor(path, url);
    const status = !page || page.kind === 'not-found' ? 404 : 200;
    return {
      status,
      contentType: 'text/html; charset=utf-8',
      body: htmlPage(page ?? { kind: 'not-found' }, url),
      headers: { 'cache-control': 'no-store' },
    };
  }

  return {
    handle,
    setScenario(name: string) {
      if (!(name in SCENARIOS)) throw new Error(`unknown scenario "${name}" (known: ${SCENARIO_NAMES.join(', ')})`);
      scenario = name;
    },
    setGeneration(g: Generation) {
      if (g !== 'A' && g !== 'B') throw new Error(`generation must be 'A' or 'B', got ${String(g)}`);
      generation = g;
    },
    setLayout(l: SimLayout) {
      if (!SIM_LAYOUTS.includes(l)) throw new Error(`unknown layout "${String(l)}" (known: ${SIM_LAYOUTS.join(', ')})`);
      layout = l;
    },
    setDictation(on: boolean) {
      dictation = on;
    },
    setAskStream(on: boolean) {
      askStream = on;
    },
    setAskStreamCut(frames: number | null) {
      askStreamCut = frames;
    },
    askStreamSent: () => ({ ...askStreamSent }),
    setRepliesOutOfOrder(on: boolean) {
      repliesOutOfOrder = on;
    },
    setPaintLag(ms: number) {
      if (!(ms >= 0)) throw new Error(`paint lag must be 0 or more ms, got ${ms}`);
      paintLagMs = ms;
    },
    setSpeed(s: number) {
      if (!(s > 0)) throw new Error(`speed must be a positive number, got ${s}`);
      speed = s;
    },
    get generation() {
      return generation;
    },
    get layout() {
      return layout;
    },
    get language() {
      return language;
    },
    get scenario() {
      return scenario;
    },
    get speed() {
      return speed;
    },
    threads: () => sortedThreads(),
    thread: (ref: string) => findThread(ref),
    json: tasks.controls,
    account: tasks.account,
    library,
  };
}

function validReply(r: TurnReply): boolean {
  switch (r.kind) {
    case 'approve':
    case 'deny':
    case 'connected':
    case 'skip':
      return true;
    case 'answer':
      return typeof r.text === 'string' && r.text.trim() !== '';
    case 'answers':
      return typeof r.answers === 'object' && r.answers !== null && Object.values(r.answers).every((v) => typeof v === 'string');
    default:
      return false;
  }
}
