// @vitest-environment happy-dom
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pickInteractions } from '../../lib/mcp/threads/rules';
import { createPageDriver } from '../../lib/page/driver';
import { targetsOf } from '../../lib/page/threads/thread-answers';
import { type Box, boxesOf } from '../../lib/page/checkpoints/thread-boxes';
import { turnsOf } from '../../lib/page/dom/turns';
import type { ThreadCheckpointInteraction } from '../../lib/protocol/threads/threads';
import { threadPage2026 } from '../../lib/selectors/thread-page';
import { loadHtml } from '../fixtures/reader/load';
import { checkpoint } from '../support/thread-fixtures';

/**
 * Which waiting prompt a reply is for — one rule, held at both doors: the MCP side before anything
 * is sent, the page before anything is clicked. By followup_uuid first; never the first box that
 * happens to have the same words; two prompts with the same words get different ids.
 */
const confirm = (followupUuid: string, text: string): ThreadCheckpointInteraction => ({ type: 'confirm_action', followupUuid, text, requiresUserResponse: true });
const asBox = (interaction: ThreadCheckpointInteraction): Box => ({ interaction, box: {} as Element });

afterEach(() => {
  document.body.innerHTML = '';
});

describe('a reply reaches the prompt it names, or is refused', () => {
  const two = [confirm('F-delete', 'Delete the repository acme/prod?'), confirm('F-send', 'Send the summary to alice@example.com?')];

  it('an approval without followup_uuid while two confirmations wait is refused on the MCP side, as on the page', () => {
    const mcp = pickInteractions(checkpoint({ event: 'confirm_action', interactions: two }), 'confirm_action', undefined);
    expect(mcp).toEqual({ problem: expect.stringMatching(/has 2 of those waiting .*F-delete.*F-send.*pass followup_uuid to say which/) });
    expect(() => targetsOf(two.map(asBox), { kind: 'approve', reason: '' }, undefined, 'T')).toThrow(/has 2 of those waiting .*pass followup_uuid to say which/);
  });

  it('with followup_uuid, both sides pick that one', () => {
    expect(pickInteractions(checkpoint({ event: 'confirm_action', interactions: two }), 'confirm_action', 'F-send')).toEqual({ interactions: [two[1]] });
    expect(targetsOf(two.map(asBox), { kind: 'approve', reason: '' }, 'F-send', 'T').map((b) => b.interaction.followupUuid)).toEqual(['F-send']);
  });

  it("a JSON id the page does not carry is found by its words only when one box has them; two boxes with the same words are refused", () => {
    const boxes = [asBox(confirm('P1', 'Send this email?')), asBox(confirm('P2', 'Send this email?')), asBox(confirm('P3', 'Delete it?'))];
    expect(() => targetsOf(boxes, { kind: 'approve', reason: '' }, 'J2', 'T', 'Send this email?')).toThrow(/followup_uuid "J2" is one of 2 prompts with the same words/);
    expect(targetsOf(boxes, { kind: 'approve', reason: '' }, 'J3', 'T', 'Delete it?').map((b) => b.interaction.followupUuid)).toEqual(['P3']);
  });
});

describe('derived prompt ids', () => {
  it('two prompts with the same words in one turn get different ids, each stable while shown', () => {
    const html = readFileSync(join(import.meta.dirname, '../fixtures/threads/B-computer-confirm.html'), 'utf8');
    loadHtml(html, 'https://www.perplexity.ai/computer/tasks/t-1');
    const original = document.querySelector('[data-testid="confirm-action"]') as Element;
    original.removeAttribute('data-followup-uuid');
    original.after(original.cloneNode(true));
    const driver = createPageDriver(window);
    const read = () => {
      const ctx = driver.context();
      const turns = turnsOf(ctx.doc, ctx.set);
      const last = turns.at(-1);
      if (!last) throw new Error('the fixture shows no turn');
      return boxesOf(last, turns.length - 1, ctx, threadPage2026).map((b) => b.interaction.followupUuid);
    };
    const ids = read();
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(read()).toEqual(ids);
  });
});

describe('the MCP rules refuse what the page would refuse after a tab was opened', () => {
  it('files with no message are refused before anything opens, on a new thread or a follow-up: no words are made up for them (review 10, spec 14)', async () => {
    const { turnArgsProblem } = await import('../../lib/mcp/threads/rules');
    expect(turnArgsProblem({ message: '  ' }, 2)).toMatch(/message is required to start a new thread/);
    expect(turnArgsProblem({ message: 'Summarise these' }, 2)).toBeUndefined();
    expect(turnArgsProblem({ thread_id: 't-1' }, 2)).toMatch(/^attachment_urls go with a message: Perplexity takes files only with words\. Pass a message/);
    expect(turnArgsProblem({ thread_id: 't-1', message: 'Here is the contract' }, 2)).toBeUndefined();
    expect(turnArgsProblem({ thread_id: 't-1' }, 0)).toBeUndefined();
  });
});

describe('pending_interactions', () => {
  it('is listed only when more than one question or confirmation waits, not for a sign-in beside one question', async () => {
    const { checkpointResult } = await import('../../lib/mcp/threads/result');
    const { question, signIn } = await import('../support/thread-fixtures');
    const one = checkpointResult(checkpoint({ event: 'ask_user_question', interactions: [question(), signIn()] }));
    expect(one.interactive?.type).toBe('ask_user_question');
    expect(one.pending_interactions).toBeUndefined();
    const two = checkpointResult(checkpoint({ event: 'confirm_action', interactions: [question(), confirm('F2', 'Send?'), signIn()] }));
    expect(two.pending_interactions?.map((i) => i.type)).toEqual(['confirm_action', 'ask_user_question']);
  });
});

describe('project_visibility', () => {
  it('"private" (and nothing asked) turns a remembered visible-to-members toggle off; "project" turns it on', async () => {
    const { setProjectVisibility } = await import('../../lib/page/threads/thread-actions');
    loadHtml('<main><button data-testid="project-visibility" aria-pressed="true">Visible to members</button></main>', 'https://www.perplexity.ai/spaces/p-1');
    const toggle = document.querySelector('[data-testid="project-visibility"]') as HTMLElement;
    toggle.addEventListener('click', () => toggle.setAttribute('aria-pressed', String(toggle.getAttribute('aria-pressed') !== 'true')));
    const ctx = createPageDriver(window).context();
    setProjectVisibility(ctx, threadPage2026, 'private');
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    setProjectVisibility(ctx, threadPage2026, 'project');
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    setProjectVisibility(ctx, threadPage2026, undefined);
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
  });
});

describe('a thread page reader added as a file', () => {
  it('with a notFound.pattern that is no regular expression is refused at validation, naming the field', async () => {
    const { ThreadPageReaderSchema } = await import('../../lib/selectors/thread-schema');
    const bad = ThreadPageReaderSchema.safeParse({ ...threadPage2026, notFound: { ...threadPage2026.notFound, pattern: 'not found(' } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]).toMatchObject({ path: ['notFound', 'pattern'], message: expect.stringMatching(/not a valid regular expression/) });
    expect(ThreadPageReaderSchema.safeParse(threadPage2026).success).toBe(true);
  });
});
