/**
 * Data shared by the simulated perplexity.ai's server side (site.ts, scenarios.ts) and its page
 * script (client/*). Pure types: nothing here may import Node or DOM code.
 */

import type { SimHooksName } from './hooks';
import type { SimLanguage } from './locales';

export type Generation = 'A' | 'B';

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
 * the site's speed. The client plays these with one timer at a time and nothing when idle.
 *
 * Extension point: computer-mode task scenarios (the agent asks a question, asks for confirmation or a
 * sign-in, sleeps, fails, produces files) will add event kinds here (e.g. `{ type: 'ask' … }`,
 * `{ type: 'confirm' … }`, `{ type: 'files' … }`) plus their rendering in client/thread.ts
 * (`applyEvent`, which ignores kinds it does not know) and their builders in scenarios.ts.
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
  | InteractionEvent;

export interface InteractionEvent {
  t: number;
  type: 'interaction';
  kind: 'ask_user_question' | 'confirm_action';
  /** The question, or the action to confirm. */
  prompt: string;
  /** Suggested answers of a question (each a button that sends it). */
  options?: string[];
}

/** The person's reply to a turn's interaction. */
export type TurnReply = { kind: 'answer'; text: string } | { kind: 'approve' } | { kind: 'deny' };

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
  | { kind: 'static'; title: string; text: string }
  | { kind: 'not-found' };

export interface BootData {
  generation: Generation;
  /** The language of the page's labels (locales/). */
  language: SimLanguage;
  /** Which names the page's main hooks have (hooks.ts). */
  hooks: SimHooksName;
  /** The site's current default scenario (what an ask without `#scenario:` gets). */
  scenario: string;
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
  type: 'turn-started' | 'step' | 'answer-finished' | 'stopped' | 'error' | 'waiting' | 'replied';
  turn: number;
  at: number;
}

export interface SimHook {
  generation: Generation;
  scenario: string;
  events: SimEvent[];
}
