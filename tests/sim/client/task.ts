/**
 * How a computer task looks in the simulated page, beside the turn markup of thread.ts: what the
 * task waits on the person for (questions, confirmations, sign-ins), the files it produced, its
 * sleep, the blocks a turn can end on (2FA, a form, credits, no access, an external wait), its Todo
 * list, and the task page's top bar.
 *
 * The public record does not show how these look (README.md, "Computer tasks"): each one is drawn
 * by exactly one function below, so a change seen on the real page is one edit here and one in
 * the extension's reader data (lib/selectors/thread-page.ts).
 */
import { assetPathOf, interactionIdOf } from '../tasks/task-paths';
import type { AssetSpec, BlockSpec, InteractionEvent, TurnData, TurnReply } from '../types';
import { h, icon, tr } from './dom';

export type Send = (event: InteractionEvent, reply: TurnReply) => void;

const clock = (ms: number) => new Date(ms).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The page's id of an interaction (the thread JSON uses the same). */
export const interactionId = (turn: TurnData, ev: InteractionEvent): string => interactionIdOf(turn, ev);

function head(iconName: string, label: string): HTMLElement {
  return h('div', { class: 'interaction-head' }, icon(iconName, 'icon icon-sm'), h('span', {}, label));
}

function button(label: string, cls: string, busy: boolean, onClick: () => void, aria = label): HTMLElement {
  const b = h('button', { type: 'button', class: cls, 'aria-label': aria }, label);
  if (busy) b.setAttribute('disabled', '');
  b.addEventListener('click', onClick);
  return b;
}

/** The box of a question (one, or several answered together), with its head and prompt. */
function questionShell(turn: TurnData, ev: InteractionEvent, attrs: Record<string, string | undefined>): HTMLElement {
  return h(
    'div',
    {
      class: 'task-interaction',
      role: 'group',
      'aria-label': tr.waitingForInput,
      'data-testid': 'ask-user-question',
      'data-followup-uuid': interactionId(turn, ev),
      ...attrs,
    },
    head('pplx-icon-message-question', tr.waitingForInput),
    h('div', { class: 'interaction-prompt select-text' }, ev.prompt),
  );
}

/** One question (suggested answers, free text, Send): the markup task-question has always had. */
function questionBox(turn: TurnData, ev: InteractionEvent, busy: boolean, send: Send): HTMLElement {
  const question = ev.questions?.[0];
  const options = ev.options ?? question?.options ?? [];
  const box = questionShell(turn, ev, { 'data-question-id': question?.id });
  if (options.length) {
    const opts = h('div', { class: 'interaction-options', role: 'group', 'aria-label': tr.suggestedAnswers });
    for (const o of options) opts.append(button(o, 'pill-btn', busy, () => send(ev, { kind: 'answer', text: o })));
    box.append(opts);
  }
  const field = h('textarea', { class: 'interaction-field', rows: '2', placeholder: tr.typeYourAnswer, 'aria-label': tr.yourAnswer }) as HTMLTextAreaElement;
  if (busy) field.setAttribute('disabled', '');
  const sendBtn = button(
    tr.send,
    'pill-btn primary',
    busy,
    () => {
      const text = field.value.trim();
      if (text) send(ev, { kind: 'answer', text });
    },
    tr.sendAnswer,
  );
  field.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      sendBtn.click();
    }
  });
  box.append(h('div', { class: 'interaction-reply' }, field, sendBtn));
  return box;
}

/**
 * Several multiple-choice questions in one box, answered together (Deep Research's clarifying
 * questions): each a radio group; Submit once every question has a choice; Skip; an expiry.
 */
function questionsBox(turn: TurnData, ev: InteractionEvent, busy: boolean, send: Send): HTMLElement {
  const chosen = new Map<string, string>();
  const expires = ev.expiresInMs !== undefined ? turn.startedAt + ev.t + ev.expiresInMs : undefined;
  const box = questionShell(turn, ev, { 'data-expires-at': expires !== undefined ? new Date(expires).toISOString() : undefined });
  const submit = button('Submit', 'pill-btn primary', true, () => send(ev, { kind: 'answers', answers: Object.fromEntries(chosen) }), 'Submit answers');
  const questions = ev.questions ?? [];
  const refresh = () => {
    if (!busy && questions.every((q) => chosen.has(q.id))) submit.removeAttribute('disabled');
  };
  for (const q of questions) {
    const group = h('div', { class: 'interaction-choices', role: 'radiogroup', 'aria-label': q.text });
    for (const o of q.options ?? []) {
      const choice = button(o, 'pill-btn', busy, () => {
        chosen.set(q.id, o);
        for (const other of group.querySelectorAll('[role="radio"]')) other.setAttribute('aria-checked', String(other === choice));
        refresh();
      });
      choice.setAttribute('role', 'radio');
      choice.setAttribute('aria-checked', 'false');
      group.append(choice);
    }
    box.append(h('fieldset', { class: 'interaction-question', 'data-question-id': q.id }, h('legend', { class: 'question-text' }, q.text), group));
  }
  const foot = h('div', { class: 'interaction-actions' });
  if (expires !== undefined) {
    foot.append(h('span', { class: 'text-xs text-quiet flex-1' }, 'These questions expire at ', h('time', { datetime: new Date(expires).toISOString() }, clock(expires))));
  }
  foot.append(button('Skip', 'pill-btn', busy, () => send(ev, { kind: 'skip' })), submit);
  box.append(foot);
  return box;
}

function confirmBox(turn: TurnData, ev: InteractionEvent, busy: boolean, send: Send): HTMLElement {
  return h(
    'div',
    {
      class: 'task-interaction',
      role: 'group',
      'aria-label': tr.waitingForConfirmation,
      'data-testid': 'confirm-action',
      'data-followup-uuid': interactionId(turn, ev),
    },
    head('pplx-icon-hand-stop', tr.waitingForConfirmation),
    h('div', { class: 'interaction-prompt select-text' }, ev.prompt),
    h(
      'div',
      { class: 'interaction-actions' },
      button(tr.approve, 'pill-btn primary', busy, () => send(ev, { kind: 'approve' })),
      button(tr.deny, 'pill-btn', busy, () => send(ev, { kind: 'deny' })),
    ),
  );
}

/** A connector sign-in the task waits on: the sign-in link, and "I've connected". */
function authBox(turn: TurnData, ev: InteractionEvent, busy: boolean, send: Send): HTMLElement {
  const c = ev.connector;
  return h(
    'div',
    {
      class: 'task-interaction',
      role: 'group',
      'aria-label': 'Sign-in needed',
      'data-testid': 'connector-auth',
      'data-followup-uuid': interactionId(turn, ev),
      'data-connector': c?.id,
    },
    head('pplx-icon-plug', `Sign-in needed: ${c?.name ?? 'a connector'}`),
    h('div', { class: 'interaction-prompt select-text' }, c?.title ?? ev.prompt),
    h('div', { class: 'interaction-description text-sm text-quiet' }, c?.description ?? ''),
    h(
      'div',
      { class: 'interaction-actions' },
      h('a', { class: 'pill-btn primary', href: c?.authUrl ?? '#', target: '_blank', rel: 'noopener', 'data-testid': 'connector-auth-link' }, `Connect ${c?.name ?? ''}`.trim()),
      button("I've connected", 'pill-btn', busy, () => send(ev, { kind: 'connected' })),
    ),
  );
}

/** What the paused turn waits on, one box per interaction. */
export function interactionBoxes(turn: TurnData, pending: InteractionEvent[], sending: Set<string>, send: Send): HTMLElement[] {
  return pending.map((ev) => {
    const busy = sending.has(interactionId(turn, ev));
    if (ev.kind === 'confirm_action') return confirmBox(turn, ev, busy, send);
    if (ev.kind === 'auth_required') return authBox(turn, ev, busy, send);
    return (ev.questions?.length ?? 0) > 1 ? questionsBox(turn, ev, busy, send) : questionBox(turn, ev, busy, send);
  });
}

/** A sign-in offered but not waited on (the task goes on without it). */
export function suggestionCard(turn: TurnData, ev: InteractionEvent): HTMLElement {
  const c = ev.connector;
  return h(
    'div',
    { class: 'connector-suggestion', 'data-testid': 'connector-suggestion', 'data-followup-uuid': interactionId(turn, ev), 'data-connector': c?.id },
    icon('pplx-icon-plug', 'icon icon-sm'),
    h('span', { class: 'flex-1' }, h('strong', {}, c?.title ?? 'Connect'), ` ${c?.description ?? ev.prompt}`),
    h('a', { class: 'pill-btn', href: c?.authUrl ?? '#', target: '_blank', rel: 'noopener', 'data-testid': 'connector-auth-link' }, 'Connect'),
  );
}

/** Files the task produced: the latest version of each file, as download links. */
export function filesCard(threadId: string, assets: AssetSpec[]): HTMLElement | null {
  if (!assets.length) return null;
  const superseded = new Set(assets.map((a) => a.parentId).filter(Boolean));
  const latest = assets.filter((a) => !superseded.has(a.id));
  const versionOf = (a: AssetSpec) => assets.filter((x) => (x.rootId ?? x.id) === (a.rootId ?? a.id)).indexOf(a) + 1;
  return h(
    'div',
    { class: 'task-files', 'data-testid': 'task-files' },
    ...latest.map((a) =>
      h(
        'div',
        {
          class: 'asset-card',
          'data-testid': 'asset-card',
          'data-asset-id': a.id,
          'data-root-asset-id': a.rootId,
          'data-parent-asset-id': a.parentId,
        },
        icon(a.mediaType.startsWith('image/') ? 'pplx-icon-photo' : 'pplx-icon-file-text'),
        h('a', { href: assetPathOf(threadId, a), download: a.filename, type: a.mediaType, 'data-testid': 'asset-card-open-button' }, a.filename),
        h('span', { class: 'text-xs text-quiet' }, `${a.mediaType.split('/')[1]?.toUpperCase() ?? ''} · version ${versionOf(a)}`),
      ),
    ),
  );
}

/** The agent paused itself until a time. */
export function sleepCard(wakeAt: number, reason: string): HTMLElement {
  return h(
    'div',
    { class: 'task-status', 'data-testid': 'task-sleeping', role: 'status' },
    icon('pplx-icon-moon', 'icon icon-sm'),
    h('span', {}, 'Sleeping until ', h('time', { datetime: new Date(wakeAt).toISOString() }, clock(wakeAt))),
    h('div', { class: 'task-notice text-sm text-quiet' }, reason),
  );
}

/**
 * The credits notice in the words the public record gives it (browser-use/browser-harness notes,
 * April 2026): the text "Insufficient credits", the headline "Add credits to continue" and an
 * "Add credits" control. The record shows no test id, so none is drawn: readers find the notice by
 * its words. Our guesses: `role="alert"`, the `data-reason` attribute, the quota line, and the
 * control being a link to the billing page (the Computer server's billing_url).
 */
function creditsNotice(text: string, url: string | undefined, attrs: Record<string, string | undefined>, quotaResetDate?: string): HTMLElement {
  const detail = text.replace(/^Insufficient credits\.\s*/, '').replace(/^Add credits to continue\.\s*/, '');
  return h(
    'div',
    { class: 'error-box', role: 'alert', ...attrs },
    icon('pplx-icon-credit-card'),
    h(
      'div',
      { class: 'flex-1' },
      h('div', { class: 'font-medium' }, 'Insufficient credits'),
      h('div', { class: 'text-sm' }, 'Add credits to continue'),
      detail ? h('div', { class: 'text-sm text-quiet' }, detail) : null,
      quotaResetDate ? h('div', { class: 'text-xs text-quiet' }, 'Quota resets ', h('time', { datetime: quotaResetDate }, quotaResetDate.slice(0, 10))) : null,
    ),
    h('a', { class: 'pill-btn primary', href: url ?? '#', target: '_blank', rel: 'noopener' }, 'Add credits'),
  );
}

/** The block a turn ended on. */
export function blockCard(turn: TurnData, block: BlockSpec, id: string): HTMLElement {
  switch (block.kind) {
    case 'waiting':
      return h('div', { class: 'task-status', 'data-testid': 'task-waiting', role: 'status' }, icon('pplx-icon-hourglass', 'icon icon-sm'), h('span', {}, block.text));
    case 'two_factor_required':
      return h(
        'div',
        { class: 'task-interaction', role: 'group', 'aria-label': 'Two-factor authentication', 'data-testid': 'two-factor-required', 'data-followup-uuid': id },
        head('pplx-icon-lock', 'Two-factor authentication'),
        h('div', { class: 'interaction-prompt select-text' }, block.text),
      );
    case 'interaction_required':
      return h(
        'div',
        { class: 'task-interaction', role: 'group', 'aria-label': 'Action needed in Perplexity', 'data-testid': 'form-required', 'data-followup-uuid': id },
        head('pplx-icon-forms', block.title ?? 'Form'),
        h('div', { class: 'interaction-prompt select-text' }, block.text),
        h('div', { class: 'interaction-actions' }, h('a', { class: 'pill-btn primary', href: block.url ?? '#', target: '_blank', rel: 'noopener', 'data-testid': 'form-link' }, `Open ${block.title ?? 'the form'}`)),
      );
    case 'insufficient_credits':
      return creditsNotice(block.text, block.url, { 'data-reason': block.reason }, block.quotaResetDate);
    case 'access_denied':
      return h('div', { class: 'error-box', role: 'alert', 'data-testid': 'access-denied' }, icon('pplx-icon-lock'), h('span', { class: 'flex-1' }, block.text));
  }
  return h('div', {}, turn.query);
}

/** "Apr 17, 4:00 AM", as the record quotes a tool row's time. */
const stamp = (ms: number) => new Date(ms).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/**
 * One tool step of a Computer task, as the public record describes it (browser-use/browser-harness
 * notes, April 2026): a wrapper whose class holds `group/tool-wrapper`, its only direct-child button
 * the label ("Writing to chart.py"), beside it the time and duration ("Apr 17, 4:00 AM · 9s"), which
 * stops growing when the tool is done. Our guesses: the icon inside the label, the classes, and
 * that the row pulses while it runs.
 */
export function toolRow(step: { icon: string; text: string; at: number }, until: number, current: boolean): HTMLElement {
  const seconds = Math.max(0, Math.round((until - step.at) / 1000));
  return h(
    'div',
    { class: `group/tool-wrapper flex flex-col gap-0.5${current ? ' animate-pulse' : ''}` },
    h('button', { type: 'button', class: 'tool-label flex items-center gap-2' }, icon(step.icon, 'icon icon-sm'), h('span', {}, step.text)),
    h('span', { class: 'text-xs text-quiet' }, `${stamp(step.at)} · ${seconds}s`),
  );
}

let radixIds = 0;

/**
 * The Todo button of a task page's top bar and its plan, as the public record describes them
 * (browser-use/browser-harness notes, April 2026): a Radix trigger reading "Todo" with `data-state`
 * closed/open, `aria-expanded` and `aria-controls` naming the panel, which is mounted as a portal whose
 * `id` is that name; the plan's title at the top as plain text, then one row per item with one icon,
 * `#pplx-icon-check` when done, an empty circle while pending. Our guesses: the panel's role and
 * classes, the Radix-style id, and the title (the task's).
 */
export function todoButton(title: () => string, plan: () => { text: string; done: boolean }[]): HTMLElement {
  radixIds += 1;
  const id = `radix-:r${radixIds.toString(36)}:`;
  const btn = h('button', { type: 'button', class: 'pill-btn', 'aria-haspopup': 'dialog', 'aria-expanded': 'false', 'aria-controls': id, 'data-state': 'closed' }, icon('pplx-icon-list', 'icon icon-sm'), 'Todo');
  let pop: HTMLElement | null = null;
  const close = () => {
    pop?.parentElement?.remove();
    pop = null;
    btn.setAttribute('aria-expanded', 'false');
    btn.setAttribute('data-state', 'closed');
  };
  btn.addEventListener('click', () => {
    if (pop) return close();
    const items = plan();
    pop = h(
      'div',
      { id, role: 'dialog', class: 'popover todo-popover', 'data-state': 'open', tabindex: '-1' },
      h('div', { class: 'font-medium' }, title()),
      ...(items.length
        ? items.map((g) => h('div', { class: 'todo-item' }, icon(g.done ? 'pplx-icon-check' : 'pplx-icon-circle', 'icon icon-sm'), h('span', {}, g.text)))
        : [h('div', { class: 'text-quiet' }, 'No plan yet')]),
    );
    document.body.append(h('div', { 'data-radix-popper-content-wrapper': '' }, pop));
    btn.setAttribute('aria-expanded', 'true');
    btn.setAttribute('data-state', 'open');
  });
  return btn;
}

/** A task page's top-bar buttons (besides Share): Usage and Todo. */
export function taskTopbarButtons(title: () => string, plan: () => { text: string; done: boolean }[]): HTMLElement[] {
  return [h('button', { type: 'button', class: 'pill-btn' }, icon('pplx-icon-chart', 'icon icon-sm'), 'Usage'), todoButton(title, plan)];
}

/** The account may not run this ask (HTTP 402 / 403 from the ask): shown at the composer, nothing sent. */
export function refusalCard(status: number | undefined, body: unknown): HTMLElement | null {
  const b = (body ?? {}) as { billing_url?: string };
  if (status === 402) {
    return creditsNotice('Your message was not sent.', b.billing_url, { 'data-reason': 'insufficient_credits', 'data-scope': 'composer' });
  }
  if (status === 403) {
    return h(
      'div',
      { class: 'error-box', role: 'alert', 'data-testid': 'access-denied', 'data-scope': 'composer' },
      icon('pplx-icon-lock'),
      h('span', { class: 'flex-1' }, "Computer is not available for your account. Ask your organization's administrator to enable Computer access."),
    );
  }
  return null;
}
