/**
 * Computer-task scenarios of the simulated perplexity.ai (and the Deep Research answer that asks
 * first), one per event of the Perplexity Computer server's table. Times are at speed 1; durations
 * inside events (a sleep's wake time, a question's expiry) are scaled with them.
 *
 * Every task keeps a Todo list (its plan) and shows its tool steps; then it ends in one way:
 * an answer, files, a question or a confirmation (the turn pauses until the reply), a connector
 * sign-in, a block the person must clear (2FA, a form, credits, no access, an external wait), a
 * sleep, or an error. Follow-ups after a block continue the task (`followUp`).
 */
import { randomUUID } from 'node:crypto';
import { answerTokens } from '../answer';
import type { ScenarioContext, ScenarioDef } from '../scenarios';
import type { AssetSpec, QuestionSpec } from './task-types';
import { I, p, Timeline } from '../timeline';
import type { Block, Source, TurnReply, TurnScript } from '../types';

const NEWS: Source[] = [
  { title: 'Hacker News front page', name: 'ycombinator', url: 'https://news.ycombinator.com/', snippet: 'The top stories right now.' },
  { title: 'Show HN: A browser that runs agents locally', name: 'ycombinator', url: 'https://news.ycombinator.com/item?id=45000001' },
  { title: 'The state of WebAssembly in 2026', name: 'github', url: 'https://github.com/webassembly/proposals' },
  { title: 'Postgres 19 released', name: 'postgresql', url: 'https://www.postgresql.org/about/news/postgresql-19-released/' },
];

export const BILLING_URL = 'https://www.perplexity.ai/account/usage';

const id = (ctx: ScenarioContext) => (ctx.newId ?? randomUUID)();

function q(ctx: ScenarioContext): string {
  const text = ctx.query.replace(/\s*#scenario:[a-z0-9-]+/gi, '').trim() || 'your task';
  return text.length > 48 ? `${text.slice(0, 47)}…` : text;
}

/** A task's opening: its Todo list and the first tool steps. Returns the time after them. */
function opening(tl: Timeline, ctx: ScenarioContext, goals: string[]): number {
  tl.plan(0, goals)
    .step(0, I.prepare, 'Preparing to assist…')
    .step(120, I.blocks, `Planning "${q(ctx)}"`)
    .step(240, I.worldSearch, 'Opening a browser')
    .goalDone(300, 0);
  return 360;
}

/** Streams an answer from t0 over `span` ms and finishes. */
function answerAt(tl: Timeline, answer: Block[], t0: number, span = 500): number {
  tl.stream(t0, t0 + span, 0, answerTokens(answer), 5).finish(t0 + span);
  return t0 + span;
}

function completeAnswer(ctx: ScenarioContext): Block[] {
  return [
    p(`Here are today's top stories for “${q(ctx)}”.`, { cite: [0] }),
    {
      type: 'ol',
      items: [
        ['A browser that runs agents locally.', { cite: [1] }],
        ['The state of WebAssembly in 2026.', { cite: [2] }],
        ['Postgres 19 released.', { cite: [3] }],
      ],
    },
    p('The task is complete.'),
  ];
}

function computerComplete(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Open the sources', 'Read the top stories', 'Write the summary']);
  tl.step(t, I.click, 'Navigating to news.ycombinator.com')
    .step(t + 120, I.read, 'Reading news.ycombinator.com')
    .goalDone(t + 180, 1)
    .step(t + 240, I.found, `Found ${NEWS.length} sources`)
    .goalDone(t + 300, 2);
  const answer = completeAnswer(ctx);
  answerAt(tl, answer, t + 320);
  return { events: tl.events, answer, sources: NEWS };
}

/** A task continued after a block (2FA, a form, credits, an external wait): it finishes. */
function computerContinue(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.step(0, I.found, 'Continuing the task').step(120, I.click, 'Picking up where I left off').step(240, I.read, 'Checking the result');
  const answer: Block[] = [p(`Continued after your message (“${q(ctx)}”): everything is done now.`, { cite: [0] }), p('The task is complete.')];
  answerAt(tl, answer, 320);
  return { events: tl.events, answer, sources: [NEWS[0] as Source] };
}

function computerFiles(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Gather the data', 'Write the PDF report', 'Draw the chart']);
  const report: AssetSpec = { id: id(ctx), filename: 'report.pdf', mediaType: 'application/pdf', content: 'pdf-report', primary: true };
  const chart: AssetSpec = { id: id(ctx), filename: 'chart.png', mediaType: 'image/png', content: 'png-chart', primary: false };
  const chart2: AssetSpec = {
    id: id(ctx),
    filename: 'chart.png',
    mediaType: 'image/png',
    content: 'png-chart-v2',
    primary: false,
    rootId: chart.id,
    parentId: chart.id,
  };
  tl.step(t, I.read, 'Reading news.ycombinator.com')
    .goalDone(t + 60, 1)
    .step(t + 120, I.blocks, 'Writing report.pdf')
    .files(t + 240, [report, chart])
    .step(t + 300, I.bolt, 'Improving the chart: larger labels')
    .files(t + 420, [chart2])
    .goalDone(t + 440, 2);
  const answer: Block[] = [
    p("Here's the report: report.pdf, with a chart of the top stories (chart.png, second version with larger labels).", { cite: [0] }),
  ];
  answerAt(tl, answer, t + 460, 300);
  return { events: tl.events, answer, sources: [NEWS[0] as Source] };
}

const FORMAT_QUESTION = 'Which format should I use for the report?';

function computerQuestion(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Collect the data', 'Ask about the format', 'Write the report']);
  tl.step(t, I.bolt, 'Asking you a question').interaction(t + 100, {
    kind: 'ask_user_question',
    id: id(ctx),
    prompt: FORMAT_QUESTION,
    options: ['PDF', 'DOCX'],
    questions: [{ id: id(ctx), text: FORMAT_QUESTION, options: ['PDF', 'DOCX'] }],
  });
  return { events: tl.events, answer: [], sources: [] };
}

function answerText(reply: TurnReply): string {
  if (reply.kind === 'answer') return reply.text;
  if (reply.kind === 'answers') return Object.values(reply.answers).join(', ');
  return reply.kind;
}

function computerQuestionResume(ctx: ScenarioContext, reply: TurnReply): TurnScript {
  const text = answerText(reply);
  const tl = new Timeline();
  tl.step(0, I.found, `Got your answer: ${text}`).goalDone(60, 1).step(120, I.blocks, `Writing the report as ${text}`).goalDone(180, 2);
  const answer: Block[] = [p(`You answered “${text}”, so the report on “${q(ctx)}” is written as ${text}.`, { cite: [0] }), p('The task is complete.')];
  answerAt(tl, answer, 240);
  return { events: tl.events, answer, sources: [NEWS[0] as Source] };
}

const CITY: QuestionSpec = { id: '', text: 'Which city should I plan this for?', options: ['Paris', 'Lyon'] };
const NIGHTS: QuestionSpec = { id: '', text: 'How many nights?', options: ['1', '2', '3'] };

/** Two questions at once, each in its own box (two pending interactions). */
function computerQuestions(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Look at options', 'Ask about the trip', 'Plan the trip']);
  tl.step(t, I.bolt, 'Asking you two questions');
  for (const spec of [CITY, NIGHTS]) {
    const question = { ...spec, id: id(ctx) };
    tl.interaction(t + 100, { kind: 'ask_user_question', id: id(ctx), prompt: question.text, options: question.options, questions: [question] });
  }
  return { events: tl.events, answer: [], sources: [] };
}

function computerQuestionsResume(ctx: ScenarioContext, _reply: TurnReply, replies: Record<string, TurnReply>): TurnScript {
  const answers = Object.values(replies).map(answerText);
  const tl = new Timeline();
  tl.step(0, I.found, `Got your answers: ${answers.join(' and ')}`).goalDone(60, 1).goalDone(120, 2);
  const answer: Block[] = [p(`You answered ${answers.map((a) => `“${a}”`).join(' and ')}: the plan for “${q(ctx)}” is ready.`), p('The task is complete.')];
  answerAt(tl, answer, 180);
  return { events: tl.events, answer, sources: [] };
}

export const SEND_CONFIRM = 'Send the summary email to team@example.com?';

function computerConfirm(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Draft the email', 'Ask before sending', 'Send it']);
  tl.step(t, I.blocks, 'Drafting the email').goalDone(t + 60, 1).interaction(t + 120, { kind: 'confirm_action', id: id(ctx), prompt: SEND_CONFIRM });
  return { events: tl.events, answer: [], sources: [] };
}

function computerConfirmResume(_ctx: ScenarioContext, reply: TurnReply): TurnScript {
  const approved = reply.kind === 'approve';
  const tl = new Timeline();
  if (approved) tl.step(0, I.found, 'You approved sending the email').step(120, I.click, 'Sending the email').goalDone(180, 2);
  else tl.step(0, I.found, 'You denied sending the email');
  const answer: Block[] = approved
    ? [p('I sent the summary email to team@example.com.')]
    : [p('I did not send the email to team@example.com: you denied the action.')];
  answerAt(tl, answer, 240);
  return { events: tl.events, answer, sources: [] };
}

function connector(ctx: ScenarioContext, name: string, title: string, description: string) {
  const key = name.toLowerCase().replace(/\s+/g, '-');
  return {
    id: key,
    name,
    authUrl: `https://www.perplexity.ai/computer/connectors/${key}/authorize?state=${id(ctx)}`,
    title,
    description,
  };
}

/** A required Slack sign-in (the turn waits) and an optional Google Drive one (offered, not waited on). */
function computerAuth(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Connect to Slack', 'Read unread messages', 'Email the summary']);
  const drive = connector(ctx, 'Google Drive', 'Connect Google Drive', 'Search your files for better results.');
  const slack = connector(ctx, 'Slack', 'Connect Slack', 'Computer needs Slack to read your unread messages.');
  tl.interaction(t, { kind: 'auth_required', id: id(ctx), prompt: drive.description, connector: drive, optional: true })
    .step(t + 60, I.bolt, 'Slack is not connected')
    .interaction(t + 120, { kind: 'auth_required', id: id(ctx), prompt: slack.description, connector: slack });
  return { events: tl.events, answer: [], sources: [] };
}

function computerAuthResume(_ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.step(0, I.found, 'Slack connected').goalDone(60, 0).step(120, I.read, 'Reading 12 unread messages').goalDone(180, 1).goalDone(240, 2);
  const answer: Block[] = [p('Done! Sent the summary to your email.')];
  answerAt(tl, answer, 300);
  return { events: tl.events, answer, sources: [] };
}

function blocked(ctx: ScenarioContext, goals: string[], steps: string[], block: Parameters<Timeline['block']>[1]): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, goals);
  steps.forEach((text, i) => {
    tl.step(t + i * 120, I.click, text);
  });
  tl.block(t + steps.length * 120, block);
  return { events: tl.events, answer: [], sources: [] };
}

function computer2fa(ctx: ScenarioContext): TurnScript {
  return blocked(ctx, ['Sign in to GitHub', 'Open the repository', 'Merge the pull request'], ['Navigating to github.com/login', 'Signing in'], {
    kind: 'two_factor_required',
    text: 'GitHub asks for a two-factor code. Send the 6-digit code from your authenticator app as your next message.',
  });
}

function computerForm(ctx: ScenarioContext): TurnScript {
  return blocked(ctx, ['Find the product', 'Get your shipping address', 'Place the order'], ['Adding the item to the cart'], {
    kind: 'interaction_required',
    title: 'Shipping address',
    url: `https://www.perplexity.ai/computer/forms/${id(ctx)}`,
    text: 'Fill in the shipping address form in Perplexity to continue.',
  });
}

function computerWaiting(ctx: ScenarioContext): TurnScript {
  return blocked(ctx, ['Track the package', 'Report the delivery date'], ['Opening the tracking page', 'The carrier has no date yet'], {
    kind: 'waiting',
    text: 'Waiting for the carrier to publish a delivery date. Send a message to continue when you want me to check again.',
  });
}

/** First day of next month, UTC. */
function nextMonth(now = Date.now()): string {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().replace('.000Z', 'Z');
}

function computerCredits(ctx: ScenarioContext): TurnScript {
  const reset = nextMonth();
  return blocked(ctx, ['Research the market', 'Write the analysis'], ['Searching for market data'], {
    kind: 'insufficient_credits',
    reason: 'spending_limit_exceeded',
    url: BILLING_URL,
    quotaResetDate: reset,
    text: `Insufficient credits. Add credits to continue. Your Computer quota resets on ${reset.slice(0, 10)}.`,
  });
}

function computerDenied(_ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.block(100, {
    kind: 'access_denied',
    text: "Computer is not available for your account. Ask your organization's administrator to enable Computer access.",
  });
  return { events: tl.events, answer: [], sources: [] };
}

function computerSleep(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Check the price', 'Check again after the sale starts', 'Report the price']);
  const wake = 60_000;
  tl.step(t, I.read, 'Reading the product page')
    .goalDone(t + 60, 1)
    .sleep(t + 120, wake, 'The sale starts later: I will check the price again then.')
    .step(t + 120 + wake, I.read, 'Reading the product page again')
    .goalDone(t + 180 + wake, 2);
  const answer: Block[] = [p('The sale price is 79 €, down from 99 €.'), p('The task is complete.')];
  answerAt(tl, answer, t + 240 + wake);
  return { events: tl.events, answer, sources: [] };
}

/** Runs for `longTaskMs` of wall-clock time (any hold ends first), a step every tenth of it, then finishes. */
function computerLong(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Crawl the catalogue', 'Compare every item', 'Write the summary']);
  const span = (ctx.longTaskMs ?? 150_000) * (ctx.speed ?? 1);
  for (let i = 1; i <= 10; i++) tl.step(t + (span * i) / 10, I.read, `Comparing items, batch ${i} of 10`);
  tl.goalDone(t + span, 1).goalDone(t + span, 2);
  const answer: Block[] = [p(`The long task “${q(ctx)}” is finished: 10 batches compared.`), p('The task is complete.')];
  answerAt(tl, answer, t + span + 50);
  return { events: tl.events, answer, sources: [] };
}

function computerError(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  const t = opening(tl, ctx, ['Open the sandbox', 'Run the analysis']);
  tl.step(t, I.click, 'Starting the sandbox').error(t + 200, 'Computer ran into a problem: the sandbox stopped unexpectedly.');
  return { events: tl.events, answer: [], sources: [] };
}

const SCOPE: QuestionSpec = { id: '', text: 'Which time range should the research cover?', options: ['Last 12 months', 'Last 5 years', 'All time'] };
const DEPTH: QuestionSpec = { id: '', text: 'Who is the report for?', options: ['Engineers', 'Executives'] };

/** Deep Research that stops for two multiple-choice questions, which expire after a minute. */
function researchClarify(ctx: ScenarioContext): TurnScript {
  const tl = new Timeline();
  tl.step(0, I.blocks, 'Identifying the key questions').step(150, I.blocks, 'A few details would sharpen the research');
  tl.interaction(300, {
    kind: 'ask_user_question',
    id: id(ctx),
    prompt: 'Before I start: two quick questions',
    questions: [
      { ...SCOPE, id: id(ctx) },
      { ...DEPTH, id: id(ctx) },
    ],
    expiresInMs: 60_000,
  });
  return { events: tl.events, answer: [], sources: [] };
}

function researchClarifyResume(ctx: ScenarioContext, reply: TurnReply): TurnScript {
  const chosen = reply.kind === 'answers' ? Object.values(reply.answers) : reply.kind === 'answer' ? [reply.text] : [];
  const tl = new Timeline();
  const rows = ['Searching the web', 'Reading arxiv.org', 'Insight: the field moved fast', `Found ${NEWS.length} sources`];
  rows.forEach((text, i) => {
    tl.step(i * 120, i === 0 ? I.worldSearch : i === 2 ? I.bolt : I.read, text);
  });
  const scope = chosen.length ? `You chose ${chosen.map((c) => `“${c}”`).join(' and ')}.` : 'The questions expired, so I used sensible defaults.';
  const answer: Block[] = [{ type: 'h2', text: 'Overview' }, p(`${scope} This report on “${q(ctx)}” follows.`, { cite: [0] }), p('That concludes the report.')];
  answerAt(tl, answer, rows.length * 120, 600);
  return { events: tl.events, answer, sources: NEWS };
}

export const TASK_SCENARIOS: Record<string, ScenarioDef> = {
  'computer-complete': {
    description: 'Computer task (the default in computer mode): a Todo list, tool steps, then an answer with sources.',
    build: computerComplete,
  },
  'computer-continue': { description: 'A task continued after a block: a few steps, then an answer.', build: computerContinue },
  'computer-files': { description: 'Computer task that produces report.pdf and chart.png (in two versions), then answers.', build: computerFiles },
  'computer-question': {
    description: 'Computer task that asks one multiple-choice question (PDF / DOCX) and waits; the answer quotes the reply.',
    build: computerQuestion,
    resume: computerQuestionResume,
  },
  'computer-questions': {
    description: 'Computer task that asks two questions at once (two boxes) and goes on once both are answered.',
    build: computerQuestions,
    resume: computerQuestionsResume,
  },
  'computer-confirm': {
    description: 'Computer task that asks to approve sending an email; finishes either way.',
    build: computerConfirm,
    resume: computerConfirmResume,
  },
  'computer-auth': {
    description: 'Computer task that needs a Slack sign-in (and offers an optional Google Drive one); goes on once connected.',
    build: computerAuth,
    resume: computerAuthResume,
  },
  'computer-2fa': {
    description: 'Computer task blocked on a two-factor code; a follow-up message continues it.',
    build: computer2fa,
    followUp: 'computer-continue',
  },
  'computer-form': {
    description: 'Computer task that needs a form only Perplexity can show; a follow-up continues it.',
    build: computerForm,
    followUp: 'computer-continue',
  },
  'computer-sleep': {
    description: 'Computer task that sleeps until a wake time (60 s at speed 1), then finishes.',
    build: computerSleep,
  },
  'computer-waiting': {
    description: 'Computer task that ends waiting on an external condition; a follow-up continues it.',
    build: computerWaiting,
    followUp: 'computer-continue',
  },
  'computer-long': {
    description: 'Computer task that runs for `longTaskMs` (default 150 s, wall clock), then finishes.',
    build: computerLong,
  },
  'computer-error': { description: 'Computer task that fails with an error.', build: computerError },
  'computer-credits': {
    description: 'Computer task stopped by insufficient credits (billing URL, quota reset date); a follow-up continues it.',
    build: computerCredits,
    followUp: 'computer-continue',
  },
  'computer-denied': { description: 'Computer is not available for the account.', build: computerDenied },
  'research-clarify': {
    description: 'Deep Research that first asks two multiple-choice questions (they expire after 60 s at speed 1), then reports.',
    build: researchClarify,
    resume: researchClarifyResume,
  },
};
