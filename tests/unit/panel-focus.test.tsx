// @vitest-environment happy-dom
import { h, render } from 'preact';
import { act } from 'preact/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { Approvals } from '../../components/agents/Approvals';
import { ControlCard } from '../../components/settings/ControlCard';
import { ModeCard } from '../../components/settings/ModeCard';
import type { PanelConnection } from '../../lib/panel/connection';
import type { PanelState, PendingApproval } from '../../lib/protocol/panel';

/**
 * Keyboard focus survives an action (review 15f, F6). Chromium blurs a focused control that turns `disabled`, and the
 * focus falls to the top of the panel: a busy control says so with aria-disabled, stays focusable and ignores presses
 * (useAction). An approved card that goes takes its focus with it: the focus moves to the next card. happy-dom does
 * not blur on `disabled`, so the attribute is what is read.
 */
const pending = (id: string, at: number): PendingApproval => ({
  id,
  clientName: 'claude-code',
  method: 'page.ask',
  what: `send the prompt “${id}”`,
  requestedAt: at,
  expiresAt: at + 120_000,
});

afterEach(() => {
  document.body.innerHTML = '';
});

describe('focus after an action', () => {
  it('Approve on one of two cards: the focus stays in the approvals (the next card), not on <body>', async () => {
    let resolve: () => void = () => {};
    let sent = 0;
    const connection = {
      request: () =>
        new Promise<void>((r) => {
          sent++;
          resolve = r;
        }),
    } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    await act(() => render(h(Approvals, { approvals: [pending('one', 1), pending('two', 2)], connection }), host));
    const approve = host.querySelectorAll('button')[0] as HTMLButtonElement;
    approve.focus();
    expect(document.activeElement).toBe(approve);
    await act(() => approve.click());
    expect(approve.disabled).toBe(false);
    expect(approve.getAttribute('aria-disabled')).toBe('true');
    // Pressed again while busy: nothing more is sent.
    await act(() => approve.click());
    expect(sent).toBe(1);
    await act(async () => resolve());
    // The worker's next state no longer holds the card: the focus is on the next card's Approve.
    await act(() => render(h(Approvals, { approvals: [pending('two', 2)], connection }), host));
    expect(document.activeElement?.textContent).toBe('Approve');
    expect(host.contains(document.activeElement)).toBe(true);
  });

  it('Approve on one of two cards, once the card is gone: the focus is not left on <body> (the removal alone)', async () => {
    const connection = { request: async () => ({}) } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    await act(() => render(h(Approvals, { approvals: [pending('one', 1), pending('two', 2)], connection }), host));
    const approve = host.querySelectorAll('button')[0] as HTMLButtonElement;
    approve.focus();
    await act(() => approve.click());
    await act(() => render(h(Approvals, { approvals: [pending('two', 2)], connection }), host));
    expect(document.activeElement).not.toBe(document.body);
  });

  it('a Control checkbox toggled from the keyboard stays focusable while its change is saved', async () => {
    const connection = { request: () => new Promise(() => {}) } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    const settings = { requireApproval: false, readOnly: false, approvalTimeoutSec: 120, publicScreenshots: false, publicLibrary: false };
    await act(() => render(h(ControlCard, { settings, otherTabs: { allowed: false }, connection }), host));
    const box = host.querySelector('input[type="checkbox"]') as HTMLInputElement;
    box.focus();
    await act(() => box.click());
    expect(box.disabled).toBe(false);
    expect(box.getAttribute('aria-disabled')).toBe('true');
    // A press while the change is saved is not taken: the box keeps the value being saved.
    await act(() => box.click());
    expect(box.checked).toBe(true);
  });

  it('a mode button pressed from the keyboard stays focusable while the switch runs', async () => {
    const connection = { request: () => new Promise(() => {}) } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    const state = { mode: { current: 'standard' }, perplexityTab: { tabId: '7', url: 'https://www.perplexity.ai/', title: 'Perplexity' } } as unknown as PanelState;
    await act(() => render(h(ModeCard, { state, connection }), host));
    const learn = host.querySelector('button[data-mode="learn"]') as HTMLButtonElement;
    learn.focus();
    await act(() => learn.click());
    expect(learn.disabled).toBe(false);
    expect(learn.getAttribute('aria-disabled')).toBe('true');
  });

  it('mode buttons are disabled outright only when no tab can be switched', async () => {
    const connection = { request: () => new Promise(() => {}) } as unknown as PanelConnection;
    const host = document.createElement('div');
    document.body.append(host);
    const state = { mode: { current: null }, perplexityTab: null, pageAccess: null } as unknown as PanelState;
    await act(() => render(h(ModeCard, { state, connection }), host));
    expect((host.querySelector('button[data-mode="learn"]') as HTMLButtonElement).disabled).toBe(true);
  });
});
