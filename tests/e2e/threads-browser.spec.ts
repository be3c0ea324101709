import { expect, test } from '@playwright/test';
import type { Page } from 'playwright-core';
import { RelayError } from '../../lib/protocol/errors';
import type { MethodName, MethodParams, MethodResult } from '../../lib/protocol/methods';
import { RelayClient } from '../../lib/relay/client';
import type { TurnSubmission } from '../../lib/protocol/threads/threads';

type SubmittedTurn = Exclude<TurnSubmission, { notSent: true }>;
import { startSimServer, type SimServer } from '../sim/server';
import { Harness } from '../support/harness';

/**
 * The thread family, the browser side, through the real chain at the relay level: a RelayClient (what the
 * MCP tools use) → the real host → the extension's worker → thread tabs it opens in the
 * background → the content script's thread readers on the simulated site (served over HTTPS with
 * host-resolver rules, so tabs the extension opens itself reach it too).
 */
test.describe.configure({ mode: 'serial' });

/** What these tests evaluate in the extension's service worker. */
declare const chrome: {
  tabs: { query(q: object): Promise<{ id?: number; url?: string; pendingUrl?: string; active: boolean }[]>; remove(id: number): Promise<void> };
  storage: { session: { get(key: string): Promise<Record<string, unknown>> }; local: { get(key: string): Promise<Record<string, unknown>> } };
};

let srv: SimServer;
let harness: Harness;
let userPage: Page;
let client: RelayClient;

function call<M extends MethodName>(method: M, params: MethodParams<M>, onProgress?: (m: string) => void): Promise<MethodResult<M>> {
  return client.call(method, params, { timeoutMs: 90_000, ...(onProgress ? { onProgress } : {}) });
}

async function tabs(): Promise<{ id: number; url: string; active: boolean }[]> {
  return harness.worker.evaluate(async () => (await chrome.tabs.query({})).map((t) => ({ id: t.id as number, url: t.url ?? t.pendingUrl ?? '', active: t.active })));
}

/** A turn the page took (not refused before sending). */
function sent(result: TurnSubmission): SubmittedTurn {
  if ('notSent' in result) throw new Error(`the page refused to send: ${result.text}`);
  return result;
}

async function start(params: MethodParams<'threads.start'>): Promise<SubmittedTurn> {
  return sent(await call('threads.start', params));
}

async function send(params: MethodParams<'threads.send'>): Promise<SubmittedTurn> {
  return sent(await call('threads.send', params));
}

async function respond(params: MethodParams<'threads.respond'>): Promise<SubmittedTurn> {
  return sent(await call('threads.respond', params));
}

/** Starts a task and waits for its first checkpoint. */
async function run(scenario: string, extra: Partial<MethodParams<'threads.start'>> = {}) {
  const started = await start({ message: `Task ${scenario} #scenario:${scenario}`, tabCap: 20, ...extra });
  const checkpoint = await call('threads.wait', { threadId: started.threadId, turn: started.turn, timeoutMs: 45_000, tabCap: 20 });
  return { started, checkpoint };
}

const EVENTS: [string, string][] = [
  ['computer-complete', 'complete'],
  ['computer-files', 'complete'],
  ['computer-question', 'ask_user_question'],
  ['computer-questions', 'ask_user_question'],
  ['computer-confirm', 'confirm_action'],
  ['computer-auth', 'auth_required'],
  ['computer-2fa', 'two_factor_required'],
  ['computer-form', 'interaction_required'],
  ['computer-sleep', 'sleep'],
  ['computer-waiting', 'waiting'],
  ['computer-error', 'error'],
  ['computer-credits', 'insufficient_credits'],
  ['computer-denied', 'access_denied'],
];

test.beforeAll(async () => {
  srv = await startSimServer({ port: 0, generation: 'B', speed: 4, longTaskMs: 6000 });
  harness = await Harness.start({ browserArgs: srv.chromiumArgs });
  await harness.waitForHost();
  userPage = await harness.openPerplexity();
  client = new RelayClient({ home: harness.home, client: { name: 'threads-e2e' }, transport: 'stdio' });
});

test.afterAll(async () => {
  client?.close();
  await harness?.close();
  await srv?.close();
});

test('a thread starts in a background tab: the tab the person is on stays in front', async () => {
  const before = await tabs();
  const steps: string[] = [];
  const started = await start({ message: 'Summarize the top 5 stories on Hacker News right now' });
  expect(started).toMatchObject({ turn: 0, url: `https://www.perplexity.ai/computer/tasks/${started.threadId}` });
  const done = await call('threads.wait', { threadId: started.threadId, turn: 0, timeoutMs: 45_000 }, (m) => steps.push(m));
  expect(done).toMatchObject({ event: 'complete', source: 'json', threadId: started.threadId });
  expect(done.text).toContain("Here are today's top stories");
  expect(done.sources.map((s) => s.domain)).toContain('news.ycombinator.com');
  // The steps come as progress while the wait is held, and with the result in any case (under load the
  // task can finish before the wait is attached, and then no progress is due).
  expect(done.steps).toContain('Navigating to news.ycombinator.com');
  expect(steps.every((m) => m.trim() !== '')).toBe(true);
  const after = await tabs();
  const threadTab = after.find((t) => t.url === started.url);
  expect(threadTab?.active).toBe(false);
  expect(after.filter((t) => t.active).map((t) => t.id)).toEqual(before.filter((t) => t.active).map((t) => t.id));
  expect(userPage.url()).toBe('https://www.perplexity.ai/');

  // The seed's walkthrough: a follow-up in the same thread produces files.
  const next = await send({ threadId: started.threadId, message: 'Turn that into a PDF report #scenario:computer-files' });
  expect(next.turn).toBe(1);
  const files = await call('threads.wait', { threadId: started.threadId, turn: 1, timeoutMs: 45_000 });
  expect(files.event).toBe('complete');
  expect(files.turn).toBe(1);
  expect(files.files.map((f) => f.filename).sort()).toEqual(['chart.png', 'report.pdf']);
  const res = await fetchThroughPage(files.files.find((f) => f.filename === 'report.pdf')?.url ?? '');
  expect(res.startsWith('%PDF-')).toBe(true);
});

async function fetchThroughPage(url: string): Promise<string> {
  return userPage.evaluate(async (u) => (await (await fetch(u)).text()).slice(0, 16), url);
}

test('every event of the table, classified from the thread JSON', async () => {
  await Promise.all(
    EVENTS.map(async ([scenario, event]) => {
      const { checkpoint } = await run(scenario);
      expect(checkpoint.event, scenario).toBe(event);
      expect(checkpoint.source, scenario).toBe('json');
    }),
  );
});

test('every event again from the page when the JSON is broken or rate-limited (source: page)', async () => {
  srv.site.json.setMode('malformed');
  try {
    await Promise.all(
      EVENTS.slice(0, 7).map(async ([scenario, event]) => {
        const { checkpoint } = await run(scenario);
        expect(checkpoint.event, scenario).toBe(event);
        expect(checkpoint.source, scenario).toBe('page');
      }),
    );
  } finally {
    srv.site.json.setMode('ok');
  }
  const before = srv.site.json.stats();
  srv.site.json.setRateLimit({ max: 0, windowMs: 60_000 });
  try {
    await Promise.all(
      EVENTS.slice(7).map(async ([scenario, event]) => {
        const { checkpoint } = await run(scenario);
        expect(checkpoint.event, scenario).toBe(event);
        expect(checkpoint.source, scenario).toBe('page');
      }),
    );
    // Empty bodies mean "later": one ask per thread, then a back-off (never a loop).
    const after = srv.site.json.stats();
    expect(after.limited - before.limited).toBeGreaterThanOrEqual(EVENTS.length - 7);
    expect(after.requests - before.requests).toBeLessThanOrEqual(2 * (EVENTS.length - 7));
  } finally {
    srv.site.json.setRateLimit({ max: 150, windowMs: 300_000 });
  }
});

test('answering: a question, two at once, a confirmation, a sign-in; a follow-up after a block', async () => {
  const question = await run('computer-question');
  const asked = question.checkpoint.interactions[0];
  await expect(call('threads.respond', { threadId: question.started.threadId, followupUuid: 'no-such-prompt', reply: { kind: 'answers', answers: { x: 'PDF' } } })).rejects.toThrow(
    /followup_uuid "no-such-prompt" matches nothing thread \S+ waits on; it waits on ask_user_question/,
  );
  const going = await respond({ threadId: question.started.threadId, followupUuid: asked?.followupUuid, reply: { kind: 'answers', answers: { anything: 'DOCX' } } });
  expect(going.turn).toBe(0);
  const answered = await call('threads.wait', { threadId: question.started.threadId, turn: going.turn, timeoutMs: 45_000 });
  expect(answered.event).toBe('complete');
  expect(answered.text).toContain('You answered “DOCX”');

  const two = await run('computer-questions');
  const [city, nights] = two.checkpoint.interactions.map((i) => i.questions?.[0]);
  await call('threads.respond', { threadId: two.started.threadId, reply: { kind: 'answers', answers: { [city?.text ?? '']: 'Lyon', [nights?.id ?? '']: '2' } } });
  const planned = await call('threads.wait', { threadId: two.started.threadId, turn: 0, timeoutMs: 45_000 });
  // Both answers reached the task; the simulated task lists them in the order they arrived, which two fields
  // filled in one reply do not fix.
  expect(planned.text).toMatch(/You answered “(?:Lyon” and “2|2” and “Lyon)”/);

  const confirm = await run('computer-confirm');
  await call('threads.respond', { threadId: confirm.started.threadId, reply: { kind: 'deny', reason: 'not now' } });
  expect((await call('threads.wait', { threadId: confirm.started.threadId, turn: 0, timeoutMs: 45_000 })).text).toContain('I did not send the email');

  const auth = await run('computer-auth');
  await expect(call('threads.respond', { threadId: auth.started.threadId, reply: { kind: 'approve', reason: 'ok' } })).rejects.toThrow(/waits on auth_required .*: answer it with notify_connected after signing in/);
  await call('threads.respond', { threadId: auth.started.threadId, reply: { kind: 'connected', message: 'Slack connected' } });
  const sent = await call('threads.wait', { threadId: auth.started.threadId, turn: 0, timeoutMs: 45_000 });
  expect(sent).toMatchObject({ event: 'complete', text: 'Done! Sent the summary to your email.' });

  const twoFactor = await run('computer-2fa');
  const follow = await send({ threadId: twoFactor.started.threadId, message: '123456' });
  expect(follow.turn).toBe(1);
  const continued = await call('threads.wait', { threadId: twoFactor.started.threadId, turn: 1, timeoutMs: 45_000 });
  expect(continued.event).toBe('complete');
  expect(continued.text).toContain('Continued after your message (“123456”)');
});

test('unknown threads are an error naming the thread_id; a bad one never reaches a URL', async () => {
  const unknown = await call('threads.state', { threadId: '00000000-0000-4000-8000-00000000dead' }).catch((e: unknown) => e);
  expect(unknown).toMatchObject({ code: 'THREAD_NOT_FOUND' });
  expect(String((unknown as Error).message)).toMatch(/thread_id "00000000-0000-4000-8000-00000000dead" matches no Perplexity thread/);
  await expect(call('threads.read', { threadId: '../account' })).rejects.toThrow(/thread_id "..\/account" is not a Perplexity id/);
  expect((await tabs()).some((t) => t.url.includes('dead'))).toBe(false);
});

test('two threads at once: a wait held on one does not hold the other', async () => {
  const long = await start({ message: 'Compare everything #scenario:computer-long', tabCap: 20 });
  const held = call('threads.wait', { threadId: long.threadId, turn: 0, timeoutMs: 45_000, tabCap: 20 });
  const { checkpoint } = await run('computer-complete');
  expect(checkpoint.event).toBe('complete');
  const state = await call('threads.state', { threadId: long.threadId, tabCap: 20 });
  expect(state.event).toBeNull();
  const finished = await held;
  expect(finished.event).toBe('complete');
  expect(finished.text).toContain('10 batches compared');
});

test('read_thread, assets and a fresh download link, models and projects, files into the composer', async () => {
  const { started } = await run('computer-files', {
    attachments: [{ filename: 'notes.txt', mimeType: 'text/plain', data: Buffer.from('hello from the agent').toString('base64') }],
  });
  const received = srv.site.thread(started.threadId)?.turns[0]?.attachments;
  expect(received).toEqual([expect.objectContaining({ filename: 'notes.txt', mimeType: 'text/plain', size: 20 })]);

  const read = await call('threads.read', { threadId: started.threadId });
  expect(read.status).toBe('idle');
  expect(read.text).toContain('**User:** Task computer-files');
  // web_state is what Perplexity shows: the JSON's own thread_status (review 14b, F2); status is the seed's word.
  expect(read.webState).toMatchObject({ thread_status: 'completed', source: 'json' });

  const assets = await call('threads.assets', { threadId: started.threadId });
  expect(assets.assets.map((a) => a.filename)).toEqual(['report.pdf', 'chart.png', 'chart.png']);
  expect(assets.next_cursor).toBeNull();
  const chart2 = assets.assets[2];
  expect(chart2?.parent_asset_id).toBe(assets.assets[1]?.asset_id);
  const link = await call('threads.assetDownload', { threadId: started.threadId, assetId: chart2?.asset_id ?? '' });
  expect(link.expires_in_seconds).toBeGreaterThan(3000);
  expect(link.url).toContain(chart2?.asset_id);

  const models = await call('account.models', {});
  expect(models.default_mode).toBe('standard');
  expect(models.models.find((m) => m.id === 'gpt-5')?.efforts).toEqual(['minimal', 'low', 'medium', 'high']);
  const projects = await call('account.projects', {});
  expect(projects.projects).toHaveLength(50);
  expect(projects.next_cursor).toBe('50');
  const found = await call('account.projects', { searchTerm: 'travel' });
  expect(found.projects.map((p) => p.name)).toEqual(['Travel planning']);

  const inProject = await start({
    message: 'Plan the offsite #scenario:computer-complete',
    projectUuid: found.projects[0]?.project_uuid,
    projectVisibility: 'project',
    settings: { model: 'gpt-5', effort: 'low' },
    tabCap: 20,
  });
  const thread = srv.site.thread(inProject.threadId);
  expect(thread).toMatchObject({ projectUuid: found.projects[0]?.project_uuid, projectVisibility: 'project' });
  expect(thread?.turns[0]?.settings).toEqual({ model: 'gpt-5', effort: 'low' });
});

test('a thread is found again by its URL after the host was killed; a closed tab reopens in the background', async () => {
  const { started } = await run('computer-complete');
  const old = await harness.waitForHost();
  process.kill(old.pid, 'SIGKILL');
  await harness.waitForHost(15_000, old.pid);
  const before = await tabs();
  const state = await call('threads.state', { threadId: started.threadId });
  expect(state).toMatchObject({ event: 'complete', threadId: started.threadId });
  expect((await tabs()).length).toBe(before.length);

  const tab = before.find((t) => t.url === started.url);
  await harness.worker.evaluate((id) => chrome.tabs.remove(id), tab?.id as number);
  const again = await call('threads.state', { threadId: started.threadId });
  expect(again.event).toBe('complete');
  const reopened = (await tabs()).find((t) => t.url === started.url);
  expect(reopened?.active).toBe(false);
});

test('the tab cap closes only tabs it opened, least recently used first', async () => {
  // The person's own tabs: the home page, and one showing a thread the agent started.
  const { started } = await run('computer-complete');
  const own = await harness.context.newPage();
  await own.goto(started.url);
  await userPage.bringToFront();
  const ours = async () =>
    new Set(await harness.worker.evaluate(async () => ((await chrome.storage.local.get('threadTabs')).threadTabs as { tabId: number }[]).map((t) => t.tabId)));
  const owned = await ours();
  const persons = (await tabs()).filter((t) => !owned.has(t.id)).map((t) => t.id);
  expect(persons.length).toBeGreaterThanOrEqual(2);
  for (let i = 0; i < 3; i++) await run('computer-complete', { tabCap: 2 });
  const now = await tabs();
  for (const id of persons) expect(now.some((t) => t.id === id), `the person's tab ${id}`).toBe(true);
  expect((await ours()).size).toBeLessThanOrEqual(2);
  // The thread whose tab the cap closed is found again (reopened in the background).
  expect((await call('threads.state', { threadId: started.threadId, tabCap: 2 })).event).toBe('complete');
  await own.close();
});

test('generation A: the slash typeahead switches to Computer for a new thread', async () => {
  srv.site.setGeneration('A');
  try {
    const { checkpoint } = await run('computer-confirm');
    expect(checkpoint).toMatchObject({ event: 'confirm_action', source: 'json' });
  } finally {
    srv.site.setGeneration('B');
  }
});

test('refused before sending: no credits or no Computer, nothing sent, no thread, no tab left', async () => {
  const { started } = await run('computer-complete');
  const before = (await tabs()).length;
  srv.site.account.set('out-of-credits');
  try {
    const refused = await call('threads.start', { message: 'Research the market' });
    expect(refused).toMatchObject({ notSent: true, event: 'insufficient_credits', account: { billingUrl: 'https://www.perplexity.ai/account/usage' } });
    expect((await tabs()).length).toBe(before);
    srv.site.account.set('no-computer');
    const denied = await call('threads.send', { threadId: started.threadId, message: 'One more thing' });
    expect(denied).toMatchObject({ notSent: true, event: 'access_denied' });
    expect(srv.site.thread(started.threadId)?.turns).toHaveLength(1);
  } finally {
    srv.site.account.set('ok');
  }
  const error = await call('threads.send', { threadId: 'not-a-thread-anywhere', message: 'hi' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RelayError);
  expect((error as RelayError).code).toBe('THREAD_NOT_FOUND');
});
