/**
 * Data shared by the simulated perplexity.ai's server side (site.ts, scenarios.ts) and its page
 * script (client/*). Pure types: nothing here may import Node or DOM code.
 */
import type { ConnectorSpec, QuestionSpec, TaskEvent, TurnAttachment, TurnSettings } from './tasks/task-types';

export type { AssetSpec, BlockSpec, ConnectorSpec, QuestionSpec, TaskEvent, TurnAttachment, TurnSettings } from './tasks/task-types';

import type { SimHooksName } from './hooks';
import type { SimLanguage } from './locales';

export type Generation = 'A' | 'B';

/**
 * How a thread page lays its turns out (the composer is the generation's):
 * - `blocks-2026-08`: Aug–Oct 2026, as the live site serves it (a WebMCP capture of August 2026 and reports
 *   up to October): the question in its own `[data-workflow-entry]` block, the steps, the answer
 *   `[data-workflow-final-text]` and its action row as *siblings* in one flat list; the answer block mounts
 *   with the first token, the action row when it is done; one Answer / Links / Images tablist in the
 *   thread header; only the latest five answers mounted.
 * - `markdown-2026-02`: February 2026 (the obsidian-AI-exporter captures of 2 and 27 February): a
 *   `group/query` question, a steps button, the answer in `div#markdown-content-N .prose`, citations
 *   wrapping `<a href>`, the same header tablist.
 * - `sessions-2026-09`: Sep–Oct 2026 (the captures of 26 and 27 September): sibling blocks as in
 *   `blocks-2026-08`, but the question block starts with the time and Edit/Copy query before the
 *   question's rendered text, and the answer block holds the steps header ("Researched") above the prose
 *   and the action row (with Fork and "N sources") below it.
 * - `turn-2026-04`: what this sim served before the captures (the answer inside the turn element), kept
 *   because no capture shows it and readers should not come to depend on it.
 */
export type ThreadLayout = 'blocks-2026-08' | 'markdown-2026-02' | 'turn-2026-04' | 'sessions-2026-09';
/** A site's layouts: one for every thread, or `mixed-2026-08` (threads alternate blocks / markdown, as in August 2026). */
export type SimLayout = ThreadLayout | 'mixed-2026-08';
export const THREAD_LAYOUTS: readonly ThreadLayout[] = ['blocks-2026-08', 'markdown-2026-02', 'turn-2026-04', 'sessions-2026-09'];
export const SIM_LAYOUTS: readonly SimLayout[] = [...THREAD_LAYOUTS, 'mixed-2026-08'];

/** Locale-independent mode ids, as the comet_* tools name them. `standard` = no mode chosen. */
export type ModeId = 'standard' | 'deep-research' | 'model-council' | 'create' | 'learn' | 'review' | 'computer';

/** One source an answer cites. Sources without `url` are title-only (uploaded files, internal notes). */
export interface Source {
  title: string;
  /** Short name shown on the citation chip, e.g. "reuters". */
  name: string;
  url?: string;
  snippet?: string;
}

/** Inline content of a paragraph or list item. A citation names one or more sources (indexes into `sources`). */
export type Inline = string | { cite: number[] } | { code: string } | { bold: string };

export type Block =
  | { type: 'h2' | 'h3'; text: string }
  | { type: 'p'; inlines: Inline[] }
  | { type: 'ul' | 'ol'; items: Inline[][] }
  | { type: 'code'; lang: string; code: string }
  /** A nested `.prose` inside the answer (a callout / embedded card): a trap for readers that count `.prose` twice. */
  | { type: 'nested'; title: string; blocks: Block[] };

/**
 * What happens in a turn, in time order. `t` is milliseconds after the turn started, already divided by
 * the site's speed. The client plays these with one timer at a time and nothing when idle. Computer
 * tasks add their kinds (tasks/task-types.ts), drawn by client/task.ts and built in tasks/tasks.ts.
 */
export type ScriptEvent =
  | { t: number; type: 'step'; icon: string; text: string }
  | { t: number; type: 'tokens'; upto: number }
  | { t: number; type: 'finish' }
  | { t: number; type: 'error'; message: string }
  /**
   * Computer mode: the agent asks the person something and pauses until the reply arrives (POST
   * /_sim/api/reply). What follows comes from the scenario's `resume`, appended at reply time.
   * Named after the Perplexity Computer server's events `ask_user_question` / `confirm_action`.
   */
  | InteractionEvent
  /** Computer tasks (plan, files, sleep, the blocks a turn can end on): declared in tasks/task-types.ts. */
  | TaskEvent;

export interface InteractionEvent {
  t: number;
  type: 'interaction';
  kind: 'ask_user_question' | 'confirm_action' | 'auth_required';
  /** The question, or the action to confirm, or what the sign-in is for. */
  prompt: string;
  /** Suggested answers of a question (each a button that sends it). */
  options?: string[];
  /** The page's own id of this prompt (the Computer server's followup_uuid). Set by task scenarios. */
  id?: string;
  /** Several questions in one box (answered together with one Submit); `prompt` is then the box's title. */
  questions?: QuestionSpec[];
  /** auth_required: the connector and its sign-in URL. */
  connector?: ConnectorSpec;
  /** Offered but not waited on (an optional sign-in): shown, but the script does not pause. */
  optional?: boolean;
  /** The service skips the question by itself after this long (ms, already scaled by speed). */
  expiresInMs?: number;
}

/** The person's reply to a turn's interaction. */
export type TurnReply =
  | { kind: 'answer'; text: string }
  | { kind: 'approve' }
  | { kind: 'deny' }
  /** Answers to a box of several questions, by question id. */
  | { kind: 'answers'; answers: Record<string, string> }
  /** "I've connected": the sign-in is done. */
  | { kind: 'connected' }
  /** The question expired and the service went on without an answer. */
  | { kind: 'skip' };

export interface TurnScript {
  events: ScriptEvent[];
  answer: Block[];
  sources: Source[];
}

export interface TurnData {
  index: number;
  query: string;
  scenario: string;
  mode: ModeId;
  model: string;
  /** Server clock (Date.now()) when the turn started; the client plays the script from here. */
  startedAt: number;
  script: TurnScript;
  /** Set when the user pressed Stop: how many script events had been applied. */
  stoppedAfter: number | null;
  /** The reply to the turn's interaction, once given (its continuation is already in `script`). */
  reply?: TurnReply & { at: number };
  /** Replies by interaction id, while several interactions wait at once (the continuation comes with the last). */
  replies?: Record<string, TurnReply & { at: number }>;
  /** Files attached in the composer for this turn (what the server received). */
  attachments?: TurnAttachment[];
  /** Computer settings chosen for this turn (mode, or model and effort). */
  settings?: TurnSettings;
  /** Stable id of the turn (the thread JSON's entry uuid). */
  uuid?: string;
}

export type ThreadKind = 'search' | 'copilot' | 'computer';

export interface ThreadData {
  id: string;
  slug: string;
  kind: ThreadKind;
  /** Path of the thread page, e.g. `/search/{slug}` or `/computer/tasks/{id}`. */
  path: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  turns: TurnData[];
  /** Started inside a Project (projects_list's project_uuid), and who may see it. */
  projectUuid?: string;
  projectVisibility?: 'private' | 'project';
  /** How its page lays the turns out (absent: the site's layout). */
  layout?: ThreadLayout;
}

export interface ThreadSummary {
  path: string;
  title: string;
  snippet: string;
  kind: ThreadKind;
  updatedAt: number;
  /** Render the title twice in nested spans (innerText reads "Rust vs GoRust vs Go"), like some real rows. */
  doubledTitle: boolean;
}

export type PageData =
  | { kind: 'home' }
  | { kind: 'thread'; thread: ThreadData }
  | { kind: 'library'; threads: ThreadSummary[] }
  | { kind: 'sidecar'; thread: ThreadData | null }
  /** `broadcast`: a message the page posts on BroadcastChannel('pplx-sim') (a connector sign-in tells the task's page). */
  | { kind: 'static'; title: string; text: string; broadcast?: unknown }
  /** A Project's page: a composer whose asks start threads inside the project. */
  | { kind: 'project'; project: { uuid: string; name: string; description: string } }
  | { kind: 'not-found' };

/**
 * Variants of a page that the real site has shown, each off by default and switched on per site
 * (SimOptions.variants). Rendering code asks for them through client/variants.ts.
 */
export interface PageVariants {
  /**
   * Generation A: a citation of several sources is one badge ("reuters+3") with no URL of its own;
   * clicking it expands its sources in place, as `<a href>` badges right after it (click again folds them).
   */
  groupedBadges?: boolean;
  /** The Answer / Sources tabs and their panels carry no ids: no `aria-controls`, no `aria-labelledby`. */
  unlinkedTabs?: boolean;
  /** Generation A: the chosen mode shows in markup no built-in set knows (a tag, not the removable pill). */
  unknownModePill?: boolean;
  /**
   * The mode goes back to Search at every page load, as on the live site after every navigation
   * (jcalderonzumba/Perplexity-Comet-MCP, Sep 2026; lib/selectors/README.md, "Mode controls").
   * Without it the sim keeps the mode for the tab, as it always did.
   */
  modeResets?: boolean;
}

export interface BootData {
  generation: Generation;
  /** The layout of thread pages without one of their own (ThreadData.layout). Absent: turn-2026-04. */
  layout?: ThreadLayout;
  /** Page variants in effect (absent: none). */
  variants?: PageVariants;
  /** The language of the page's labels (locales/). */
  language: SimLanguage;
  /** Which names the page's main hooks have (hooks.ts). */
  hooks: SimHooksName;
  /** The site's current default scenario (what an ask without `#scenario:` gets). */
  scenario: string;
  /**
   * The composer's dictation is on when the page loads (SimOptions.dictation, site.setDictation, or
   * `?dictation=on` in the page's URL): its microphone button shows "Stop dictation" with the stop icon.
   */
  dictation?: boolean;
  /** Answers come through the page's fetch of the ask stream (SimOptions.askStream). */
  askStream?: boolean;
  /** A turn asked in this page is drawn this many ms behind its script and stream (SimOptions.paintLagMs). */
  paintLagMs?: number;
  speed: number;
  /** Server clock at render time (the client corrects for any skew with it). */
  now: number;
  page: PageData;
}

export interface AskRequest {
  query: string;
  mode: ModeId;
  model: string;
  /** Follow-up in an existing thread (its slug or id). */
  thread?: string;
  /** Asked from the sidecar: the new thread lives under /sidecar/… */
  sidecar?: boolean;
  /** Ids of files uploaded through the composer's file input (POST /_sim/api/upload). */
  attachments?: string[];
  settings?: TurnSettings;
  /** Asked from a Project's page. */
  project?: { uuid: string; visibility: 'private' | 'project' };
}

export interface AskResponse {
  thread: ThreadData;
  turn: TurnData;
  /** The site's default scenario at the time of the ask. */
  siteScenario: string;
  now: number;
}

/** Window hook for tests and benchmarks (never used by the extension, which reads only the DOM). */
export interface SimEvent {
  /** `ask-stream-ended`: the page's own read of a turn's ask stream reached its end (issue 30); `ask-stream-failed`: it failed first (a cut, an abort). */
  type: 'turn-started' | 'step' | 'answer-finished' | 'ask-stream-ended' | 'ask-stream-failed' | 'stopped' | 'error' | 'waiting' | 'replied' | 'sleeping' | 'blocked' | 'files';
  turn: number;
  at: number;
}

export interface SimHook {
  generation: Generation;
  scenario: string;
  events: SimEvent[];
  /** What the composer on screen holds in its editor's model (what Submit would send), for tests. */
  composerText?: () => string;
}
