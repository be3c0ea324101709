import { z } from 'zod';
import { PROMPT_MAX } from '../limits';

/**
 * Methods that run in the content script of the Perplexity tab (reader and actions), with the
 * schemas of their params and results. methods.ts merges this map into the full method table.
 * The worker parses params at its edge and the Node client parses results at its own; the
 * content script itself imports none of this (it stays free of zod).
 */

export const PAGE_MODES = ['standard', 'deep-research', 'model-council', 'create', 'learn', 'review', 'computer'] as const;
export const PageMode = z.enum(PAGE_MODES);
export type PageMode = z.infer<typeof PageMode>;

const Empty = z.object({}).strict();
const Count = z.number().int().min(0);
const MaxLength = z.number().int().min(1).optional().describe('Cut the response to this many characters (then truncated: true)');

/** What a paused agent asks the person (kind named like the Computer server's events). */
export const WaitingFor = z.object({
  type: z.string(),
  text: z.string(),
  options: z.array(z.string()).optional(),
  /** Several questions answered together (Deep Research's clarifying questions), each with its choices. */
  questions: z.array(z.object({ id: z.string(), text: z.string(), options: z.array(z.string()).optional() })).optional(),
  /** When the service skips the questions by itself (ISO), if the page says. */
  expiresAt: z.string().optional(),
});

/** comet_poll's fields, name for name, then ours. */
/**
 * Where a turn was read: the page's own ask stream (lib/page/stream/stream-reading.ts), the thread JSON
 * (lib/worker/threads/json-answer.ts) or the page's text.
 */
export const AnswerSource = z.enum(['stream', 'json', 'page']);

export const PollResult = z.object({
  status: z.enum(['working', 'idle', 'completed']),
  steps: z.array(z.string()),
  currentStep: z.string(),
  response: z.string(),
  hasStopButton: z.boolean(),
  hasLoadingSpinner: z.boolean(),
  proseCount: Count.describe('Answers shown (the page mounts the latest five).'),
  turnCount: Count.describe('Turns, also those not shown: grows with each.'),
  /** -1 when the page has no turn. */
  lastTurnIndex: z.number().int().min(-1),
  questionText: z.string(),
  url: z.string(),
  truncated: z.boolean(),
  /** Length of the whole response, also when `response` was cut. */
  totalLength: Count,
  /** The error the current turn shows, if any. */
  error: z.string().optional(),
  /** With status `completed`: the turn was stopped (by comet_stop, the person, or as the thread JSON says), so `response` is cut off. */
  stopped: z.boolean().optional(),
  /** What the agent waits on the person for (a computer task's question, Deep Research asking first). */
  waitingFor: WaitingFor.optional(),
  /** Which source gave `response` and `status`: the page's ask stream, the thread's own JSON (the finished answer as Markdown) or the page's text. */
  answerSource: AnswerSource.optional(),
  /** Set when the page was read through a repair (issue 24): the one line that says so. */
  repair: z.string().optional(),
  /**
   * From the page only, never in a tool's result: the page showed no sign the selector set knows of
   * the turn's state (neither its stop control nor its action row), or its action row with no
   * answer block recognised. The SELECTOR_MISS text naming what was tried; the worker asks the
   * thread JSON, and fails with this text when the JSON cannot say either.
   */
  unconfirmed: z.string().max(8000).optional(),
});
export type PollResult = z.infer<typeof PollResult>;

/**
 * The turn a comet_wait follows, as page.ask's result names it (its submittedAt as askedAt, which binds the wait to
 * that ask's own stream of the page, issue 30): page.wait's binding, an MCP session's last ask, and the data of
 * page.ask's TIMEOUT for a prompt the page took with no turn showing yet.
 */
export const AskBinding = z.object({ turnIndex: Count, conversationUrl: z.string().max(4000), questionKey: z.string().max(1000), askedAt: z.number() });
export type AskBinding = z.infer<typeof AskBinding>;

/** What page.ask hands back: pass turnIndex, conversationUrl, questionKey and submittedAt (as askedAt) to page.wait to bind it to this question. */
export const AskResult = z.object({
  afterTurn: Count,
  baselineUrl: z.string(),
  /** The turn this prompt created, in the conversation at conversationUrl. */
  turnIndex: Count,
  conversationUrl: z.string(),
  /** The question's head in the canonical form the page reader compares (lib/page/answer/question.ts). */
  questionKey: z.string(),
  previousAnswerKey: z.string(),
  submittedAt: z.number(),
  via: z.enum(['button', 'enter']),
  /** A new chat's page was put back in the session's mode before typing (page.ask's `keepMode`): the line that says so. */
  modeNote: z.string().optional(),
});

/** `waiting`: the agent (computer mode) paused on a question or confirmation for the person. */
export const WaitStatus = z.enum(['completed', 'timeout', 'stalled', 'error', 'stopped', 'waiting']);

export const WaitResult = z.object({
  status: WaitStatus,
  response: z.string(),
  steps: z.array(z.string()),
  /** The last step while unfinished; empty once completed. */
  currentStep: z.string(),
  /** Index of the turn read, -1 if no turn after afterTurn ever appeared. */
  turnIndex: z.number().int().min(-1),
  questionText: z.string(),
  truncated: z.boolean(),
  totalLength: Count,
  hasStopButton: z.boolean(),
  error: z.string().optional(),
  /** With status `waiting`: what the agent asks the person (kind named like the Computer server's events). */
  waitingFor: WaitingFor.optional(),
  url: z.string(),
  elapsedMs: z.number().min(0),
  /** As in comet_poll's result (comet_wait's text does not show it). */
  answerSource: AnswerSource.optional(),
  /** As in comet_poll's result; comet_wait's text ends with it. */
  repair: z.string().optional(),
  /** As in PollResult: from the page only; the worker resolves it from the JSON or fails with it. */
  unconfirmed: z.string().max(8000).optional(),
});
export type WaitResult = z.infer<typeof WaitResult>;

export const ModeResult = z.object({
  /** null when it cannot be read without leaving the page (see detail). */
  mode: PageMode.nullable(),
  /** Where it was read; 'switched' for the result of a switch. */
  source: z.enum(['url', 'toggle', 'chip', 'menu', 'radio', 'pill', 'typeahead', 'unavailable', 'switched']),
  detail: z.string().optional(),
  /** Only for a switch. */
  previous: PageMode.nullable().optional(),
  changed: z.boolean().optional(),
  /** The page was re-read after switching and shows the requested mode. */
  verified: z.boolean().optional(),
  /** A `passive` read that would have to open the mode menu or type "/" (the worker then reads it in the mode's turn). */
  acts: z.literal(true).optional(),
});
export type ModeResult = z.infer<typeof ModeResult>;

export const Source = z.object({ title: z.string(), url: z.string().optional() });

export const ProbeReport = z.object({
  chosen: z.string(),
  confident: z.boolean(),
  chromeMajor: z.number().int().nullable(),
  url: z.string(),
  candidates: z.array(z.object({ name: z.string(), score: z.number(), present: z.array(z.string()), conflicting: z.array(z.string()) })),
});

export const pageMethods = {
  /** Which selector set the page matched, and the evidence. */
  'page.probe': { params: Empty, result: z.object({ name: z.string(), source: z.string().optional(), probe: ProbeReport }) },
  'page.poll': { params: z.object({ maxLength: MaxLength }), result: PollResult },
  'page.ask': {
    params: z.object({
      prompt: z.string().min(1).max(PROMPT_MAX),
      newChat: z.boolean().default(false),
      /**
       * With newChat: the mode this MCP session chose with comet_mode. Perplexity opens a new chat in Search; the
       * worker loads it only after the person's approval, then sets this mode again before typing.
       */
      keepMode: PageMode.optional(),
      /** How long an answer still being written may delay the typing (default 90 s). */
      busyWaitMs: z.number().int().min(0).max(600_000).optional(),
      /** How long the page has to show the new turn after Submit (default 10 s). */
      confirmMs: z.number().int().min(50).max(120_000).optional(),
    }),
    result: AskResult,
  },
  'page.wait': {
    params: z.object({
      timeoutMs: z.number().int().min(0).max(3_600_000).default(120_000),
      /** COMET_STALL_MS: no change this long while no stop button is visible → stalled. */
      stallMs: z.number().int().min(100).max(3_600_000).default(10_000),
      /** From page.ask's result (AskBinding): the wait follows that turn of that conversation, and no other. */
      ...AskBinding.partial().shape,
      /** The older binding (turns after this count); without any, the wait binds to the last ask made in that tab. */
      afterTurn: Count.optional(),
      /**
       * The caller asked nothing through comet-relay: wait on the page's latest turn, never on the last ask
       * another caller made in that tab (each MCP session's comet_wait is for its own comet_ask).
       */
      latest: z.boolean().optional(),
      baselineUrl: z.string().optional(),
      maxLength: MaxLength,
    }),
    result: WaitResult,
  },
  'page.stop': {
    params: Empty,
    result: z.object({ stopped: z.boolean(), confirmed: z.boolean(), message: z.string() }),
  },
  /** Reads the mode (mode omitted or null) or switches to it, like comet_mode. */
  'page.mode': { params: z.object({ mode: PageMode.nullable().optional(), passive: z.boolean().optional() }), result: ModeResult },
  'page.sources': {
    params: z.object({
      /** Open grouped citations ("reuters+2") one by one and read their popovers. */
      expand: z.boolean().default(true),
      /** Select the Sources tab if its panel is not rendered (the previous tab is restored). */
      openTab: z.boolean().default(true),
    }),
    /** `answerSource: 'stream'`: the last turn's own ask stream gave them (its final frame's web_results, numbered as cited). */
    result: z.object({
      sources: z.array(Source),
      grouped: Count,
      expanded: Count,
      fromTab: z.boolean(),
      /** How many sources the page states the turn has ("15 sources"), when it says. */
      stated: Count.optional(),
      repair: z.string().optional(),
      answerSource: AnswerSource.optional(),
    }),
  },
  'page.conversations': {
    params: Empty,
    result: z.object({ conversations: z.array(z.object({ title: z.string(), url: z.string() })) }),
  },
  /** A turn's Deep Research report card (lib/page/answer/report-card.ts): null when the page shows none there. */
  'page.report': {
    params: z.object({ turnIndex: z.number().int().min(0), url: z.string() }),
    result: z.object({ card: z.object({ title: z.string() }).nullable(), url: z.string() }),
  },
} as const;

const bullets = (steps: string[]) => steps.map((s) => `  - ${s}`).join('\n');

/**
 * comet_wait's response texts, from a page.wait result. Kept beside the schema so the fields
 * and the texts cannot drift apart.
 */
export function formatWaitText(r: WaitResult): string {
  const text = waitText(r);
  return r.repair ? `${text}\n\n${r.repair}` : text;
}

function waitText(r: WaitResult): string {
  const cut = r.truncated ? `\n\n[Truncated: showing ${r.response.length} of ${r.totalLength} characters.]` : '';
  if (r.status === 'completed') {
    if (!r.response.trim()) return 'Agent completed with no visible response.';
    const steps = r.steps.length ? `\n\nSteps:\n${bullets(r.steps)}` : '';
    return `${r.response}${cut}${steps}`;
  }
  // A stopped answer is cut off where it was stopped: an agent must not take it for a whole one (#20 of the 2026-12-02 review).
  if (r.status === 'stopped') {
    const steps = r.steps.length ? `\n\nSteps before it was stopped:\n${bullets(r.steps)}` : '';
    if (!r.response.trim()) return `Agent was stopped before it wrote an answer.${steps}`;
    return `Agent was stopped: the answer below is cut off where it was stopped, not complete.\n\n${r.response}${cut}${steps}`;
  }
  if (r.status === 'error') {
    return `Agent error: ${r.error ?? 'the page shows an error'}${r.response ? `\n\nPartial response:\n${r.response}${cut}` : ''}`;
  }
  if (r.status === 'waiting') {
    const asked = r.waitingFor?.text || r.currentStep || 'a question on the page';
    const several = (r.waitingFor?.questions?.length ?? 0) > 1;
    const options = several
      ? `\n${(r.waitingFor?.questions ?? []).map((q, i) => `${i + 1}. ${q.text}${q.options?.length ? ` (choices: ${q.options.join(' | ')})` : ''}`).join('\n')}`
      : r.waitingFor?.options?.length
        ? `\nSuggested answers: ${r.waitingFor.options.join(' | ')}`
        : '';
    const expires = r.waitingFor?.expiresAt ? `\nUnanswered, the questions are skipped at ${r.waitingFor.expiresAt}.` : '';
    const what = r.waitingFor?.type === 'confirm_action' ? 'approve or deny it' : 'answer it';
    const steps = r.steps.length ? `\n\nSteps so far:\n${bullets(r.steps)}` : '';
    const partial = r.response ? `\n\nPartial response:\n${r.response}${cut}` : '';
    return (
      `Agent is waiting for your input: ${asked}${options}${expires}\n\n` +
      `Ask the person to ${what} in the comet-relay side panel (or in the Perplexity tab), then call comet_wait again.${steps}${partial}`
    );
  }
  const head =
    r.status === 'timeout'
      ? 'Agent is still working after timeout.'
      : 'Agent stopped making progress (no change on the page and no stop button).';
  const steps = r.steps.length ? `\n\nSteps so far:\n${bullets(r.steps)}` : '';
  const partial = r.response ? `\n\nPartial response:\n${r.response}${cut}` : '';
  return `${head}${steps}${partial}`;
}

/**
 * Perplexity goes back to Search after every navigation: before an ask, the mode a session chose with comet_mode
 * is set again where the page dropped it (read first, so a page already in it costs no switch). One rule for the
 * tool (an ask on the page as it is) and the worker (an ask in a new chat, after the approval): returns the line
 * the result adds, or '' when nothing was switched; throws when it cannot be set again, since the prompt would
 * otherwise go out in a mode the agent did not choose.
 */
export async function modeAgain(
  call: (params: { mode?: PageMode }) => Promise<ModeResult>,
  chosen: PageMode | undefined,
  fail: (code: string, message: string) => Error,
): Promise<string> {
  if (!chosen) return '';
  let shown: string | null = null;
  try {
    shown = (await call({})).mode;
    if (shown === chosen) return '';
    const result = await call({ mode: chosen });
    if (result.changed === false) return '';
    const unconfirmed = result.verified === false ? ' (the page did not confirm it)' : '';
    return `\nThe page was in ${shown ?? 'a mode it does not show'} (Perplexity goes back to Search after every navigation), so this session's mode, ${chosen}, was set again before sending${unconfirmed}.`;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    const code = e.code ?? 'INTERNAL';
    const message = e.message ?? String(error);
    // No composer: the ask itself could not be sent either, and this miss is the one it would give.
    if (code === 'CANCELLED' || (code === 'SELECTOR_MISS' && message.startsWith('composer: '))) throw error;
    throw fail(
      code,
      `The prompt was not sent: this session chose ${chosen} mode with comet_mode, the page shows ${shown ?? 'no mode it can read'}, and setting ${chosen} again failed: ${message.replace(/\.$/, '')}. ` +
        'Choose a mode this page offers with comet_mode, then ask again.',
    );
  }
}
