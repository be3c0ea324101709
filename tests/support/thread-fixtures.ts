import type { ThreadCheckpoint, ThreadCheckpointInteraction } from '../../lib/protocol/threads/threads';

/** Checkpoints as the browser side reports them, for unit tests of the Node side. */
export const THREAD = '123e4567-e89b-12d3-a456-426614174000';

export function checkpoint(overrides: Partial<ThreadCheckpoint> = {}): ThreadCheckpoint {
  return {
    threadId: THREAD,
    url: `https://www.perplexity.ai/computer/tasks/${THREAD}`,
    turn: 0,
    event: 'complete',
    text: "Here are today's top stories.",
    steps: ['Searching Hacker News', 'Reading 5 stories'],
    sources: [],
    files: [],
    interactions: [],
    optionalAuth: [],
    source: 'json',
    ...overrides,
  };
}

export function question(overrides: Partial<ThreadCheckpointInteraction> = {}): ThreadCheckpointInteraction {
  return {
    type: 'ask_user_question',
    followupUuid: 'fu-question-1',
    text: 'Which format should I use?',
    questions: [{ id: 'q-format', text: 'Which format should I use?', options: ['PDF', 'DOCX'] }],
    requiresUserResponse: true,
    ...overrides,
  };
}

export function confirmation(overrides: Partial<ThreadCheckpointInteraction> = {}): ThreadCheckpointInteraction {
  return { type: 'confirm_action', followupUuid: 'fu-confirm-1', text: 'Send the summary to ana@example.com?', requiresUserResponse: true, ...overrides };
}

export function signIn(overrides: Partial<ThreadCheckpointInteraction> = {}): ThreadCheckpointInteraction {
  return {
    type: 'auth_required',
    followupUuid: 'fu-auth-1',
    text: 'Connect Slack to continue.',
    connector: 'slack',
    displayName: 'Slack',
    title: 'Connect Slack',
    description: 'Read your unread messages',
    authUrl: 'https://www.perplexity.ai/connectors/slack/authorize?state=abc',
    requiresUserResponse: true,
    ...overrides,
  };
}
