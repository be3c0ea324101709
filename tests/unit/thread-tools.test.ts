import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { threadTools } from '../../lib/mcp/tools/threads';
import { elicitationFor } from '../../lib/mcp/threads/hold';
import type { ModelsList } from '../../lib/protocol/threads/threads';
import { toolAccess } from '../../lib/mcp/tool';
import { accessOf } from '../../lib/protocol/access';
import { approvalTimeoutError } from '../../lib/worker/panel/policy';
import { FakeBrowser, fakeContext, removeFakeHomes, runTool } from '../support/fake-browser';
import { checkpoint, confirmation, question, signIn, THREAD } from '../support/thread-fixtures';

const MODELS: ModelsList = {
  default_mode: 'standard',
  modes: [
    { mode: 'light', model: 'sonar-fast', effort: 'low' },
    { mode: 'standard', model: 'sonar-pro', effort: 'high' },
  ],
  models: [
    { id: 'sonar-pro', label: 'Sonar Pro', description: 'Thorough', fast: false, efforts: ['low', 'medium', 'high'], default_effort: 'high' },
    { id: 'sonar-fast', label: 'Sonar Fast', description: 'Quick', fast: true, efforts: ['low'], default_effort: 'low' },
  ],
  default_model: 'sonar-pro',
};

const submitted = { threadId: THREAD, url: `https://www.perplexity.ai/computer/tasks/${THREAD}`, turn: 1 };
const call = (browser: FakeBrowser, name: string, args: Record<string, unknown>, extra?: Parameters<typeof fakeContext>[1], env?: Record<string, string>) => {
  const world = fakeContext(browser, extra, env);
  return { world, done: runTool(threadTools, name, args, world.context) };
};

afterEach(() => {
  vi.useRealTimers();
});
afterAll(removeFakeHomes);

describe('call_perplexity_computer: the seed rules, each named in an isError result before anything is sent', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['mode with model', { message: 'Plan my week', mode: 'light', model: 'sonar-pro' }, /mode and model cannot be used together/],
    ['effort without model', { message: 'Plan my week', effort: 'high' }, /effort requires model/],
    ['project_uuid with thread_id', { message: 'More', thread_id: THREAD, project_uuid: 'p-1' }, /project_uuid .* cannot be combined with thread_id/],
    ['project_visibility without project_uuid', { message: 'Plan', project_visibility: 'project' }, /project_visibility requires project_uuid/],
    ['a new thread without a message', { message: '  ' }, /message is required to start a new thread/],
    ['files on a follow-up without a message', { thread_id: THREAD, attachment_urls: ['http://127.0.0.1:1/attachments/x/a.pdf'] }, /attachment_urls go with a message/],
    ['a thread_id that is no id', { message: 'x', thread_id: '../../etc/passwd' }, /thread_id "\.\.\/\.\.\/etc\/passwd" is not a Perplexity id/],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const browser = new FakeBrowser();
    const { text, isError } = await call(browser, 'call_perplexity_computer', args).done;
    expect(isError).toBe(true);
    expect(text).toMatch(/^\[INVALID_PARAMS\] /);
    expect(text).toMatch(message);
    expect(browser.methods()).toEqual([]);
  });

  const accountCases: [string, Record<string, unknown>, RegExp][] = [
    ['a mode the account does not offer', { message: 'x', mode: 'ultra' }, /mode "ultra" is not available to this account; models_list offers: light, standard/],
    ['a model the account does not offer', { message: 'x', model: 'gpt-9' }, /model "gpt-9" is not available to this account; models_list offers: sonar-pro, sonar-fast/],
    ["an effort outside the model's efforts", { message: 'x', model: 'sonar-fast', effort: 'high' }, /effort "high" is not one of model "sonar-fast"'s efforts: low/],
  ];
  it.each(accountCases)('%s (checked against account.models)', async (_name, args, message) => {
    const browser = new FakeBrowser().on('account.models', MODELS);
    const { text, isError } = await call(browser, 'call_perplexity_computer', args).done;
    expect(isError).toBe(true);
    expect(text).toMatch(message);
    expect(browser.methods()).toEqual(['account.models']);
  });

  it('where models_list reads no modes or no efforts (the real configs), a choice is refused as unreadable, not as the account’s (threads review M6)', async () => {
    const bare: ModelsList = { ...MODELS, modes: [], models: MODELS.models.map((m) => ({ ...m, efforts: [], default_effort: null })) };
    const browser = new FakeBrowser().on('account.models', bare);
    const mode = await call(browser, 'call_perplexity_computer', { message: 'x', mode: 'light' }).done;
    expect(mode.text).toMatch(/mode "light" cannot be checked: comet-relay reads no Computer modes .* Leave mode out/);
    const effort = await call(browser, 'call_perplexity_computer', { message: 'x', model: 'sonar-pro', effort: 'high' }).done;
    expect(effort.text).toMatch(/effort "high" cannot be checked: comet-relay reads no efforts for model "sonar-pro"/);
    expect(browser.methods()).toEqual(['account.models', 'account.models']);
  });

  it('an unknown thread_id the browser already names is said once, not inside itself (review 8, errors #6)', async () => {
    const cause = `thread_id "${THREAD}" matches no Perplexity thread of this account (not at https://www.perplexity.ai/computer/tasks/x, not among the recent threads).`;
    const browser = new FakeBrowser().fail('threads.send', 'THREAD_NOT_FOUND', cause);
    const { text } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
    expect(text).toBe(`[THREAD_NOT_FOUND] ${cause.slice(0, -1)}. Pass a thread_id that an earlier result returned.`);
  });

  it('accepts a model with one of its efforts and passes the settings on', async () => {
    const browser = new FakeBrowser().on('account.models', MODELS).on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    const { isError } = await call(browser, 'call_perplexity_computer', { message: 'Review this contract', model: 'sonar-pro', effort: 'medium' }).done;
    expect(isError).toBe(false);
    expect(browser.calls[1]?.params).toMatchObject({ settings: { model: 'sonar-pro', effort: 'medium' }, tabCap: 6 });
  });

  it('an unknown thread_id is named', async () => {
    const browser = new FakeBrowser().fail('threads.send', 'THREAD_NOT_FOUND', 'The conversation does not exist.');
    const { text, isError } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: 'AbCdEfGhIjKlMnOpQrStUv' }).done;
    expect(isError).toBe(true);
    expect(text).toMatch(/^\[THREAD_NOT_FOUND\] thread_id "AbCdEfGhIjKlMnOpQrStUv" names no Perplexity thread/);
  });

  it('a follow-up the page refuses as invalid stays a plain [INVALID_PARAMS] error', async () => {
    const browser = new FakeBrowser().fail('threads.send', 'INVALID_PARAMS', 'Perplexity takes files with a message.');
    await expect(call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: 'Perplexity takes files with a message.',
    });
  });

  it('a follow-up the page refuses before typing (the task still works) gives the thread as it stands, never "error", no task_status (threads review M5)', async () => {
    const refusal = 'thread "x" is still working on its latest turn; wait for it';
    const browser = new FakeBrowser().fail('threads.send', 'AGENT_ERROR', refusal, { notSent: true }).on('threads.state', checkpoint({ turn: 1, event: null, text: '' }));
    const { structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
    expect(isError).toBe(true);
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'timeout' });
    expect(structured?.task_status).toBeUndefined();
    expect(structured?.text).toMatch(/^\[AGENT_ERROR\] The message was not sent: thread "x" is still working/);
  });

  it('a refused follow-up whose thread cannot be read either says so with no event or task_status', async () => {
    const browser = new FakeBrowser().fail('threads.send', 'AGENT_ERROR', 'still working', { notSent: true }).fail('threads.state', 'TAB_NOT_FOUND', 'gone');
    const { text, structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
    expect(isError).toBe(true);
    expect(structured).toBeUndefined();
    expect(text).toBe(`[AGENT_ERROR] The message was not sent: still working (thread_id ${THREAD}; read_thread says where it stands).`);
  });

  it('a follow-up the person’s policy refused is said to be unsent, never "may have been sent" (day-3 review L2)', async () => {
    const browser = new FakeBrowser().fail('threads.send', 'PERMISSION_DENIED', 'The person denied it.').on('threads.state', checkpoint({ turn: 0, text: 'As it was.' }));
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
    expect(structured?.text).toMatch(/^\[PERMISSION_DENIED\] The message was not sent: The person denied it\./);
    expect(structured?.task_status).toBeUndefined();
  });

  it('a follow-up nobody approved in time is said to be unsent (review 8, errors #1)', async () => {
    const timedOut = approvalTimeoutError('send a follow-up', 120);
    const browser = new FakeBrowser().fail('threads.send', timedOut.code, timedOut.message, timedOut.data).on('threads.state', checkpoint({ turn: 0, text: 'As it was.' }));
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
    expect(structured?.text).toMatch(/^\[TIMEOUT\] The message was not sent: Nobody approved the request to send a follow-up within 120 s/);
    expect(structured?.text).not.toMatch(/may have been sent/);
  });

  it('a follow-up that failed after it may have gone (a timeout, the link gone) says so, and passes no earlier turn off as its reply (day-2 review H2)', async () => {
    for (const code of ['TIMEOUT', 'HOST_DISCONNECTED', 'EXTENSION_NOT_CONNECTED'] as const) {
      const browser = new FakeBrowser().fail('threads.send', code, 'no reply within 90 s.').on('threads.state', checkpoint({ turn: 0, text: 'OLD ANSWER' }));
      const { text, structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'More', thread_id: THREAD }).done;
      expect(isError).toBe(true);
      expect(structured).toBeUndefined();
      expect(text).toBe(`[${code}] no reply within 90 s. The message may have been sent before this: call read_thread with thread_id ${THREAD} to see before sending it again.`);
      expect(browser.methods()).toEqual(['threads.send']);
    }
  });
});

describe('call_perplexity_computer: holding the call', () => {
  it('starts a thread, waits on its turn for the hold, and returns the result as JSON text and structuredContent', async () => {
    const files = [{ filename: 'report.pdf', media_type: 'application/pdf', size_bytes: 1234, url: 'https://pplx-res.cloudinary.com/report.pdf' }];
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1, files }));
    const { world, done } = call(browser, 'call_perplexity_computer', { message: 'Summarize the top 5 stories on Hacker News right now.' });
    const { text, structured } = await done;
    expect(browser.calls[0]?.params).toEqual({ message: 'Summarize the top 5 stories on Hacker News right now.', attachments: [], settings: {}, projectUuid: undefined, projectVisibility: undefined, tabCap: 6 });
    expect(browser.calls[1]?.params).toEqual({ threadId: THREAD, turn: 1, timeoutMs: expect.any(Number), heard: [], tabCap: 6 });
    expect(browser.calls[1]?.params.timeoutMs).toBeGreaterThanOrEqual(4900);
    expect(browser.calls[1]?.params.timeoutMs).toBeLessThanOrEqual(5000);
    expect(browser.calls[1]?.options.signal).toBe(world.context.signal);
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'complete', task_status: 'completed', files });
    expect(JSON.parse(text)).toEqual(structured);
    // The submit speaks first; the first message that can name the thread names it.
    expect(world.progress[0]).toMatch(/^new Computer task: /);
    expect(world.progress.find((m) => m.startsWith('thread_id'))).toMatch(new RegExp(`^thread_id ${THREAD}: working.*read_thread`));
  });

  it('a start whose page call failed once its task had an address: what failed is said first, then where the task stands (review 15a, F2)', async () => {
    const note = `The prompt went out and started thread_id "${THREAD}", but comet-relay's call to its page failed after that (the page was reloaded); do not send the prompt again.`;
    const browser = new FakeBrowser().on('threads.start', { ...submitted, turn: 0, note }).on('threads.wait', checkpoint({ turn: 0 }));
    const { structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'x' }).done;
    expect(isError).toBe(false);
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'complete', task_status: 'completed' });
    expect(String(structured?.text).startsWith(`${note}\n\n`)).toBe(true);
  });

  it('a follow-up goes to threads.send on the same thread', async () => {
    const browser = new FakeBrowser().on('threads.send', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(browser, 'call_perplexity_computer', { thread_id: THREAD, message: 'Continue.' }).done;
    expect(browser.calls[0]).toMatchObject({ method: 'threads.send', params: { threadId: THREAD, message: 'Continue.' } });
  });

  it('no message never sends, whatever the thread shows: cancelled, asleep or waiting, it is returned with how to continue it (day-2 review H1)', async () => {
    for (const event of ['cancelled', 'sleep', 'waiting'] as const) {
      const browser = new FakeBrowser().on('threads.state', checkpoint({ turn: 1, event, text: 'As it stands.' }));
      const { structured } = await call(browser, 'call_perplexity_computer', { thread_id: THREAD }).done;
      expect(browser.methods()).toEqual(['threads.state']);
      expect(structured).toMatchObject({ event, text: expect.stringMatching(/^Nothing was sent \(no message; to continue or follow up, call again with one/) });
    }
  });

  it('mode, model or effort with a thread_id and no message are refused, not dropped', async () => {
    const browser = new FakeBrowser();
    const { text, isError } = await call(browser, 'call_perplexity_computer', { thread_id: THREAD, mode: 'light' }).done;
    expect(isError).toBe(true);
    expect(text).toMatch(/^\[INVALID_PARAMS\] mode, model and effort go with a message/);
    expect(browser.methods()).toEqual([]);
  });

  it('no message while the task still works (after a timeout): waits again, sending nothing (the seed: "ask for the latest status")', async () => {
    const browser = new FakeBrowser().on('threads.state', checkpoint({ turn: 2, event: null, text: '' })).on('threads.wait', checkpoint({ turn: 2 }));
    const { structured } = await call(browser, 'call_perplexity_computer', { thread_id: THREAD }).done;
    expect(browser.methods()).toEqual(['threads.state', 'threads.wait']);
    expect(browser.calls[1]?.params).toMatchObject({ threadId: THREAD, turn: 2 });
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'complete', task_status: 'completed' });
  });

  it('no message on a task that is done or waits on the person: its state as it stands, nothing sent', async () => {
    const browser = new FakeBrowser().on('threads.state', checkpoint({ turn: 1, event: 'complete', text: 'Finished the report.' }));
    const { structured } = await call(browser, 'call_perplexity_computer', { thread_id: THREAD }).done;
    expect(browser.methods()).toEqual(['threads.state']);
    expect(structured).toMatchObject({ event: 'complete', text: 'Nothing was sent (no message; to continue or follow up, call again with one, e.g. "Continue."). Finished the report.' });
  });

  it('no checkpoint within the hold: timeout, task still working', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1, event: null, text: '' }));
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'Long job' }).done;
    expect(structured).toMatchObject({ event: 'timeout', task_status: 'working', thread_id: THREAD });
  });

  it('as an MCP task the hold is the twenty-minute no-checkpoint rule', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(browser, 'call_perplexity_computer', { message: 'Long job' }, { asTask: true }).done;
    expect(browser.calls[1]?.params.timeoutMs).toBeGreaterThanOrEqual(1_199_900);
    expect(browser.calls[1]?.params.timeoutMs).toBeLessThanOrEqual(1_200_000);
  });

  it('the hold counts from the call, the submit included: the seed\'s "for up to two minutes" (review 10, spec 4)', async () => {
    vi.useFakeTimers();
    const slowSubmit = () => new Promise<typeof submitted>((resolve) => setTimeout(() => resolve(submitted), 3_000));
    const browser = new FakeBrowser().on('threads.start', slowSubmit).on('threads.wait', checkpoint({ turn: 1, event: null, text: '' }));
    const { done } = call(browser, 'call_perplexity_computer', { message: 'Long job' });
    await vi.advanceTimersByTimeAsync(3_000);
    const { structured } = await done;
    expect(browser.calls[1]?.params.timeoutMs).toBe(2_000);
    expect(structured?.text).toMatch(/this call stopped waiting after 3 s/);
    // A submit that took the whole hold still reads the turn once, with no wait.
    const slower = new FakeBrowser().on('threads.start', () => new Promise((resolve) => setTimeout(() => resolve(submitted), 9_000))).on('threads.wait', checkpoint({ turn: 1, event: null, text: '' }));
    const late = call(slower, 'call_perplexity_computer', { message: 'Long job' });
    await vi.advanceTimersByTimeAsync(9_000);
    await late.done;
    expect(slower.calls[1]?.params.timeoutMs).toBe(0);
  });

  it('the page refusing before sending gives no thread_id and no task_status', async () => {
    const browser = new FakeBrowser().on('threads.start', {
      notSent: true,
      event: 'insufficient_credits',
      text: 'Insufficient credits. Add credits to continue.',
      account: { reason: 'insufficient_credits', billingUrl: 'https://www.perplexity.ai/account/usage' },
    });
    const { structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'x' }).done;
    expect(isError).toBe(false);
    expect(structured).toEqual({
      event: 'insufficient_credits',
      text: 'Insufficient credits. Add credits to continue.',
      interactive: { type: 'insufficient_credits', reason: 'insufficient_credits', billing_url: 'https://www.perplexity.ai/account/usage' },
    });
    expect(browser.methods()).toEqual(['threads.start']);
  });

  it('each step goes out as progress, and a beat at least every COMET_THREAD_PROGRESS_MS while nothing happens', async () => {
    vi.useFakeTimers();
    let finish: (value: ReturnType<typeof checkpoint>) => void = () => {};
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', (_params, options) => {
      options.onProgress?.('Searching Hacker News');
      return new Promise((resolve) => {
        finish = resolve;
      });
    });
    const { world, done } = call(browser, 'call_perplexity_computer', { message: 'x' }, {}, { COMET_THREAD_PROGRESS_MS: '10000' });
    await vi.advanceTimersByTimeAsync(35_000);
    finish(checkpoint({ turn: 1 }));
    await done;
    const named = world.progress.findIndex((m) => m.startsWith('thread_id'));
    expect(world.progress[named]).toContain(`thread_id ${THREAD}`);
    expect(world.progress[named + 1]).toBe(`thread_id ${THREAD}: Searching Hacker News`);
    const beats = world.progress.filter((m) => m.includes('still working'));
    expect(beats).toHaveLength(3);
    expect(beats[0]).toContain('latest step: Searching Hacker News');
    const count = world.progress.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(world.progress).toHaveLength(count);
  });

  it('a wait that breaks after the turn was sent (host gone) is a timeout that keeps the thread_id', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).fail('threads.wait', 'HOST_DISCONNECTED', 'The comet-relay host went away.');
    const { structured, isError } = await call(browser, 'call_perplexity_computer', { message: 'x' }).done;
    expect(isError).toBe(false);
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'timeout' });
    // The seed: task_status is left out when the server cannot tell the task's state (review 10, spec 3).
    expect(structured).not.toHaveProperty('task_status');
    expect(structured?.text).toMatch(/stopped waiting for this task: \[HOST_DISCONNECTED\] The comet-relay host went away\. .*read_thread with thread_id/);
    // What the task does now, the broken wait did not see (threads review M2).
    expect(structured?.text).not.toMatch(/keeps running/);
  });

  it('a wait that cannot find the thread again (THREAD_NOT_FOUND) says it could not see, neither failed nor running (day-3 review M2)', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).fail('threads.wait', 'THREAD_NOT_FOUND', 'thread_id "x" matches no Perplexity thread of this account.');
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'x' }).done;
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'timeout' });
    expect(structured?.text).toMatch(/stopped waiting for this task: \[THREAD_NOT_FOUND\].*whether it still runs, this wait could not see/);
    expect(structured?.text).not.toMatch(/keeps running|failed/);
  });

  it('the steps a hold says it heard stay within threads.wait’s bounds and start again with a new turn (day-3 review M1)', async () => {
    const long = 'x'.repeat(2500);
    const run = async (nextTurn: number) => {
      let waits = 0;
      const browser = new FakeBrowser()
        .on('threads.start', submitted)
        .on('threads.wait', (_params, options) => {
          waits += 1;
          if (waits > 1) return checkpoint({ turn: nextTurn });
          for (let i = 0; i < 1100; i++) options.onProgress?.(`step ${i}`);
          options.onProgress?.(long);
          return checkpoint({ turn: 1, event: 'ask_user_question', interactions: [question()] });
        })
        .on('threads.respond', { ...submitted, turn: nextTurn });
      const elicit = async () => ({ action: 'accept' as const, content: { answer_1: 'PDF' } });
      await call(browser, 'call_perplexity_computer', { message: 'x' }, { elicit }).done;
      return browser.calls.filter((c) => c.method === 'threads.wait')[1]?.params.heard as string[] | undefined;
    };
    const sameTurn = await run(1);
    expect(sameTurn).toHaveLength(1000);
    expect(sameTurn?.[0]).toBe('step 100');
    expect(sameTurn).not.toContain(long);
    expect(await run(2)).toEqual([]);
  });
});

describe('elicitation inside the call', () => {
  it('a question is asked of the person, answered, and the call goes on to the next checkpoint', async () => {
    const browser = new FakeBrowser()
      .on('threads.start', submitted)
      .on('threads.wait', checkpoint({ turn: 1, event: 'ask_user_question', interactions: [question()] }))
      .on('threads.wait', checkpoint({ turn: 1, text: 'Here is the PDF.' }))
      .on('threads.respond', submitted);
    const asked: unknown[] = [];
    const elicit = vi.fn(async (request: unknown) => {
      asked.push(request);
      return { action: 'accept' as const, content: { answer_1: 'PDF' } };
    });
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'Make a report' }, { elicit }).done;
    expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: { properties: { answer_1: { type: 'string', title: 'Which format should I use?', enum: ['PDF', 'DOCX'] } }, required: ['answer_1'] } });
    expect(browser.calls.find((c) => c.method === 'threads.respond')?.params).toMatchObject({ followupUuid: 'fu-question-1', reply: { kind: 'answers', answers: { 'q-format': 'PDF' } } });
    expect(structured).toMatchObject({ event: 'complete', text: 'Here is the PDF.' });
  });

  it('a confirmation becomes approve/deny with the reason', async () => {
    const browser = new FakeBrowser()
      .on('threads.start', submitted)
      .on('threads.wait', checkpoint({ turn: 1, event: 'confirm_action', interactions: [confirmation()] }))
      .on('threads.wait', checkpoint({ turn: 1, text: 'Not sent.' }))
      .on('threads.respond', submitted);
    const elicit = async () => ({ action: 'accept' as const, content: { decision: 'deny', reason: 'Not today' } });
    await call(browser, 'call_perplexity_computer', { message: 'Email it' }, { elicit }).done;
    expect(browser.calls.find((c) => c.method === 'threads.respond')?.params.reply).toEqual({ kind: 'deny', reason: 'Not today' });
  });

  it('a declined form returns the checkpoint to the agent; a prompt already answered is not asked again', async () => {
    const waiting = checkpoint({ turn: 1, event: 'ask_user_question', interactions: [question()] });
    const declined = new FakeBrowser().on('threads.start', submitted).on('threads.wait', waiting);
    const first = await call(declined, 'call_perplexity_computer', { message: 'x' }, { elicit: async () => ({ action: 'decline' as const }) }).done;
    expect(first.structured).toMatchObject({ event: 'ask_user_question', interactive: { followup_uuid: 'fu-question-1' } });

    const stuck = new FakeBrowser().on('threads.start', submitted).on('threads.wait', waiting).on('threads.respond', submitted);
    const elicit = vi.fn(async () => ({ action: 'accept' as const, content: { answer_1: 'PDF' } }));
    const second = await call(stuck, 'call_perplexity_computer', { message: 'x' }, { elicit }).done;
    expect(elicit).toHaveBeenCalledTimes(1);
    expect(second.structured).toMatchObject({ event: 'ask_user_question' });
  });

  it('an answer the page refuses returns the checkpoint, saying what was refused and why', async () => {
    const grouped = question({
      text: 'Region? / Seats?',
      questions: [
        { id: 'q1', text: 'Region?', options: ['EU', 'US'] },
        { id: 'q2', text: 'Seats?', options: ['5', '10'] },
      ],
    });
    const waiting = checkpoint({ turn: 1, event: 'ask_user_question', interactions: [grouped] });
    const browser = new FakeBrowser()
      .on('threads.start', submitted)
      .on('threads.wait', waiting)
      .fail('threads.respond', 'INVALID_PARAMS', '"Europe" is not one of the choices of "Region?": EU, US.')
      .on('threads.state', waiting);
    const elicit = async () => ({ action: 'accept' as const, content: { answer_1: 'Europe', answer_2: '10' } });
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'Book seats' }, { elicit }).done;
    expect(structured).toMatchObject({ event: 'ask_user_question', task_status: 'input_required', interactive: { followup_uuid: 'fu-question-1' } });
    expect(structured?.text).toMatch(/refused/);
    expect(structured?.text).toMatch(/"Europe" is not one of the choices/);
    expect(structured?.text).toMatch(/Europe/);
    expect(browser.methods()).toContain('threads.state');
  });

  it('choice questions are offered as enum fields; multi-select as a list of choices', async () => {
    const form = elicitationFor(THREAD, question({
      questions: [
        { id: 'q1', text: 'Region?', options: ['EU', 'US'] },
        { id: 'q2', text: 'Extras?', options: ['Wifi', 'Meals'], multiple: true },
        { id: 'q3', text: 'Anything else?' },
      ],
    }));
    expect(form.requestedSchema.properties).toEqual({
      answer_1: { type: 'string', title: 'Region?', enum: ['EU', 'US'] },
      answer_2: { type: 'array', title: 'Extras?', items: { type: 'string', enum: ['Wifi', 'Meals'] }, minItems: 1 },
      answer_3: { type: 'string', title: 'Anything else?' },
    });
  });

  it('sign-ins are never elicited: the agent gets auth_required', async () => {
    const browser = new FakeBrowser().on('threads.start', submitted).on('threads.wait', checkpoint({ turn: 1, event: 'auth_required', interactions: [signIn()] }));
    const elicit = vi.fn();
    const { structured } = await call(browser, 'call_perplexity_computer', { message: 'x' }, { elicit }).done;
    expect(elicit).not.toHaveBeenCalled();
    expect(structured).toMatchObject({ event: 'auth_required' });
  });
});

describe('answer_question, confirm_action_*, notify_connected', () => {
  const waitingOn = (...interactions: ReturnType<typeof question>[]) =>
    checkpoint({ event: interactions[0]?.type ?? 'complete', interactions });

  it('answers keyed by question id, or by question text, reach the page by id', async () => {
    const two = question({ questions: [{ id: 'q-format', text: 'Which format?' }, { id: 'q-len', text: 'How long?' }] });
    const browser = new FakeBrowser().on('threads.state', waitingOn(two)).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    const { structured } = await call(browser, 'answer_question', { thread_id: THREAD, answers: { 'q-format': 'PDF', ' how LONG? ': 2 } }).done;
    expect(browser.calls[1]?.params).toMatchObject({ threadId: THREAD, followupUuid: 'fu-question-1', reply: { kind: 'answers', answers: { 'q-format': 'PDF', 'q-len': '2' } } });
    expect(structured).toMatchObject({ event: 'complete' });
  });

  it('several choices of a multi-select question reach the page as a list, from the tool and from the elicitation form', async () => {
    const extras = question({ text: 'Extras?', questions: [{ id: 'q-extras', text: 'Extras?', options: ['Wifi', 'Meals', 'Parking'], multiple: true }] });
    const browser = new FakeBrowser().on('threads.state', waitingOn(extras)).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(browser, 'answer_question', { thread_id: THREAD, answers: { 'q-extras': ['Wifi', 'Parking'] } }).done;
    expect(browser.calls.find((c) => c.method === 'threads.respond')?.params.reply).toEqual({ kind: 'answers', answers: { 'q-extras': ['Wifi', 'Parking'] } });

    const held = new FakeBrowser()
      .on('threads.start', submitted)
      .on('threads.wait', checkpoint({ turn: 1, event: 'ask_user_question', interactions: [extras] }))
      .on('threads.wait', checkpoint({ turn: 1 }))
      .on('threads.respond', submitted);
    const elicit = async () => ({ action: 'accept' as const, content: { answer_1: ['Meals', 'Wifi'] } });
    await call(held, 'call_perplexity_computer', { message: 'Book a room' }, { elicit }).done;
    expect(held.calls.find((c) => c.method === 'threads.respond')?.params.reply).toEqual({ kind: 'answers', answers: { 'q-extras': ['Meals', 'Wifi'] } });
    // One time limit for the page's taking of an answer, whichever way it came (review 15a, F5: 60 s inside the call).
    const limit = (b: FakeBrowser) => b.calls.find((c) => c.method === 'threads.respond')?.options.timeoutMs;
    expect(limit(held)).toBe(limit(browser));
    expect(limit(browser)).toBeGreaterThanOrEqual(90_000);
  });

  it('two prompts waiting: one call answers both by question text (no followup_uuid), or one prompt with its followup_uuid', async () => {
    const city = question({ followupUuid: 'fu-city', questions: [{ id: 'q-city', text: 'Which city?' }] });
    const nights = question({ followupUuid: 'fu-nights', questions: [{ id: 'q-nights', text: 'How many nights?' }] });
    const both = new FakeBrowser().on('threads.state', waitingOn(city, nights)).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(both, 'answer_question', { thread_id: THREAD, answers: { 'Which city?': 'Lyon', 'How many nights?': 2 } }).done;
    expect(both.calls[1]?.params).toMatchObject({ followupUuid: undefined, reply: { kind: 'answers', answers: { 'q-city': 'Lyon', 'q-nights': '2' } } });

    const one = new FakeBrowser().on('threads.state', waitingOn(city, nights)).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(one, 'answer_question', { thread_id: THREAD, answers: { x: '3' }, followup_uuid: 'fu-nights' }).done;
    expect(one.calls[1]?.params).toMatchObject({ followupUuid: 'fu-nights', reply: { kind: 'answers', answers: { 'q-nights': '3' } } });

    const partial = new FakeBrowser().on('threads.state', waitingOn(city, nights));
    const refused = await call(partial, 'answer_question', { thread_id: THREAD, answers: { 'Which city?': 'Lyon' } }).done;
    expect(refused.text).toMatch(/answers leaves out q-nights \("How many nights\?"\): answer every waiting question \(or pass followup_uuid to answer one prompt\)/);
  });

  it('when a single question waits, a single answer under any key is its answer', async () => {
    const browser = new FakeBrowser().on('threads.state', waitingOn(question())).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    await call(browser, 'answer_question', { thread_id: THREAD, answers: { answer: 'DOCX' } }).done;
    expect(browser.calls[1]?.params.reply).toEqual({ kind: 'answers', answers: { 'q-format': 'DOCX' } });
  });

  const problems: [string, Record<string, unknown>, ReturnType<typeof checkpoint>, RegExp][] = [
    ['a followup_uuid that matches nothing', { answers: { a: 'b' }, followup_uuid: 'fu-gone' }, waitingOn(question()), /followup_uuid "fu-gone" matches nothing thread .* waits on; it waits on ask_user_question \(followup_uuid fu-question-1\)/],
    ['a followup_uuid of a confirmation', { answers: { a: 'b' }, followup_uuid: 'fu-confirm-1' }, waitingOn(confirmation()), /followup_uuid "fu-confirm-1" is a confirm_action, not a ask_user_question: answer it with confirm_action_approve or confirm_action_deny/],
    ['a thread not waiting on a question', { answers: { a: 'b' } }, checkpoint({ event: null }), /thread_id .* is not waiting on a ask_user_question; it waits on nothing \(it is still working\)/],
    ['an answer key that matches no question', { answers: { 'q-format': 'PDF', colour: 'red' } }, waitingOn(question({ questions: [{ id: 'q-format', text: 'Format?' }, { id: 'q-len', text: 'Length?' }] })), /answers key "colour" matches no waiting question; the questions are: q-format \("Format\?"\), q-len \("Length\?"\)/],
    ['a question left unanswered', { answers: { 'q-format': 'PDF', 'Format?': 'PDF' } }, waitingOn(question({ questions: [{ id: 'q-format', text: 'Format?' }, { id: 'q-len', text: 'Length?' }] })), /answers leaves out q-len \("Length\?"\)/],
    ['no answers', { answers: {} }, waitingOn(question()), /answers is empty/],
  ];
  it.each(problems)('%s is refused, naming the field', async (_name, args, state, message) => {
    const browser = new FakeBrowser().on('threads.state', state);
    const { text, isError } = await call(browser, 'answer_question', { thread_id: THREAD, ...args }).done;
    expect(isError).toBe(true);
    expect(text).toMatch(/^\[INVALID_PARAMS\] /);
    expect(text).toMatch(message);
    expect(browser.methods()).toEqual(['threads.state']);
  });

  it('an unknown thread_id is named', async () => {
    const browser = new FakeBrowser().fail('threads.state', 'THREAD_NOT_FOUND', 'No such conversation.');
    const { text } = await call(browser, 'answer_question', { thread_id: 'nope', answers: { a: 'b' } }).done;
    expect(text).toMatch(/^\[THREAD_NOT_FOUND\] thread_id "nope"/);
  });

  it.each([
    ['confirm_action_approve', 'approve'],
    ['confirm_action_deny', 'deny'],
  ] as const)('%s sends %s with the reason to the confirmation followup_uuid names', async (tool, kind) => {
    const other = confirmation({ followupUuid: 'fu-confirm-2' });
    const browser = new FakeBrowser().on('threads.state', waitingOn(confirmation(), other)).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1 }));
    const { structured } = await call(browser, tool, { thread_id: THREAD, result: 'Go ahead', followup_uuid: 'fu-confirm-2' }).done;
    expect(browser.calls[1]?.params).toMatchObject({ followupUuid: 'fu-confirm-2', reply: { kind, reason: 'Go ahead' } });
    // The page has only its buttons: the reason is said to be not passed on, never lost silently (threads review L1).
    expect(structured?.text).toMatch(/^The (approval|denial)'s reason \("Go ahead"\) was not passed on: the page has no place for it\. To tell Computer, send it with call_perplexity_computer/);
  });

  it('files with a reply are refused before anything is read, encoded or held for approval (threads review L2)', async () => {
    const browser = new FakeBrowser();
    for (const [tool, args] of [
      ['answer_question', { answers: { q: 'yes' } }],
      ['confirm_action_deny', { result: 'no' }],
      ['notify_connected', { message: 'done' }],
    ] as const) {
      const { text, isError } = await call(browser, tool, { thread_id: THREAD, ...args, attachment_urls: ['http://127.0.0.1:1/attachments/x/a.pdf'] }).done;
      expect(isError).toBe(true);
      expect(text).toMatch(/^\[INVALID_PARAMS\] Perplexity takes files with a message, not with an answer/);
    }
    expect(browser.methods()).toEqual([]);
  });

  it('notify_connected resumes a required sign-in, and refuses when only optional sign-ins are offered', async () => {
    const browser = new FakeBrowser().on('threads.state', waitingOn(signIn())).on('threads.respond', submitted).on('threads.wait', checkpoint({ turn: 1, text: 'Done! Sent the summary to your email.' }));
    const { structured } = await call(browser, 'notify_connected', { thread_id: THREAD, message: 'Slack connected' }).done;
    expect(browser.calls[1]?.params).toMatchObject({ followupUuid: 'fu-auth-1', reply: { kind: 'connected', message: 'Slack connected' } });
    // The page's button has no place for words: the result says the message was not passed on (review 10, spec 8).
    expect(structured).toMatchObject({ thread_id: THREAD, event: 'complete' });
    expect(structured?.text).toMatch(/^The message \("Slack connected"\) was not passed on: the page's sign-in button takes no words; it tells Computer the sign-in is done\.[\s\S]*Done! Sent the summary to your email\.$/);

    const optionalOnly = new FakeBrowser().on('threads.state', checkpoint({ optionalAuth: [signIn({ requiresUserResponse: false })] }));
    const refused = await call(optionalOnly, 'notify_connected', { thread_id: THREAD, message: 'Slack connected' }).done;
    expect(refused.text).toMatch(/not waiting on a auth_required/);
  });
});

describe('reading tools pass the browser side through in the seed shapes', () => {
  it('read_thread, models_list, projects_list, list_thread_assets, create_asset_download', async () => {
    const browser = new FakeBrowser()
      .on('threads.read', { threadId: THREAD, url: 'u', status: 'idle', text: 'transcript', truncated: false, webState: null, webStateError: 'later' })
      .on('account.models', MODELS)
      .on('account.projects', { projects: [], next_cursor: null })
      .on('threads.assets', { assets: [], next_cursor: 'c2' })
      .on('threads.assetDownload', { asset_id: 'a1', url: 'https://pplx-res.cloudinary.com/a1', expires_in_seconds: 3600 });
    expect((await call(browser, 'read_thread', { thread_id: THREAD }).done).structured).toEqual({ thread_id: THREAD, event: 'transcript', status: 'idle', text: 'transcript', web_state: null, web_state_error: 'later' });
    expect((await call(browser, 'models_list', {}).done).structured).toEqual(MODELS);
    expect((await call(browser, 'projects_list', { search_term: 'tax', cursor: 'c1' }).done).structured).toEqual({ projects: [], next_cursor: null });
    expect(browser.calls.at(-1)?.params).toEqual({ searchTerm: 'tax', cursor: 'c1', tabCap: 6 });
    expect((await call(browser, 'list_thread_assets', { thread_id: THREAD, entry_id: 'e1', cursor: 'c1' }).done).structured).toEqual({ assets: [], next_cursor: 'c2' });
    expect(browser.calls.at(-1)?.params).toMatchObject({ threadId: THREAD, entryId: 'e1', cursor: 'c1' });
    expect((await call(browser, 'create_asset_download', { thread_id: THREAD, asset_id: 'a1' }).done).structured).toMatchObject({ expires_in_seconds: 3600 });
  });
});

describe('attachments in the tools', () => {
  it('create_attachment_upload names a bad filename, mime_type or size_bytes', async () => {
    const browser = new FakeBrowser();
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ filename: '../report.pdf', mime_type: 'application/pdf', size_bytes: 10 }, /filename must not contain a path separator/],
      [{ filename: 'report.pdf', mime_type: 'pdf', size_bytes: 10 }, /mime_type must be a content type/],
      [{ filename: 'report.pdf', mime_type: 'application/pdf', size_bytes: 26 * 1024 * 1024 }, /size_bytes 27262976 is over the limit of 26214400 bytes/],
    ];
    for (const [args, message] of bad) {
      const { world, done } = call(browser, 'create_attachment_upload', args);
      await expect(done).rejects.toThrow(message);
      expect(world.context.signal.aborted).toBe(false);
    }
  });

  it('an attachment_url that is not an upload of ours is refused, naming attachment_urls[i]', async () => {
    const browser = new FakeBrowser();
    const { done } = call(browser, 'call_perplexity_computer', { message: 'x', attachment_urls: ['https://evil.example/attachments/x/report.pdf'] });
    await expect(done).rejects.toThrow(/attachment_urls\[0\] \(https:\/\/evil\.example\/attachments\/x\/report\.pdf\) is not an attachment_url this comet-relay issued/);
    expect(browser.methods()).toEqual([]);
  });
});

describe('read or act, consistently with the worker policy', () => {
  it('a thread tool acts exactly when a browser method it calls acts (create_attachment_upload acts by choice)', async () => {
    const scripted = () =>
      new FakeBrowser()
        .on('threads.start', submitted)
        .on('threads.send', submitted)
        .on('threads.respond', submitted)
        .on('threads.wait', checkpoint({ turn: 1 }))
        .on('threads.read', { threadId: THREAD, url: 'u', status: 'idle', text: '', truncated: false, webState: null })
        .on('account.models', MODELS)
        .on('account.projects', { projects: [], next_cursor: null })
        .on('threads.assets', { assets: [], next_cursor: null })
        .on('threads.assetDownload', { asset_id: 'a', url: 'https://x', expires_in_seconds: 1 });
    const happy: Record<string, [Record<string, unknown>, ReturnType<typeof checkpoint>?]> = {
      call_perplexity_computer: [{ message: 'x', model: 'sonar-pro' }],
      read_thread: [{ thread_id: THREAD }],
      answer_question: [{ thread_id: THREAD, answers: { a: 'PDF' } }, checkpoint({ event: 'ask_user_question', interactions: [question()] })],
      confirm_action_approve: [{ thread_id: THREAD, result: 'ok' }, checkpoint({ event: 'confirm_action', interactions: [confirmation()] })],
      confirm_action_deny: [{ thread_id: THREAD, result: 'no' }, checkpoint({ event: 'confirm_action', interactions: [confirmation()] })],
      notify_connected: [{ thread_id: THREAD, message: 'ok' }, checkpoint({ event: 'auth_required', interactions: [signIn()] })],
      models_list: [{}],
      projects_list: [{}],
      list_thread_assets: [{ thread_id: THREAD }],
      create_asset_download: [{ thread_id: THREAD, asset_id: 'a' }],
    };
    for (const tool of threadTools) {
      if (tool.name === 'create_attachment_upload') {
        expect(toolAccess(tool)).toBe('act');
        continue;
      }
      const [args, state] = happy[tool.name] ?? [{}];
      const browser = scripted();
      if (state) browser.on('threads.state', state);
      const { isError } = await call(browser, tool.name, args).done;
      expect(isError, tool.name).toBe(false);
      const acts = browser.calls.some((c) => accessOf(c.method, c.params) === 'act');
      expect(toolAccess(tool), tool.name).toBe(acts ? 'act' : 'read');
    }
  });
});
