/**
 * Scripted scenarios of the simulated perplexity.ai. A scenario turns a question into a TurnScript:
 * timed step rows, a streamed answer, and how the turn ends. Times below are at speed 1 and are divided
 * by the site's speed when the script is built.
 *
 * Choosing a scenario: a prompt containing `#scenario:<name>` (e.g. "compare X and Y #scenario:long")
 * gets that scenario; otherwise the site's current scenario (option `scenario`, or `setScenario`).
 * An unknown name in a prompt falls back to the site's scenario.
 *
 * Computer-mode tasks: 'task-question' and 'task-confirm' emit an `interaction` event (types.ts) where
 * the turn pauses until the person replies (POST /_sim/api/reply); the scenario's `resume` then builds
 * what follows, with times counted from the reply, and the server appends it to the turn's script.
 *
 * The computer-task scenarios of the Computer server's events (`computer-*`, `research-clarify`) live in
 * tasks/tasks.ts; their event kinds (plan, files, sleep, block) in tasks/task-types.ts. `ctx.mode` tells a builder
 * whether the ask was made in computer mode.
 */
import { answerTokens } from './answer';
import { TASK_SCENARIOS } from './tasks/tasks';
import { I, p, Timeline } from './timeline';
import type { Block, ModeId, Source, TurnReply, TurnScript } from './types';

export interface ScenarioContext {
  query: string;
  mode: ModeId;
  /** Fresh ids for the page's own objects (question ids, assets…). Default: random UUIDs. */
  newId?: () => string;
  /** Speed the script is built for (builders that want a wall-clock length multiply by it). */
  speed?: number;
  /** computer-long: how long the task runs, in wall-clock ms. */
  longTaskMs?: number;
}

export interface ScenarioDef {
  description: string;
  build(ctx: ScenarioContext): TurnScript;
  /**
   * For scenarios that pause on an `interaction` event: what happens after the reply. Event times
   * count from the reply; the answer and sources replace the turn's. When several interactions
   * waited at once, `replies` holds each one's reply by id and `reply` is the last.
   */
  resume?(ctx: ScenarioContext, reply: TurnReply, replies: Record<string, TurnReply>): TurnScript;
  /** The scenario an untagged follow-up in the same thread gets (a task continued after a block). */
  followUp?: string;
}

// ---------------------------------------------------------------------------------------------------
// Sources

const POOL = {
  reuters: { title: 'Markets wrap: stocks edge higher as investors weigh data', name: 'reuters', url: 'https://www.reuters.com/markets/markets-wrap-2026-10-02/' },
  wikipedia: { title: 'Model Context Protocol - Wikipedia', name: 'wikipedia', url: 'https://en.wikipedia.org/wiki/Model_Context_Protocol' },
  github: { title: 'modelcontextprotocol/specification', name: 'github', url: 'https://github.com/modelcontextprotocol/specification' },
  nytimes: { title: 'How AI assistants browse the web for you', name: 'nytimes', url: 'https://www.nytimes.com/2026/09/14/technology/ai-browsers.html' },
  arxiv: { title: 'Tool use in large language models: a survey', name: 'arxiv', url: 'https://arxiv.org/abs/2604.01234' },
  mdn: { title: 'Using the Fetch API - Web APIs | MDN', name: 'mozilla', url: 'https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API/Using_Fetch' },
  bbc: { title: 'Browser agents explained', name: 'bbc', url: 'https://www.bbc.com/news/technology-68000000' },
  nature: { title: 'Benchmarks for retrieval-augmented generation', name: 'nature', url: 'https://www.nature.com/articles/s41586-026-01234-5' },
  stackoverflow: { title: 'How do I wait for an element to stop changing?', name: 'stackoverflow', url: 'https://stackoverflow.com/questions/71234567/wait-for-element-to-stop-changing' },
  verge: { title: 'Perplexity launches Comet, its AI browser', name: 'theverge', url: 'https://www.theverge.com/2026/7/9/perplexity-comet-browser' },
  python: { title: 'asyncio — Asynchronous I/O — Python 3 documentation', name: 'python', url: 'https://docs.python.org/3/library/asyncio.html' },
  rust: { title: 'The Rust Programming Language', name: 'rust-lang', url: 'https://doc.rust-lang.org/book/' },
} satisfies Record<string, Source>;

/** A source with no URL (an uploaded file): its title is all there is. */
export const TITLE_ONLY_SOURCE: Source = { title: 'Team notes, October planning (uploaded file)', name: 'notes' };

export function stripScenarioTag(query: string): string {
  return query.replace(/\s*#scenario:[a-z0-9-]+/gi, '').trim();
}

function shortQuery(query: string): string {
  const q = stripScenarioTag(query) || 'your question';
  return q.length > 48 ? `${q.slice(0, 47)}…` : q;
}

/** The usual opening steps of a search turn; returns the time after them. */
function searchSteps(tl: Timeline, query: string, sources: Source[], gap = 130): number {
  const first = sources.find((s) => s.url);
  const host = first?.url ? new URL(first.url).hostname.replace(/^www\./, '') : 'the web';
  tl.step(0, I.prepare, 'Preparing to assist…')
    .step(gap, I.search, `Searching "${shortQuery(query)}"`)
    .step(gap * 2, I.review, 'Reviewing sources')
    .step(gap * 3, I.read, `Reading ${host}`)
    .step(gap * 4, I.found, `Found ${sources.length} sources`);
  return gap * 4 + 60;
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

function shortScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.reuters, POOL.wikipedia, POOL.github, POOL.nytimes];
  const answer: Block[] = [
    p(
      `Here is a short answer to “${shortQuery(ctx.query)}”.`,
      ' The simulated site streams this reply in a few chunks so that a reader can watch it grow.',
      { cite: [0] },
      ' It cites its sources inline, and one citation groups two of them together.',
      { cite: [1, 2] },
    ),
    p('Nothing else happens after this last sentence, which ends the answer.', { cite: [3] }),
  ];
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  const n = answerTokens(answer);
  tl.stream(t, 1000, 0, n, 8).finish(1000);
  return { events: tl.events, answer, sources };
}

function keywordsScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.stackoverflow, POOL.mdn, POOL.nytimes];
  const answer: Block[] = [
    { type: 'h2', text: 'Reading, Searching, Preparing and Thinking' },
    p(
      `About “${shortQuery(ctx.query)}”: Reading is the first habit of a careful researcher.`,
      { cite: [0] },
      ' Searching comes next: a precise query narrows the field quickly.',
      ' Preparing notes before writing saves time later.',
      { cite: [1] },
      ' Thinking about the question again at the end catches mistakes.',
    ),
    {
      type: 'ul',
      items: [
        ['Reading: skim first, then read closely.'],
        ['Searching: use precise terms and quote exact phrases.'],
        ['Preparing: outline the answer before you write it.'],
        ['Thinking: check the reasoning, then check it again.', { cite: [2] }],
      ],
    },
    p(
      'Preparing to assist… Searching the web… Reading sources… Thinking… These words look like step rows,',
      ' but they are part of the finished answer, and the answer is complete.',
    ),
  ];
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  tl.stream(t, 1200, 0, answerTokens(answer), 10).finish(1200);
  return { events: tl.events, answer, sources };
}

const FILLER = [
  'The simulated answer keeps going so that readers must cope with long, structured text.',
  'Each paragraph is deterministic, which makes snapshots and length checks stable across runs.',
  'Headings, lists and citations are mixed in the way a real research answer would mix them.',
  'A reader that cuts answers at a fixed length would lose everything after this point.',
  'Line breaks between blocks matter: a list item is not part of the paragraph above it.',
  'Streaming reveals the answer word by word, in chunks, while the step rows stay collapsed.',
  'Nothing in this text is random, yet it is long enough to exceed any small buffer.',
  'Tables of numbers, code and prose all end up in the same container on the real page.',
];

function filler(seed: number, sentences: number): string {
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) out.push(FILLER[(seed * 3 + i * 5) % FILLER.length] as string);
  return out.join(' ');
}

function longAnswer(query: string): Block[] {
  const blocks: Block[] = [p(`A long report on “${shortQuery(query)}”, in many sections.`, { cite: [0] })];
  for (let s = 1; s <= 40; s++) {
    blocks.push({ type: 'h2', text: `Section ${s}: part ${s} of the report` });
    blocks.push(p(filler(s, 5), { cite: [s % 6] }, ` ${filler(s + 1, 2)}`));
    blocks.push({
      type: s % 2 ? 'ul' : 'ol',
      items: [1, 2, 3, 4].map((k) => [`Point ${s}.${k}: ${filler(s + k, 1)}`]),
    });
    if (s % 4 === 0) blocks.push({ type: 'h3', text: `Details of section ${s}` });
    blocks.push(p(filler(s + 2, 4), { cite: [(s + 1) % 6, (s + 3) % 6] }));
    if (s === 5) {
      blocks.push({
        type: 'code',
        lang: 'python',
        code: 'import asyncio\n\nasync def main():\n    await asyncio.sleep(1)\n    print("done")\n\nasyncio.run(main())',
      });
    }
    if (s === 10) {
      blocks.push({ type: 'nested', title: 'Summary card', blocks: [p('A nested prose block sits inside the answer here.', { cite: [2] })] });
    }
  }
  blocks.push(p('This is the last paragraph of the long report: END OF LONG ANSWER.'));
  return blocks;
}

function longScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.arxiv, POOL.nature, POOL.wikipedia, POOL.github, POOL.python, POOL.rust];
  const answer = longAnswer(ctx.query);
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  tl.stream(t, 3500, 0, answerTokens(answer), 120).finish(3500);
  return { events: tl.events, answer, sources };
}

function mediumAnswer(query: string): Block[] {
  return [
    p(`Answering “${shortQuery(query)}” takes a few paragraphs.`, { cite: [0] }, ` ${filler(1, 3)}`),
    p(filler(2, 4), { cite: [1] }),
    { type: 'ul', items: [[filler(3, 1)], [filler(4, 1), { cite: [2] }], [filler(5, 1)]] },
    p(filler(6, 3), ' This is where the answer ends.'),
  ];
}

function slowScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.bbc, POOL.verge, POOL.nytimes];
  const answer = mediumAnswer(ctx.query);
  const n = answerTokens(answer);
  const a = Math.round(n * 0.4);
  const b = Math.round(n * 0.75);
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  // Two silent pauses (2.5 s and 2.2 s at speed 1) in the middle of the stream, then it finishes.
  tl.stream(t, 1200, 0, a, 6).stream(3700, 4200, a, b, 4).stream(6400, 7000, b, n, 4).finish(7000);
  return { events: tl.events, answer, sources };
}

function errorScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.reuters, POOL.bbc];
  const tl = new Timeline();
  tl.step(0, I.prepare, 'Preparing to assist…').step(150, I.search, `Searching "${shortQuery(ctx.query)}"`);
  tl.error(700, 'Something went wrong. Try again.');
  return { events: tl.events, answer: [], sources };
}

function stoppedScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.mdn, POOL.stackoverflow, POOL.github];
  const answer = mediumAnswer(ctx.query);
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  // Streams 40% of the answer, then keeps "working" forever: only Stop ends this turn.
  tl.stream(t, 1100, 0, Math.round(answerTokens(answer) * 0.4), 6);
  return { events: tl.events, answer, sources };
}

function deepResearchScenario(ctx: ScenarioContext): TurnScript {
  const sources = [POOL.arxiv, POOL.nature, POOL.wikipedia, POOL.github, POOL.nytimes, POOL.verge, POOL.mdn, POOL.python];
  const q = shortQuery(ctx.query);
  const rows: [string, string][] = [
    [I.blocks, 'Identifying the key questions'],
    [I.blocks, 'Breaking the topic into 4 parts'],
    [I.worldSearch, `Searching the web for "${q}"`],
    [I.worldSearch, 'Searching for "recent benchmarks 2026"'],
    [I.read, 'Reading arxiv.org'],
    [I.read, 'Reading nature.com'],
    [I.bolt, 'Insight: most sources agree on the basics'],
    [I.worldSearch, 'Searching for "known limitations"'],
    [I.read, 'Reading en.wikipedia.org'],
    [I.read, 'Reading github.com'],
    [I.blocks, 'Identifying gaps in the evidence'],
    [I.worldSearch, 'Searching for "independent evaluations"'],
    [I.read, 'Reading nytimes.com'],
    [I.read, 'Reading theverge.com'],
    [I.bolt, 'Insight: evaluations disagree on latency'],
    [I.worldSearch, 'Searching for "implementation examples"'],
    [I.read, 'Reading developer.mozilla.org'],
    [I.read, 'Reading docs.python.org'],
    [I.bolt, 'Insight: a small example settles the question'],
    [I.found, `Found ${sources.length} sources`],
  ];
  const answer: Block[] = [
    { type: 'h2', text: 'Overview' },
    p(`This deep research report on “${q}” combines ${sources.length} sources.`, { cite: [0, 1] }, ` ${filler(7, 2)}`),
    { type: 'h2', text: 'Findings' },
    {
      type: 'ol',
      items: [
        ['Most sources agree on the basics.', { cite: [2] }],
        ['Evaluations disagree on latency.', { cite: [4, 5] }],
        ['A small example settles the question.', { cite: [7] }],
      ],
    },
    { type: 'h3', text: 'Example' },
    {
      type: 'code',
      lang: 'typescript',
      code: "const res = await fetch('https://example.com/api');\nconst data = await res.json();\nconsole.log(data.items.length);",
    },
    { type: 'nested', title: 'Key takeaway', blocks: [p('Measure first, then decide.', { cite: [3] })] },
    { type: 'h2', text: 'Conclusion' },
    p(filler(4, 2), { cite: [6, 0] }, ' That concludes the report.'),
  ];
  // Its plan, goal by goal, as Deep Research's stream and thread JSON carry one (2026-07-31: `plan_block.goals`); the
  // events in time order (a stop counts them).
  const goalDoneAfterStep = new Map([
    [1, 0],
    [9, 1],
    [17, 2],
    [18, 3],
  ]);
  const tl = new Timeline();
  rows.forEach(([icon, text], i) => {
    tl.step(i * 150, icon, text);
    if (i === 0) tl.plan(100, ['Frame the question', 'Search the web', 'Read the sources', 'Draw the insights']);
    const goal = goalDoneAfterStep.get(i);
    if (goal !== undefined) tl.goalDone(i * 150 + 100, goal);
  });
  const t = rows.length * 150 + 100;
  tl.stream(t, t + 1400, 0, answerTokens(answer), 12).finish(t + 1400);
  return { events: tl.events, answer, sources };
}

function groupedCitationsScenario(ctx: ScenarioContext): TurnScript {
  // 0 reuters, 1 wikipedia, 2 github, 3 nytimes, 4 arxiv, 5 title-only, 6 bbc
  const sources = [POOL.reuters, POOL.wikipedia, POOL.github, POOL.nytimes, POOL.arxiv, TITLE_ONLY_SOURCE, POOL.bbc];
  const answer: Block[] = [
    p(
      `On “${shortQuery(ctx.query)}”, grouped citations collect several sources behind one chip.`,
      { cite: [0, 1, 2] },
      ' Groups can overlap: this one shares a source with the previous group.',
      { cite: [1, 3] },
      ' A group can hold a title-only entry that has no URL at all.',
      { cite: [4, 5, 2] },
    ),
    {
      type: 'ul',
      items: [
        ['Single sources still appear on their own.', { cite: [6] }],
        ['The first source comes back in another group.', { cite: [3, 0] }],
      ],
    },
    p('Every source is listed in the Links tab as well.'),
  ];
  const tl = new Timeline();
  const t = searchSteps(tl, ctx.query, sources);
  tl.stream(t, 1200, 0, answerTokens(answer), 8).finish(1200);
  return { events: tl.events, answer, sources };
}

// Computer-mode tasks that wait on the person

const TASK_QUESTION = 'Which city should I plan this for?';
const TASK_QUESTION_OPTIONS = ['Paris', 'Lyon', 'Marseille'];
export const TASK_CONFIRM = 'Book the table at Chez Nous for 2 on Friday 19:30?';

function taskQuestionScenario(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.step(0, I.prepare, 'Preparing to assist…')
    .step(150, I.blocks, `Planning "${shortQuery(ctx.query)}"`)
    .step(300, I.worldSearch, 'Opening a browser')
    .step(450, I.bolt, 'Asking you a question')
    .ask(550, TASK_QUESTION, TASK_QUESTION_OPTIONS);
  return { events: tl.events, answer: [], sources: [] };
}

function taskQuestionResume(ctx: ScenarioContext, reply: TurnReply): TurnScript {
  const text = reply.kind === 'answer' ? reply.text : reply.kind;
  const sources = [POOL.wikipedia, POOL.nytimes];
  const answer: Block[] = [
    p(`You answered “${text}”, so the plan for “${shortQuery(ctx.query)}” is for ${text}.`, { cite: [0] }),
    {
      type: 'ul',
      items: [[`Day 1: walk the old town of ${text}.`], [`Day 2: museums and markets in ${text}.`, { cite: [1] }]],
    },
    p('The task is complete.'),
  ];
  const tl = new Timeline();
  tl.step(0, I.found, `Got your answer: ${text}`)
    .step(150, I.worldSearch, `Searching "${text} itinerary"`)
    .step(300, I.read, 'Reading nytimes.com');
  tl.stream(400, 900, 0, answerTokens(answer), 5).finish(900);
  return { events: tl.events, answer, sources };
}

function taskConfirmScenario(_ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.step(0, I.prepare, 'Preparing to assist…')
    .step(150, I.worldSearch, 'Opening chez-nous.example')
    .step(300, I.read, 'Checking availability for Friday')
    .step(450, I.found, 'Found a table for 2 at 19:30')
    .confirm(550, TASK_CONFIRM);
  return { events: tl.events, answer: [], sources: [] };
}

function taskConfirmResume(_ctx: ScenarioContext, reply: TurnReply): TurnScript {
  const approved = reply.kind === 'approve';
  const answer: Block[] = approved
    ? [p('I booked the table at Chez Nous for 2 on Friday at 19:30.'), p('Your confirmation number is CN-4821.')]
    : [p('I did not book the table at Chez Nous: you denied the action, so nothing was reserved.')];
  const tl = new Timeline();
  if (approved) tl.step(0, I.found, 'You approved the booking').step(150, I.click, 'Booking the table').step(300, I.found, 'Booking confirmed');
  else tl.step(0, I.found, 'You denied the booking');
  tl.stream(400, 800, 0, answerTokens(answer), 4).finish(800);
  return { events: tl.events, answer, sources: [] };
}

export const SCENARIOS: Record<string, ScenarioDef> = {
  short: { description: 'A few sentences with 3 citations (one grouped), ~1 s at speed 1.', build: shortScenario },
  long: { description: 'A 50,000+ character report with headings, lists, a code block and a nested prose block.', build: longScenario },
  keywords: { description: 'An answer whose prose contains "Reading", "Searching", "Preparing" and "Thinking".', build: keywordsScenario },
  slow: { description: 'A stream with pauses of 2.5 s and 2.2 s (speed 1) in the middle, then finishes (~7 s).', build: slowScenario },
  error: { description: 'Two steps, then an error message instead of an answer.', build: errorScenario },
  stopped: { description: 'Streams part of an answer, then works forever: only Stop ends it.', build: stoppedScenario },
  'deep-research': { description: '20 deep-research steps (blocks / world-search / bolt icons), then a report with code.', build: deepResearchScenario },
  'grouped-citations': { description: 'Several grouped name+N citations, overlapping URLs, a title-only entry.', build: groupedCitationsScenario },
  'task-question': {
    description: 'Computer task: 4 steps, then asks a question (free text or 3 suggested answers) and waits; the answer quotes the reply.',
    build: taskQuestionScenario,
    resume: taskQuestionResume,
  },
  'task-confirm': {
    description: 'Computer task: 4 steps, then asks to confirm a booking (Approve / Deny) and waits; finishes either way.',
    build: taskConfirmScenario,
    resume: taskConfirmResume,
  },
};

Object.assign(SCENARIOS, TASK_SCENARIOS);

export const SCENARIO_NAMES = Object.keys(SCENARIOS);

/** `#scenario:<name>` in a prompt, if it names a known scenario. */
export function scenarioFromPrompt(query: string): string | null {
  const m = /#scenario:([a-z0-9-]+)/i.exec(query);
  const name = m?.[1]?.toLowerCase();
  return name && name in SCENARIOS ? name : null;
}

/** Computer tasks and the research that asks first: a computer-mode ask gets one of these by default. */
export function isTaskScenario(name: string): boolean {
  return name.startsWith('computer-') || name.startsWith('task-');
}

/**
 * The scenario of an ask: the prompt's tag; else, in a thread whose last turn says how an untagged
 * follow-up continues, that; else the site's scenario, except that computer-mode asks get
 * `computer-complete` while the site's scenario is a search one.
 */
export function resolveScenario(query: string, siteScenario: string, mode: ModeId = 'standard', previous?: string): string {
  const tagged = scenarioFromPrompt(query);
  if (tagged) return tagged;
  const next = previous ? SCENARIOS[previous]?.followUp : undefined;
  if (next) return next;
  if (mode === 'computer' && !isTaskScenario(siteScenario)) return 'computer-complete';
  return siteScenario;
}

/** Times (and the durations inside events) divided by `speed`, then shifted by `offset` ms. */
function scaled(script: TurnScript, speed: number, offset = 0): TurnScript {
  const k = speed > 0 ? 1 / speed : 1;
  const events = script.events.map((e) => {
    const out = { ...e, t: offset + Math.round(e.t * k) };
    if (out.type === 'sleep') out.wakeInMs = Math.round(out.wakeInMs * k);
    if (out.type === 'interaction' && out.expiresInMs !== undefined) out.expiresInMs = Math.round(out.expiresInMs * k);
    return out;
  });
  return { ...script, events };
}

/** A scenario's continuation after a reply, its times divided by `speed` and shifted by `offset` ms. */
export function buildResume(
  name: string,
  ctx: ScenarioContext,
  reply: TurnReply,
  speed: number,
  offset: number,
  replies: Record<string, TurnReply> = {},
): TurnScript | null {
  const def = SCENARIOS[name];
  if (!def?.resume) return null;
  return scaled(def.resume({ speed, ...ctx }, reply, replies), speed, offset);
}

/** Builds a scenario's script with its times divided by `speed`. */
export function buildScript(name: string, ctx: ScenarioContext, speed: number): TurnScript {
  const def = SCENARIOS[name];
  if (!def) throw new Error(`unknown scenario "${name}" (known: ${SCENARIO_NAMES.join(', ')})`);
  return scaled(def.build({ speed, ...ctx }), speed);
}
