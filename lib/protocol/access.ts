import { clip } from './text/clip';
import type { Door } from './doors';
import { RelayError } from './errors';
import type { MethodName } from './methods';
import { promptInUrl } from './urls';

/**
 * Which operations only read and which act — the ONE classification behind `--read-only` (the MCP
 * side offers only tools whose every operation reads, and refuses an acting call at run time) and
 * the side panel's Read-only (the worker refuses acting requests). Both derive from this table.
 */
export type Access = 'read' | 'act';
/**
 * What one call does, finer than read/act: `send` is an act that sends something to Perplexity in the
 * person's name (a prompt, a Computer task, a follow-up, a reply, a mode switch, or an address the site
 * runs as a prompt). *Require approval* holds exactly the `send` calls (lib/worker/panel/policy.ts) and
 * *Read-only* refuses every `act` and `send`: this table is the one list of both.
 */
export type Effect = Access | 'send';
type Params = Record<string, unknown>;
type Rule = Effect | ((params: Params) => Effect);

/**
 * Every browser method must be classified here: `satisfies` makes a new method a type error until
 * someone decides whether it acts. "Read" means it changes nothing the person could notice in the
 * page or the browser (a view opened to read is put back as it was).
 */
export const METHOD_ACCESS = {
  'browser.status': 'read',
  'tabs.list': 'read',
  /** Brings the tab forward for the capture and gives the window back to the tab that was in front. */
  'tabs.capture': 'read',
  'tabs.switch': 'act',
  'tabs.ensurePerplexity': 'act',
  /** An address that submits a prompt (`/search?q=…`, lib/protocol/urls.ts `promptInUrl`) sends it. */
  'tabs.navigate': (params) => (typeof params.url === 'string' && promptInUrl(params.url) !== undefined ? 'send' : 'act'),
  'page.content': 'read',
  'page.probe': 'read',
  /** Diagnostics only query the page (doctor --page, capture). */
  'page.diagnose': 'read',
  'page.capture': 'read',
  'page.poll': 'read',
  'page.wait': 'read',
  /** Expands grouped citations and opens the Sources tab to read them; the previous tab is restored. */
  'page.sources': 'read',
  'page.conversations': 'read',
  'page.report': 'read',
  'page.ask': 'send',
  'page.stop': 'act',
  /** Reading the mode is a read; passing a mode switches it. */
  'page.mode': (params) => (params.mode ? 'send' : 'read'),
  /** Thread reads may open the thread's tab in the background, but never change the thread. */
  'threads.start': 'send',
  'threads.send': 'send',
  'threads.respond': 'send',
  'threads.wait': 'read',
  'threads.state': 'read',
  'threads.read': 'read',
  'threads.assets': 'read',
  'threads.assetDownload': 'read',
  'account.models': 'read',
  'account.projects': 'read',
  /** The library (issue 29): the site's thread list and whole threads, fetched by a Perplexity tab (never a navigation). */
  'library.list': 'read',
  'library.thread': 'read',
  /** The browser's leave to store a file for an upload (create_attachment_upload): an act, so Read-only refuses it. */
  'attachments.admit': 'act',
} satisfies Record<MethodName, Rule>;

/** What an MCP tool can do besides browser methods: ask the host, or start a browser itself. */
export const LOCAL_ACCESS = {
  'host.status': 'read',
  /** comet_connect starts Comet/Chrome when none is connected. */
  'browser.launch': 'act',
  /** create_attachment_upload stores a file that only acting tools can use. */
  'attachments.store': 'act',
} satisfies Record<string, Access>;

/** Anything a tool may declare it uses (lib/mcp/tool.ts `uses`). */
export type Operation = MethodName | LocalOperation;
export type LocalOperation = keyof typeof LOCAL_ACCESS;

function ruleOf(operation: string): Rule | undefined {
  return (METHOD_ACCESS as Record<string, Rule | undefined>)[operation] ?? (LOCAL_ACCESS as Record<string, Access | undefined>)[operation];
}

/** What one call does. A name in neither table counts as sending (fail closed: refused by Read-only, held by Require approval). */
export function effectOf(operation: string, params: Params = {}): Effect {
  const rule = ruleOf(operation);
  if (rule === undefined) return 'send';
  return typeof rule === 'function' ? rule(params) : rule;
}

/** The access of one call: a `send` acts. A name in neither table counts as acting (fail closed). */
export function accessOf(operation: string, params: Params = {}): Access {
  return effectOf(operation, params) === 'read' ? 'read' : 'act';
}

/** A set of operations only reads when every one of them always reads (whatever its params). */
export function accessOfAll(operations: readonly string[]): Access {
  return operations.every((operation) => ruleOf(operation) === 'read') ? 'read' : 'act';
}

// ── doors: what a call may do depends on which way it came in ──────────────────

/**
 * What a call reaches, besides what its method does:
 * - `perplexity`: the driven Perplexity tab and the person's Perplexity account (the default);
 * - `tab-list`: the titles and URLs of the person's other tabs (tabs.list);
 * - `other-tab`: a tab that is not Perplexity (read, captured or switched to);
 * - `screenshot`: an image of the Perplexity tab (the browser allows it only with the other-tabs grant);
 * - `library`: the person's threads beyond the one in view: the site's thread list, the sidebar's
 *   conversations, any thread read whole (lib/protocol/library/library.ts).
 */
export const TARGETS = ['perplexity', 'tab-list', 'other-tab', 'screenshot', 'library'] as const;
export type Target = (typeof TARGETS)[number];

/**
 * What a call needs before it runs:
 * - `open`: nothing;
 * - `policy`: the person's Read-only (refuses) and Require approval (holds), under Control in the side panel;
 * - `other-tabs`: the browser grant "Let agents take screenshots and read other tabs", then Read-only
 *   refuses and Require approval holds;
 * - `screenshots`: that browser grant;
 * - `public-screenshots`: that grant and the panel's "Screenshots through the public door";
 * - `public-library`: the panel's PUBLIC_LIBRARY_SETTING ("Let the Agent API read my library");
 * - `never`: refused at this door, whatever the settings.
 */
export type Need = 'open' | 'policy' | 'other-tabs' | 'screenshots' | 'public-screenshots' | 'public-library' | 'never';

/**
 * THE access table: door · target · read or act → need. The worker (lib/worker/calls/router.ts,
 * lib/worker/panel/policy.ts) decides every call from the host with it; the MCP side offers a tool
 * at a door only if none of its operations is `never` there (lib/mcp/tool.ts `offeredAt`), and
 * `config agent-api` lists those. A tab list is other tabs' URLs and titles, so it needs what
 * reading another tab needs (without it the worker lists only Perplexity tabs); the public door
 * never sees another tab, and takes screenshots only when the person allows it for that door. The
 * library (the thread list, the sidebar's conversations, threads read whole) is open at the
 * loopback door and shut at the public one until the person turns on PUBLIC_LIBRARY_SETTING.
 * Sessions are the fourth input: each door has its own session book (DOOR_SESSIONS), so a session
 * is only ever reached through the door that opened it.
 */
export const DOOR_ACCESS = {
  loopback: {
    perplexity: { read: 'open', act: 'policy' },
    'tab-list': { read: 'other-tabs', act: 'never' },
    'other-tab': { read: 'other-tabs', act: 'policy' },
    screenshot: { read: 'screenshots', act: 'never' },
    library: { read: 'open', act: 'never' },
  },
  public: {
    perplexity: { read: 'open', act: 'policy' },
    'tab-list': { read: 'never', act: 'never' },
    'other-tab': { read: 'never', act: 'never' },
    screenshot: { read: 'public-screenshots', act: 'never' },
    library: { read: 'public-library', act: 'never' },
  },
} as const satisfies Record<Door, Record<Target, Record<Access, Need>>>;

/**
 * The target that defines each method (what it hands out or changes). Besides it, the methods in
 * OTHER_TAB_METHODS reach `other-tab` when the tab they resolve is not Perplexity.
 */
export const METHOD_TARGET: Partial<Record<MethodName, Target>> = {
  'tabs.list': 'tab-list',
  'tabs.capture': 'screenshot',
  'library.list': 'library',
  'library.thread': 'library',
  /** The sidebar's conversations are the library's titles and URLs too. */
  'page.conversations': 'library',
  /** The person's Projects (names, descriptions, URLs): what the public door's page reads leave out with the sidebar (review 10, door L2). */
  'account.projects': 'library',
};

/** Methods whose tab may be one that is not Perplexity: they are judged again for `other-tab` once it is known. */
export const OTHER_TAB_METHODS: readonly MethodName[] = ['tabs.capture', 'page.content', 'tabs.switch'];

/**
 * Methods on one thread, named by its thread_id. Any thread of the account can be named (a search thread's slug too),
 * so at the public door a thread that door did not start is the person's library: read only with
 * PUBLIC_LIBRARY_SETTING, never acted on (threads review 2026-12-05, H2: read_thread read any thread whole with the
 * setting off). At the loopback door every thread stays `perplexity`.
 */
export const THREAD_METHODS: readonly MethodName[] = [
  'threads.wait',
  'threads.state',
  'threads.read',
  'threads.assets',
  'threads.assetDownload',
  'threads.send',
  'threads.respond',
];

/**
 * What a call at the public door opens of the person's library besides its method's target, in the words of the
 * request a refusal names, or undefined; it needs PUBLIC_LIBRARY_SETTING besides the person's policy:
 * - a navigation to more than the home page or the prompt endpoint (a thread, the library's list, a Space) shows the
 *   library to whoever then reads the tab (day-2 review M3: comet_open_conversation, then comet_get_page_content, read
 *   any thread with the setting off). By path alone, whatever the query: a prompt parameter on a thread's or the
 *   library's address opens that page all the same (day-3 review H1); `/search?q=…` is a send, judged as one besides;
 * - a Computer task started in one of the person's Projects (`projectUuid`) opens the Project's page, takes its files
 *   and instructions as context, may be shown to its members, and is then read back as the door's own thread; listing
 *   the Projects is a library read (`account.projects`), so putting a task in one is too (review 15c, F2).
 */
export function opensLibrary(door: Door, method: string, params: Params): string | undefined {
  if (door !== 'public') return undefined;
  if (method === 'threads.start' && params.projectUuid !== undefined) return `start a Computer task in the person's Project ${clip(String(params.projectUuid), 80)}`;
  if (method !== 'tabs.navigate' || typeof params.url !== 'string') return undefined;
  const page = `open ${clip(params.url, 120)}, a page of the Perplexity library`;
  try {
    const path = new URL(params.url).pathname.replace(/\/+$/, '');
    return path !== '' && path !== '/search' ? page : undefined;
  } catch {
    return page;
  }
}

/** The target of a call on a thread: `library` at the public door unless that door started the thread. */
export function threadTarget(door: Door, method: string, startedAtDoor: boolean): Target {
  return door === 'public' && (THREAD_METHODS as readonly string[]).includes(method) && !startedAtDoor ? 'library' : targetOf(method);
}

/** The target a method reaches before its tab is known. */
export function targetOf(method: string): Target {
  return (METHOD_TARGET as Record<string, Target | undefined>)[method] ?? 'perplexity';
}

/**
 * The one decision point: what one call needs, from its door, its method (and params: whether it
 * reads or acts) and the target it reaches. A target the method cannot reach is `never` (fail closed).
 */
export function accessNeed(call: { door: Door; method: string; params?: Params; target?: Target }): Need {
  const target = call.target ?? targetOf(call.method);
  const reachable =
    target === targetOf(call.method) ||
    (target === 'other-tab' && (OTHER_TAB_METHODS as readonly string[]).includes(call.method)) ||
    (target === 'library' && (THREAD_METHODS as readonly string[]).includes(call.method));
  if (!reachable) return 'never';
  return DOOR_ACCESS[call.door][target][accessOf(call.method, call.params)];
}

/** Whether an operation (a browser method or a local one) can run at all at a door, before its tab is known. */
export function reachableAt(door: Door, operation: string): boolean {
  return accessNeed({ door, method: operation }) !== 'never';
}

/**
 * Each door's own session book in `serve` (lib/mcp/http.ts): its cap is its own setting, and a
 * full book ends only its own longest-idle session, so a public caller can neither end a local
 * session nor fill the local door's slots.
 */
export const DOOR_SESSIONS = {
  loopback: { capSetting: 'COMET_MAX_SESSIONS' },
  public: { capSetting: 'COMET_MAX_PUBLIC_SESSIONS' },
} as const satisfies Record<Door, { capSetting: string }>;

/** The side panel's setting for screenshots through the public door (ControlSettings.publicScreenshots), in its words. */
export const PUBLIC_SCREENSHOTS_SETTING = 'Screenshots through the public door';

/** What each target is, in the words a refusal uses. */
const TARGET_WORDS: Record<Target, string> = {
  perplexity: 'use Perplexity',
  'tab-list': "list the browser's tabs (their titles and URLs)",
  'other-tab': 'reach a tab that is not Perplexity',
  screenshot: 'take screenshots',
  library: "reach the person's Perplexity library (the thread list, threads this door did not start)",
};

/**
 * The refusal of a call its door never allows (`never` in DOOR_ACCESS), naming the door, what was
 * refused and what to do instead.
 */
export function doorRefused(door: Door, tool: string | undefined, operation: string, target: Target = targetOf(operation)): RelayError {
  const who = tool ? `${tool} (${operation})` : operation;
  const instead =
    door !== 'public'
      ? 'No setting allows it at this door.'
      : target === 'library'
        ? 'Through the public door (the Agent API, `serve --public-url`) an agent acts only on threads it started there (call_perplexity_computer without a thread_id); use a client on this machine for the person\'s other threads.'
        : 'Callers through the public door (the Agent API, `serve --public-url`) never see other tabs or the tab list, whatever the settings; use a client on this machine for that.';
  return new RelayError('PERMISSION_DENIED', `${who} was refused: it would ${TARGET_WORDS[target]}, which the ${door} door does not allow. ${instead}`);
}
