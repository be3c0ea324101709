import { RepairInfo } from './page/page-repair';
import { z } from 'zod';
import { BrowserInfo, ProfileInfo } from './messages';
import { AttachedClient, PerplexityTabStatus } from './methods';
import { PageAccessWords } from './page-access';
import { PAGE_MODES, PageMode } from './page/page-methods';
import { ThreadInteraction, WatchStatus } from './watch';

/**
 * What the service worker pushes to the side panel (event `panel.state`), and what the panel may
 * ask of the worker. The panel renders only from these pushes; it never polls.
 */
export const LinkStatus = z.object({
  state: z.enum(['connecting', 'connected', 'disconnected', 'incompatible']),
  detail: z.string().optional(),
  hostVersion: z.string().optional(),
  hostPid: z.number().optional(),
  /** The host's command form, last known (HostForm, lib/protocol/identity.ts; lib/worker/link/native-link.ts). */
  form: z.object({ command: z.string(), home: z.string().optional() }).optional(),
  since: z.number(),
  failures: z.number(),
});

export const ActivityEntry = z.object({
  id: z.string(),
  clientId: z.string().optional(),
  clientName: z.string(),
  tool: z.string(),
  method: z.string(),
  summary: z.string().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  ok: z.boolean().optional(),
  /** A one-line result for a successful call (e.g. "mode: computer"). */
  result: z.string().optional(),
  /** "[CODE] message" of a failed call. */
  error: z.string().optional(),
});
export type ActivityEntry = z.infer<typeof ActivityEntry>;

/** The person's control over agents, kept in browser.storage.local and enforced by the worker. */
export const ControlSettings = z.object({
  /** An agent's prompt (page.ask) or mode switch (page.mode with a mode) waits for a click. */
  requireApproval: z.boolean(),
  /** Every acting method refuses with PERMISSION_DENIED. */
  readOnly: z.boolean(),
  /** How long an approval waits before the call fails with TIMEOUT. */
  approvalTimeoutSec: z.number().int().min(5).max(600),
  /**
   * Screenshots through the public door (the Agent API, `serve --public-url`), on top of the
   * browser grant every screenshot needs; off unless the person turns it on (lib/protocol/access.ts).
   */
  publicScreenshots: z.boolean(),
  /**
   * The library (thread list, other threads, lib/protocol/library/) through the public door; off
   * unless the person turns it on (PUBLIC_LIBRARY_SETTING).
   */
  publicLibrary: z.boolean(),
});
export type ControlSettings = z.infer<typeof ControlSettings>;
export const DEFAULT_SETTINGS: ControlSettings = { requireApproval: false, readOnly: false, approvalTimeoutSec: 120, publicScreenshots: false, publicLibrary: false };

/** An agent's call held until the person approves or denies it. */
export const PendingApproval = z.object({
  /** The request id (also the activity entry's id). */
  id: z.string(),
  clientName: z.string(),
  tool: z.string().optional(),
  method: z.string(),
  /** What the call would do, in words ("send the prompt “…”", "switch the mode to Computer"); a long text is clipped here. */
  what: z.string(),
  /**
   * The whole text the call would send (a prompt, a Computer task, a follow-up, a reply), never
   * clipped: the person approves all of it, so the panel shows all of it (scrollable) with its length.
   */
  text: z.object({ label: z.string(), body: z.string() }).optional(),
  /** The tab the call acts on, as it is when the call is held (or the thread, for a Computer thread). */
  target: z.string().optional(),
  /** Whether the call opens a new chat (and so leaves the conversation the tab shows). */
  newChat: z.boolean().optional(),
  requestedAt: z.number(),
  expiresAt: z.number(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

export const ThreadStatus = z.enum(['working', 'waiting', 'done', 'error', 'unknown']);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

/** A conversation the panel lists: started by an agent, open in the page, or linked from it. */
export const ThreadEntry = z.object({
  /** origin + path of the conversation, or `ask:<request id>` until an agent's ask has a URL. */
  key: z.string(),
  title: z.string(),
  url: z.string().optional(),
  status: ThreadStatus,
  latestStep: z.string(),
  error: z.string().optional(),
  /** The MCP client that started it; absent for threads only seen in the page. */
  startedBy: z.string().optional(),
  updatedAt: z.number().optional(),
  /** Open in the driven Perplexity tab right now. */
  current: z.boolean(),
  interactions: z.array(ThreadInteraction),
  /** Computer threads (the threads.* family): the thread's id and its latest event (`complete`, `ask_user_question`, …). */
  threadId: z.string().optional(),
  event: z.string().optional(),
});
export type ThreadEntry = z.infer<typeof ThreadEntry>;

/** The page's mode as the panel shows it. */
export const ModeView = z.object({
  current: PageMode.nullable(),
  /** Why the mode is unknown, when it is. */
  detail: z.string().optional(),
  /** A switch in flight (from the panel or an agent). */
  switching: PageMode.optional(),
  /** The last switch that failed, in words. */
  error: z.string().optional(),
});
export type ModeView = z.infer<typeof ModeView>;

/** The last call that failed because a probe of the selector set matched nothing. */
export const PageProblem = z.object({
  method: z.string(),
  /** The probe that missed (`composer`), from the message. */
  probe: z.string(),
  /** `composer: none of … matched on https://… (selector set …)`. */
  message: z.string(),
  at: z.number(),
});
export type PageProblem = z.infer<typeof PageProblem>;

/** Data packs (selector sets, thread readers) added as files, the readers in use, and the files that could not be used. */
export const PackView = z.object({
  added: z.array(z.object({ kind: z.string(), name: z.string(), source: z.string() })),
  readers: z.array(z.object({ kind: z.string(), noun: z.string(), name: z.string(), source: z.string() })),
  problems: z.array(z.object({ source: z.string(), reason: z.string() })),
});
export type PackView = z.infer<typeof PackView>;

/** A repair in use in the driven tab (lib/worker/calls/repairs.ts): what it replaced, on which page, and its pack. */
export const RepairView = RepairInfo.extend({ tabId: z.number().int() });
export type RepairView = z.infer<typeof RepairView>;

export const PanelState = z.object({
  link: LinkStatus,
  profile: ProfileInfo,
  browser: BrowserInfo,
  extensionVersion: z.string(),
  clients: z.array(AttachedClient),
  perplexityTab: PerplexityTabStatus.nullable(),
  mode: ModeView,
  pageStatus: WatchStatus.nullable(),
  threads: z.array(ThreadEntry),
  activity: z.array(ActivityEntry),
  settings: ControlSettings,
  /** The optional permission for screenshots and for reading tabs that are not Perplexity (TAB_ACCESS_GRANT in lib/protocol/urls.ts). */
  otherTabs: z.object({ allowed: z.boolean() }),
  approvals: z.array(PendingApproval),
  packs: PackView,
  pageProblem: PageProblem.nullable(),
  /** The repair the driven tab reads through, if any (issue 24). */
  repair: RepairView.nullable().optional(),
  /** Why the Perplexity tab has no comet-relay page script (a policy block, site access off, …), in the one set of words. */
  pageAccess: PageAccessWords.nullable(),
});
export type PanelState = z.infer<typeof PanelState>;

const Empty = z.object({}).strict();

export const panelMethods = {
  'panel.reconnect': { params: Empty, result: Empty },
  'panel.clearActivity': { params: Empty, result: Empty },
  /** Renames this browser profile; the worker reconnects so the host records the new label. */
  'panel.renameProfile': { params: z.object({ label: z.string().trim().min(1).max(200) }), result: Empty },
  /** Switches the page's mode through page.mode, the same request comet_mode sends. */
  'panel.setMode': { params: z.object({ mode: z.enum(PAGE_MODES) }), result: z.object({ mode: PageMode.nullable() }) },
  /** Opens a perplexity.ai conversation in the driven tab and brings that tab forward. */
  'panel.openThread': { params: z.object({ url: z.string().min(1).max(2000) }), result: Empty },
  /** The thread at `url` whole (library.thread) as a Markdown file and its name: the panel saves it (*Export as Markdown*). */
  'panel.exportThread': { params: z.object({ url: z.string().min(1).max(2000) }), result: z.object({ fileName: z.string(), markdown: z.string() }) },
  /** Answers what a thread waits on (forwarded to the page as page.respond). */
  'panel.respond': {
    params: z.object({
      threadKey: z.string(),
      interactionId: z.string().min(1).max(200),
      reply: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('answer'), text: z.string().trim().min(1).max(10_000) }),
        z.object({ kind: z.literal('answers'), answers: z.record(z.string().max(10_000), z.string().trim().min(1).max(10_000)) }),
        z.object({ kind: z.literal('approve'), reason: z.string().max(2000) }),
        z.object({ kind: z.literal('deny'), reason: z.string().max(2000) }),
        z.object({ kind: z.literal('connected') }),
      ]),
    }),
    result: Empty,
  },
  /** The person's decision on a held call. */
  /** `requestedAt`: the card's own, so a click drawn for one hold never settles a newer call under the same id. */
  'panel.decide': { params: z.object({ id: z.string(), approve: z.boolean(), requestedAt: z.number().optional() }), result: Empty },
  'panel.setSettings': { params: ControlSettings.partial().strict(), result: ControlSettings },
  /** Drops the repair the driven tab reads through (the reader misses again, and no repair is tried again on that page load and layout). */
  'panel.undoRepair': { params: Empty, result: z.object({ undone: z.boolean() }) },
} as const;
export type PanelMethod = keyof typeof panelMethods;
export type PanelParams<M extends PanelMethod> = z.input<(typeof panelMethods)[M]['params']>;
