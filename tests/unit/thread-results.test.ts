import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { THREAD_EVENTS, type ThreadEvent, type ThreadTranscript } from '../../lib/protocol/threads/threads';
import { checkpointResult, notSentResult, questionText, ThreadResultShape, TranscriptShape, transcriptResult } from '../../lib/mcp/threads/result';
import { checkpoint, confirmation, question, signIn, THREAD } from '../support/thread-fixtures';

const ThreadResult = z.object(ThreadResultShape).strict();

/** The seed's table "Events and MCP Tasks states", written out again so a change to either side shows. */
const SEED_TASK_STATUS: Record<ThreadEvent, string> = {
  complete: 'completed',
  error: 'failed',
  access_denied: 'failed',
  cancelled: 'cancelled',
  ask_user_question: 'input_required',
  confirm_action: 'input_required',
  auth_required: 'input_required',
  interaction_required: 'input_required',
  two_factor_required: 'input_required',
  insufficient_credits: 'input_required',
  sleep: 'working',
  waiting: 'working',
  timeout: 'working',
};

describe('checkpoint → the seed result object', () => {
  it.each(THREAD_EVENTS)('%s maps to its task_status and fits the output schema', (event) => {
    const result = checkpointResult(checkpoint({ event: event === 'timeout' ? null : event }), 120_000);
    expect(result.event).toBe(event);
    expect(result.task_status).toBe(SEED_TASK_STATUS[event]);
    expect(result.thread_id).toBe(THREAD);
    expect(() => ThreadResult.parse(result)).not.toThrow();
  });

  it('complete: text, sources (up to 50) and files; no empty fields', () => {
    const sources = Array.from({ length: 60 }, (_, i) => ({ title: `S${i}`, url: `https://news.ycombinator.com/item?id=${i}`, domain: 'news.ycombinator.com', snippet: null }));
    const files = [{ filename: 'report.pdf', media_type: 'application/pdf', size_bytes: 48_219, url: 'https://pplx-res.cloudinary.com/report.pdf' }];
    const result = checkpointResult(checkpoint({ sources, files }));
    expect(result).toMatchObject({ event: 'complete', task_status: 'completed', text: "Here are today's top stories.", files });
    expect(result.sources).toHaveLength(50);
    const bare = checkpointResult(checkpoint());
    expect(Object.keys(bare).sort()).toEqual(['event', 'task_status', 'text', 'thread_id']);
  });

  it('a complete answer that still waits on the user reports input_required', () => {
    const result = checkpointResult(checkpoint({ event: 'complete', interactions: [question()] }));
    expect(result.task_status).toBe('input_required');
    expect(result.interactive?.respond_with_tool).toBe('answer_question');
  });

  it('ask_user_question: interactive names answer_question, the followup_uuid and the questions; text lists the options', () => {
    const result = checkpointResult(checkpoint({ event: 'ask_user_question', text: '', interactions: [question()] }));
    expect(result.interactive).toEqual({
      type: 'ask_user_question',
      thread_id: THREAD,
      respond_with_tool: 'answer_question',
      followup_uuid: 'fu-question-1',
      text: 'Which format should I use?',
      questions: [{ id: 'q-format', text: 'Which format should I use?', options: ['PDF', 'DOCX'] }],
      requires_user_response: true,
    });
    expect(result.text).toBe('Which format should I use?\n1. PDF\n2. DOCX');
    expect(result.pending_interactions).toBeUndefined();
  });

  it('more than one waiting question: pending_interactions lists all, interactive is the first', () => {
    const second = question({ followupUuid: 'fu-question-2', questions: [{ id: 'q-lang', text: 'Which language?' }] });
    const result = checkpointResult(checkpoint({ event: 'ask_user_question', interactions: [question(), second] }));
    expect(result.interactive?.followup_uuid).toBe('fu-question-1');
    expect(result.pending_interactions?.map((i) => i.followup_uuid)).toEqual(['fu-question-1', 'fu-question-2']);
  });

  it('the interaction of the event type leads even when another is listed first', () => {
    const result = checkpointResult(checkpoint({ event: 'confirm_action', interactions: [question(), confirmation()] }));
    expect(result.interactive).toMatchObject({ type: 'confirm_action', respond_with_tool: 'confirm_action_approve', deny_with_tool: 'confirm_action_deny', followup_uuid: 'fu-confirm-1' });
    expect(result.pending_interactions).toHaveLength(2);
  });

  it('auth_required: connector, auth_url and notify_connected; optional sign-ins go to optional_auth_requests', () => {
    const optional = signIn({ followupUuid: 'fu-auth-2', connector: 'gmail', displayName: 'Gmail', requiresUserResponse: false });
    const result = checkpointResult(checkpoint({ event: 'auth_required', interactions: [signIn()], optionalAuth: [optional] }));
    expect(result.interactive).toMatchObject({
      type: 'auth_required',
      thread_id: THREAD,
      connector: 'slack',
      display_name: 'Slack',
      auth_url: 'https://www.perplexity.ai/connectors/slack/authorize?state=abc',
      respond_with_tool: 'notify_connected',
      requires_user_response: true,
    });
    expect(result.optional_auth_requests).toEqual([
      {
        type: 'auth_required',
        thread_id: THREAD,
        text: 'Connect Slack to continue.',
        connector: 'gmail',
        display_name: 'Gmail',
        title: 'Connect Slack',
        description: 'Read your unread messages',
        auth_url: 'https://www.perplexity.ai/connectors/slack/authorize?state=abc',
        requires_user_response: false,
      },
    ]);
  });

  it('interaction_required gives the url to complete in Perplexity', () => {
    const form = { type: 'interaction_required' as const, followupUuid: 'fu-form', text: 'Fill in the form', url: 'https://www.perplexity.ai/computer/forms/abc', requiresUserResponse: true };
    const result = checkpointResult(checkpoint({ event: 'interaction_required', interactions: [form] }));
    expect(result.interactive).toMatchObject({ type: 'interaction_required', url: 'https://www.perplexity.ai/computer/forms/abc', respond_with_tool: 'call_perplexity_computer' });
  });

  it('sleep carries wake_at', () => {
    const result = checkpointResult(checkpoint({ event: 'sleep', wakeAt: '2026-12-01T09:00:00Z', text: 'Checking again at 9.' }));
    expect(result).toMatchObject({ event: 'sleep', task_status: 'working', wake_at: '2026-12-01T09:00:00Z' });
  });

  it('insufficient_credits during a task: input_required, billing_url and quota_reset_date', () => {
    const result = checkpointResult(
      checkpoint({
        event: 'insufficient_credits',
        text: 'Insufficient credits. Add credits to continue.',
        account: { reason: 'quota_exhausted', billingUrl: 'https://www.perplexity.ai/account/usage', quotaResetDate: '2026-11-01T00:00:00Z' },
      }),
    );
    expect(result).toMatchObject({ thread_id: THREAD, task_status: 'input_required' });
    expect(result.interactive).toEqual({
      type: 'insufficient_credits',
      reason: 'quota_exhausted',
      billing_url: 'https://www.perplexity.ai/account/usage',
      quota_reset_date: '2026-11-01T00:00:00Z',
    });
  });

  it('access_denied: failed, with the reason and no billing_url', () => {
    const result = checkpointResult(checkpoint({ event: 'access_denied', text: 'Computer is not available.', account: { reason: 'access_denied' } }));
    expect(result.task_status).toBe('failed');
    expect(result.interactive).toEqual({ type: 'access_denied', reason: 'access_denied' });
  });

  it('timeout says the task keeps running, how to wait again without sending anything, and read_thread, with the latest step', () => {
    const result = checkpointResult(checkpoint({ event: null, text: '' }), 120_400);
    expect(result.event).toBe('timeout');
    expect(result.text).toContain('after 120 s');
    // The seed's advice first (read_thread to check status), then ours: a wait that sends nothing (review 10, spec 12).
    expect(result.text).toContain(`call read_thread with thread_id ${THREAD} to check on it, or call_perplexity_computer with that thread_id and no message to wait again (nothing is sent)`);
    expect(result.text).toContain('latest: Reading 5 stories');
    expect(result.interactive).toBeUndefined();
  });

  it('before a message is sent: no thread_id and no task_status', () => {
    const result = notSentResult({ notSent: true, event: 'insufficient_credits', text: '', account: { reason: 'insufficient_credits', billingUrl: 'https://www.perplexity.ai/account/usage' } });
    expect(result.thread_id).toBeUndefined();
    expect(result.task_status).toBeUndefined();
    expect(result.interactive).toEqual({ type: 'insufficient_credits', reason: 'insufficient_credits', billing_url: 'https://www.perplexity.ai/account/usage' });
    expect(result.text).toMatch(/nothing was sent/);
    expect(() => ThreadResult.parse(result)).not.toThrow();
  });

  it('questionText numbers each question\'s options', () => {
    const two = question({ questions: [{ id: 'a', text: 'Format?', options: ['PDF', 'DOCX'] }, { id: 'b', text: 'Length?' }] });
    expect(questionText(two)).toBe('Format?\n1. PDF\n2. DOCX\n\nLength?');
  });
});

describe('transcript → read_thread', () => {
  const transcript: ThreadTranscript = {
    threadId: THREAD,
    url: `https://www.perplexity.ai/computer/tasks/${THREAD}`,
    status: 'idle',
    text: '**User:** Email me a summary\n\n**Computer:** Connect Slack to continue.',
    truncated: true,
    webState: {
      thread_status: 'WAITING',
      wake_at: null,
      entries: [{ entry_id: 'e1', status: 'WORKFLOW_AWAITING_NEXT_STEPS' }],
      interactions: [question()],
      auth_requests: [signIn()],
      form_links: [{ title: 'Payment details', url: 'https://www.perplexity.ai/computer/forms/abc' }],
      source: 'json',
    },
  };

  it('keeps status, transcript, truncated and web_state, with forms answerable by answer_submission_uuid', () => {
    const result = transcriptResult(transcript);
    expect(result).toMatchObject({ thread_id: THREAD, event: 'transcript', status: 'idle', truncated: true });
    expect(result.web_state?.interactions[0]).toMatchObject({ followup_uuid: 'fu-question-1', request: { answer_submission_uuid: 'fu-question-1' } });
    expect(result.web_state?.auth_requests[0]).toMatchObject({ connector: 'slack', auth_url: expect.stringContaining('slack') });
    expect(result.web_state?.source).toBe('json');
    expect(() => z.object(TranscriptShape).strict().parse(result)).not.toThrow();
  });

  it('a web_state that could not be loaded is null with web_state_error; an untruncated transcript has no truncated field', () => {
    const result = transcriptResult({ ...transcript, truncated: false, webState: null, webStateError: 'The thread JSON answered an empty body; retry read_thread.' });
    expect(result.web_state).toBeNull();
    expect(result.web_state_error).toMatch(/retry/);
    expect('truncated' in result).toBe(false);
  });
});
