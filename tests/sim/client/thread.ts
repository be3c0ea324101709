/**
 * A thread page's list of turns: query bubble, tabs (Answer / Links or Sources), steps block, streamed
 * answer, citations and their popover, error and stopped states, and virtualization (turns out of view
 * become empty placeholders of the same height, keeping their `data-workflow-entry`).
 *
 * Each turn plays its server-built script with one timer at a time; nothing runs when nothing streams.
 */
import { blockHtml, blockTokens, citationGroups, esc, iconHtml } from '../answer';
import { blockId } from '../task-paths';
import type { AssetSpec, Block, BlockSpec, InteractionEvent, ScriptEvent, Source, ThreadData, TurnData, TurnReply } from '../types';
import { api, app, emit, fromHtml, h, icon, radixId, tr } from './dom';
import { blockCard, filesCard, interactionBoxes, interactionId, sleepCard, suggestionCard } from './task';
import { tabLinks, toggleGroupedBadge, variant } from './variants';

/** `blocked`: a computer task ended on something the person must clear (task.ts draws it). */
type Status = 'working' | 'finished' | 'stopped' | 'error' | 'blocked';

const FOLD_CHARS = 300;
const FOLD_LINES = 6;

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname.replace(/^www\./, '')}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return url;
  }
}

interface View {
  stepsBox: HTMLElement;
  answerPanel: HTMLElement;
  linksPanel: HTMLElement;
  answerTab: HTMLElement;
  linksTab: HTMLElement;
  prose: HTMLElement | null;
  doneBlocks: number;
  partialEl: Element | null;
  askSlot: HTMLElement;
  taskSlot: HTMLElement;
  endSlot: HTMLElement;
}

export interface ThreadHost {
  onWorkingChange(working: boolean): void;
  onStop(turn: TurnCtl): void;
  retry(query: string): void;
  /** Sends the person's reply to one of the turn's interactions; resolves with the turn as the server now has it. */
  reply(turn: TurnCtl, reply: TurnReply, interaction: string): Promise<TurnData>;
}

export class TurnCtl {
  readonly el: HTMLElement;
  applied = 0;
  steps: { icon: string; text: string }[] = [];
  tokens = 0;
  status: Status = 'working';
  errorMessage = '';
  stepsOpen = true;
  queryOpen = false;
  tab: 'answer' | 'links' = 'answer';
  view: View | null = null;
  /** What the turn waits on (computer mode): the script is paused while any is set. */
  pending: InteractionEvent[] = [];
  /** Interactions whose reply is in flight. */
  private readonly sending = new Set<string>();
  /** Computer task state (client/task.ts draws it). */
  plan: { text: string; done: boolean }[] = [];
  assets: AssetSpec[] = [];
  offered: InteractionEvent[] = [];
  sleep: { wakeAt: number; reason: string } | null = null;
  block: BlockSpec | null = null;
  /** A question that expires: the service skips it by itself at that time. */
  private expiry: ReturnType<typeof setTimeout> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(
    readonly data: TurnData,
    private readonly host: ThreadHost,
    private readonly threadId = '',
  ) {
    this.el = h('div', { 'data-workflow-entry': String(data.index), class: 'turn' });
    this.measure();
  }

  private measure(): void {
    this.starts.length = 0;
    this.ends.length = 0;
    let n = 0;
    for (const b of this.data.script.answer) {
      this.starts.push(n);
      n += blockTokens(b);
      this.ends.push(n);
    }
  }

  get index(): number {
    return this.data.index;
  }

  /**
   * Plays the script from where the clock says the turn is. `live` (a turn just asked in this page):
   * events already due are reported to window.__sim too; otherwise past events are applied silently.
   */
  start(live: boolean): void {
    const evs = this.data.script.events;
    if (this.data.stoppedAfter !== null) {
      for (let i = 0; i < Math.min(this.data.stoppedAfter, evs.length); i++) this.apply(evs[i] as ScriptEvent, false);
      if (this.status === 'working') this.end('stopped');
      return;
    }
    const elapsed = Date.now() - this.data.startedAt;
    while (this.status === 'working' && this.applied < evs.length && this.canApply(evs[this.applied] as ScriptEvent) && (evs[this.applied] as ScriptEvent).t <= elapsed) {
      this.apply(evs[this.applied] as ScriptEvent, live);
    }
    this.schedule();
  }

  /** A paused turn takes only the other interactions asked at the same moment. */
  private canApply(ev: ScriptEvent): boolean {
    const first = this.pending[0];
    return !first || (ev.type === 'interaction' && ev.t === first.t);
  }

  private schedule(): void {
    const next = this.data.script.events[this.applied];
    if (!next || this.status !== 'working' || this.pending.length > 0) return;
    const delay = Math.max(0, this.data.startedAt + next.t - Date.now());
    this.timer = setTimeout(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = null;
    const evs = this.data.script.events;
    const elapsed = Date.now() - this.data.startedAt;
    while (this.status === 'working' && this.applied < evs.length && this.canApply(evs[this.applied] as ScriptEvent) && (evs[this.applied] as ScriptEvent).t <= elapsed) {
      this.apply(evs[this.applied] as ScriptEvent, true);
    }
    this.schedule();
  }

  /** Applies one script event to the model and, if mounted, to the DOM. */
  private apply(ev: ScriptEvent, live: boolean): void {
    this.applied += 1;
    if (this.sleep && ev.type !== 'sleep') {
      this.sleep = null; // the agent woke up
      this.renderTask();
    }
    switch (ev.type) {
      case 'step':
        this.steps.push({ icon: ev.icon, text: ev.text });
        this.renderSteps();
        if (live) emit('step', this.index);
        break;
      case 'tokens':
        this.tokens = ev.upto;
        this.renderAnswer();
        break;
      case 'finish':
        this.tokens = Number.POSITIVE_INFINITY;
        this.end('finished');
        if (live) emit('answer-finished', this.index);
        break;
      case 'error':
        this.errorMessage = ev.message;
        this.end('error');
        if (live) emit('error', this.index);
        break;
      case 'interaction':
        if (ev.optional) {
          this.offered.push(ev);
          this.renderTask();
          break;
        }
        // Answered already (a reload after the reply): its continuation follows in the script.
        if (this.data.reply || this.data.replies?.[interactionId(this.data, ev)]) break;
        this.pending.push(ev);
        if (ev.expiresInMs !== undefined) {
          const due = this.data.startedAt + ev.t + ev.expiresInMs - Date.now();
          this.expiry = setTimeout(() => void this.send(ev, { kind: 'skip' }), Math.max(0, due));
        }
        this.renderSteps();
        this.renderInteraction();
        if (live && this.pending.length === 1) emit('waiting', this.index);
        break;
      case 'plan':
        this.plan = ev.goals.map((text) => ({ text, done: false }));
        break;
      case 'goal-done': {
        const goal = this.plan[ev.index];
        if (goal) goal.done = true;
        break;
      }
      case 'files':
        this.assets.push(...ev.assets);
        this.renderTask();
        if (live) emit('files', this.index);
        break;
      case 'sleep':
        this.sleep = { wakeAt: this.data.startedAt + ev.t + ev.wakeInMs, reason: ev.reason };
        this.renderSteps();
        this.renderTask();
        if (live) emit('sleeping', this.index);
        break;
      case 'block':
        this.block = ev.block;
        this.end('blocked');
        if (live) emit('blocked', this.index);
        break;
      default:
        // Event kinds of future scenarios are ignored until rendered here.
        break;
    }
  }

  /** The server now holds a newer script for this turn (a reply made elsewhere): play on from it. */
  adopt(turn: TurnData): void {
    this.data.script = turn.script;
    if (turn.reply) this.data.reply = turn.reply;
    if (turn.replies) this.data.replies = turn.replies;
    this.measure();
    this.pending = this.pending.filter((ev) => !this.data.reply && !this.data.replies?.[interactionId(this.data, ev)]);
    this.renderSteps();
    this.renderInteraction();
    this.tick();
  }

  /**
   * The person answered one interaction: once every waiting one has its reply, the server appends
   * the continuation and the script plays on from it.
   */
  private async send(ev: InteractionEvent, reply: TurnReply): Promise<void> {
    const id = interactionId(this.data, ev);
    if (!this.pending.includes(ev) || this.sending.has(id)) return;
    this.sending.add(id);
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.renderInteraction();
    try {
      const turn = await this.host.reply(this, reply, id);
      this.data.script = turn.script;
      if (turn.reply) this.data.reply = turn.reply;
      if (turn.replies) this.data.replies = turn.replies;
      this.measure();
      this.pending = turn.reply ? [] : this.pending.filter((p) => p !== ev);
      emit('replied', this.index);
    } catch {
      // The box stays; the person can try again.
    } finally {
      this.sending.delete(id);
    }
    this.renderSteps();
    this.renderInteraction();
    this.tick();
  }

  private end(status: Status): void {
    this.status = status;
    this.pending = [];
    this.sleep = null;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
    this.stepsOpen = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.view) {
      this.renderSteps();
      this.renderAnswer();
      this.renderInteraction();
      this.renderTask();
      this.renderEnd();
    }
    this.host.onWorkingChange(false);
  }

  /** Stop pressed: the answer keeps what it had, steps stop. */
  stop(): void {
    if (this.status !== 'working') return;
    this.end('stopped');
    emit('stopped', this.index);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = null;
  }

  // -------------------------------------------------------------------------------------------------
  // Rendering

  mount(): void {
    const d = this.data;
    this.el.style.height = '';
    const gen = app.generation;

    // Query
    const long = d.query.length > FOLD_CHARS || d.query.split('\n').length > FOLD_LINES;
    const queryText = h('div', { class: 'whitespace-pre-line break-words select-text [word-break:break-word]' });
    const setQuery = () => {
      if (!long || this.queryOpen) queryText.textContent = d.query;
      else queryText.textContent = `${d.query.split('\n').slice(0, FOLD_LINES).join('\n').slice(0, FOLD_CHARS - 60)}…`;
    };
    setQuery();
    let toggle: HTMLElement | null = null;
    if (long) {
      toggle = h(
        'button',
        { type: 'button', class: 'expand-q', 'data-testid': 'toggle-query-expand-button', 'aria-expanded': String(this.queryOpen) },
        this.queryOpen ? tr.showLess : tr.showMore,
      );
      toggle.addEventListener('click', () => {
        this.queryOpen = !this.queryOpen;
        setQuery();
        toggle?.setAttribute('aria-expanded', String(this.queryOpen));
        if (toggle) toggle.textContent = this.queryOpen ? tr.showLess : tr.showMore;
      });
    }
    // The look-alike: an element whose class merely mentions user-bubble (hover tools), placed first.
    const hoverTools = h(
      'div',
      { class: 'query-tools opacity-0 group-hover/user-bubble:opacity-100 transition-opacity' },
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.editQuery }, icon('pplx-icon-rewrite')),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.copyQuery }, icon('pplx-icon-copy')),
    );
    const queryBlock =
      gen === 'B'
        ? h('div', { class: 'query-row' }, hoverTools, h('div', { class: 'group/user-bubble bubble relative' }, queryText, toggle))
        : h(
            'div',
            { class: 'relative' },
            h('div', { class: 'group/query query-title' }, queryText, toggle),
            h('div', { class: 'hidden' }, hoverTools),
          );

    // Tabs
    const base = `turn-${d.index}-${radixId().replace(/[^a-z0-9]/g, '')}`;
    const linksLabel = gen === 'B' ? tr.linksTab : tr.sourcesTab;
    const answerTab = h(
      'button',
      { type: 'button', role: 'tab', ...tabLinks({ id: `${base}-tab-answer`, 'aria-controls': `${base}-panel-answer` }), 'data-state': 'active' },
      icon('pplx-icon-sparkles', 'icon icon-sm'),
      tr.answerTab,
    );
    const linksTab = h(
      'button',
      { type: 'button', role: 'tab', ...tabLinks({ id: `${base}-tab-links`, 'aria-controls': `${base}-panel-links` }) },
      icon('pplx-icon-globe', 'icon icon-sm'),
      linksLabel,
      h('span', { class: 'text-xs text-quiet' }, String(d.script.sources.length)),
    );
    const tablist = h('div', { role: 'tablist', 'aria-orientation': 'horizontal', class: 'tabs' }, answerTab, linksTab);
    const answerPanel = h('div', { role: 'tabpanel', ...tabLinks({ id: `${base}-panel-answer`, 'aria-labelledby': `${base}-tab-answer` }) });
    const linksPanel = h('div', { role: 'tabpanel', ...tabLinks({ id: `${base}-panel-links`, 'aria-labelledby': `${base}-tab-links` }) });
    const select = (tab: 'answer' | 'links') => {
      this.tab = tab;
      this.paintTabs();
    };
    answerTab.addEventListener('click', () => select('answer'));
    linksTab.addEventListener('click', () => select('links'));

    const stepsBox = h('div', { class: 'contents' });
    const askSlot = h('div', {});
    const taskSlot = h('div', {});
    const endSlot = h('div', {});
    answerPanel.append(stepsBox, askSlot, taskSlot, endSlot);
    this.el.replaceChildren(queryBlock, tablist, answerPanel, linksPanel);
    this.view = { stepsBox, answerPanel, linksPanel, answerTab, linksTab, prose: null, doneBlocks: 0, partialEl: null, askSlot, taskSlot, endSlot };
    this.paintTabs();
    this.renderSteps();
    this.renderAnswer();
    this.renderInteraction();
    this.renderTask();
    this.renderEnd();
  }

  unmount(): void {
    if (!this.view) return;
    const height = this.el.getBoundingClientRect().height;
    this.view = null;
    this.el.replaceChildren();
    this.el.style.height = `${Math.round(height)}px`;
  }

  private paintTabs(): void {
    const v = this.view;
    if (!v) return;
    const links = this.tab === 'links';
    v.answerTab.setAttribute('aria-selected', String(!links));
    v.answerTab.setAttribute('data-state', links ? 'inactive' : 'active');
    v.linksTab.setAttribute('aria-selected', String(links));
    v.linksTab.setAttribute('data-state', links ? 'active' : 'inactive');
    v.answerPanel.hidden = links;
    v.answerPanel.setAttribute('data-state', links ? 'inactive' : 'active');
    v.linksPanel.hidden = !links;
    v.linksPanel.setAttribute('data-state', links ? 'active' : 'inactive');
    // Like Radix Tabs, an inactive panel has no content.
    if (links) v.linksPanel.replaceChildren(this.sourcesList());
    else v.linksPanel.replaceChildren();
  }

  private sourcesList(): HTMLElement {
    const list = h('div', { class: 'sources-list' });
    this.data.script.sources.forEach((s, i) => {
      const body = [
        h('div', { class: 'text-xs text-quiet' }, `${i + 1}. ${s.name}`),
        h('div', { class: 'font-medium' }, s.title),
        h('div', { class: 'url' }, s.url ? hostOf(s.url) : tr.uploadedFile),
      ];
      list.append(
        s.url
          ? h('a', { href: s.url, target: '_blank', rel: 'noopener', class: 'source-card' }, ...body)
          : h('div', { class: 'source-card' }, ...body),
      );
    });
    return list;
  }

  private renderSteps(): void {
    const v = this.view;
    if (!v) return;
    const n = this.steps.length;
    const working = this.status === 'working' && this.pending.length === 0 && !this.sleep;
    const label =
      this.status === 'working'
        ? (this.steps[n - 1]?.text ?? tr.working)
        : this.status === 'stopped'
          ? tr.stepsStopped(n)
          : tr.stepsFinished(n);
    const head = h(
      'button',
      { type: 'button', class: 'flex items-center gap-2 flex-1', 'aria-expanded': String(this.stepsOpen) },
      working
        ? h('span', { class: 'spinner animate-spin', 'aria-hidden': 'true' })
        : icon(this.pending.length ? 'pplx-icon-message-question' : this.sleep ? 'pplx-icon-moon' : 'pplx-icon-circle-check'),
      h('span', { class: working ? 'animate-pulse' : '' }, label),
    );
    head.addEventListener('click', () => {
      this.stepsOpen = !this.stepsOpen;
      this.renderSteps();
    });
    const headRow = h('div', { class: 'steps-head' }, head);
    if (this.status === 'working' && app.generation === 'B') {
      const cancel = h('button', { type: 'button', class: 'cancel', 'aria-label': tr.cancel }, tr.cancel);
      cancel.addEventListener('click', () => this.host.onStop(this));
      headRow.append(cancel);
    }
    const box = h('div', { class: 'steps' }, headRow);
    if (this.stepsOpen && n) {
      const rows = h('div', { class: 'step-rows' });
      this.steps.forEach((s, i) => {
        const current = working && i === n - 1;
        // Computer tasks draw each tool step as a `group/tool-wrapper` row (docs: task pages).
        const tool = this.data.mode === 'computer' ? ' group/tool-wrapper' : '';
        rows.append(h('div', { class: `step-row${tool}${current ? ' animate-pulse' : ''}` }, icon(s.icon), h('span', {}, s.text)));
      });
      box.append(rows);
    }
    if (!n && !working) {
      v.stepsBox.replaceChildren();
      return;
    }
    v.stepsBox.replaceChildren(box);
  }

  /**
   * What the paused task waits on, inside the turn (client/task.ts draws each kind). Gone once
   * answered, stopped or finished.
   */
  private renderInteraction(): void {
    const v = this.view;
    if (!v) return;
    v.askSlot.replaceChildren(...interactionBoxes(this.data, this.pending, this.sending, (ev, reply) => void this.send(ev, reply)));
  }

  /** Files, a sleep, sign-ins offered: what a computer task shows besides steps and answer. */
  private renderTask(): void {
    const v = this.view;
    if (!v) return;
    const parts = [
      ...(this.status === 'working' ? this.offered.map((ev) => suggestionCard(this.data, ev)) : []),
      this.sleep ? sleepCard(this.sleep.wakeAt, this.sleep.reason) : null,
      filesCard(this.threadId, this.assets),
    ].filter((x): x is HTMLElement => x !== null);
    v.taskSlot.replaceChildren(...parts);
  }

  /** Brings the answer DOM up to `tokens`, appending completed blocks and redrawing only the last one. */
  private renderAnswer(): void {
    const v = this.view;
    if (!v || this.tokens <= 0) return;
    const blocks = this.data.script.answer;
    if (!v.prose) {
      v.prose = h('div', { class: 'prose dark:prose-invert inline leading-relaxed break-words min-w-0', 'data-renderer': 'lm' });
      const final = h('div', { 'data-workflow-final-text': '', class: 'group/final-text relative' }, v.prose);
      v.stepsBox.after(final);
    }
    const ctx = { generation: app.generation, sources: this.data.script.sources, groupedBadges: variant('groupedBadges') };
    const prose = v.prose;
    while (v.doneBlocks < blocks.length && (this.ends[v.doneBlocks] as number) <= this.tokens) {
      const el = fromHtml(blockHtml(blocks[v.doneBlocks] as Block, Number.POSITIVE_INFINITY, ctx));
      if (v.partialEl) v.partialEl.replaceWith(el);
      else prose.append(el);
      v.partialEl = null;
      v.doneBlocks += 1;
    }
    const i = v.doneBlocks;
    if (i < blocks.length && (this.starts[i] as number) < this.tokens) {
      const el = fromHtml(blockHtml(blocks[i] as Block, this.tokens - (this.starts[i] as number), ctx));
      if (v.partialEl) v.partialEl.replaceWith(el);
      else prose.append(el);
      v.partialEl = el;
    }
  }

  /** What follows the answer: tools when finished, the error box, nothing while working. */
  private renderEnd(): void {
    const v = this.view;
    if (!v) return;
    v.endSlot.replaceChildren();
    if (this.status === 'blocked' && this.block) {
      v.endSlot.append(blockCard(this.data, this.block, blockId(this.data, this.block)));
      return;
    }
    if (this.status === 'error') {
      const retry = h('button', { type: 'button', class: 'pill-btn' }, icon('pplx-icon-rewrite', 'icon icon-sm'), tr.retry);
      retry.addEventListener('click', () => this.host.retry(this.data.query));
      v.endSlot.append(
        h('div', { class: 'error-box', role: 'alert' }, icon('pplx-icon-alert-triangle'), h('span', { class: 'flex-1' }, this.errorMessage), retry),
      );
      return;
    }
    if (this.status === 'working') return;
    const tools = h(
      'div',
      { class: 'answer-tools' },
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.share }, icon('pplx-icon-share')),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.rewrite }, icon('pplx-icon-rewrite')),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.copy }, icon('pplx-icon-copy')),
      h('span', { class: 'flex-1' }),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.helpful }, icon('pplx-icon-thumb-up')),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.more }, icon('pplx-icon-dots')),
    );
    v.endSlot.append(tools);
  }

  /** Group of sources behind the n-th citation of this turn's answer. */
  citationGroup(ordinal: number): number[] | undefined {
    return citationGroups(this.data.script.answer)[ordinal];
  }

  get sources(): Source[] {
    return this.data.script.sources;
  }
}

// ---------------------------------------------------------------------------------------------------

export class ThreadView {
  readonly el: HTMLElement;
  readonly list: HTMLElement;
  readonly turns: TurnCtl[] = [];
  private readonly io: IntersectionObserver;
  private popover: HTMLElement | null = null;
  private popoverFor: Element | null = null;

  /** `liveTurn`: index of a turn just asked in this page (its events are reported as they happen). */
  constructor(
    readonly thread: ThreadData,
    private readonly host: Omit<ThreadHost, 'reply'>,
    liveTurn = -1,
  ) {
    this.list = h('div', { class: 'flex flex-col' });
    this.el = h('div', { class: 'max-w-threadContentWidth' }, this.list);
    this.io = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const t = this.turns.find((x) => x.el === e.target);
          if (!t) continue;
          if (e.isIntersecting && !t.view) t.mount();
          else if (!e.isIntersecting && t.view) t.unmount();
        }
      },
      { rootMargin: '120px 0px' },
    );
    this.el.addEventListener('click', (e) => this.onClick(e));
    for (const d of thread.turns) this.add(d, d.index === liveTurn);
  }

  /** Adds a turn (from the page data or a new ask), plays it from where the clock says it is. */
  add(d: TurnData, live = false): TurnCtl {
    const t = new TurnCtl(d, {
      onWorkingChange: () => this.host.onWorkingChange(this.working),
      onStop: (x) => this.host.onStop(x),
      retry: (q) => this.host.retry(q),
      reply: async (x, r, interaction) =>
        (await api<{ turn: TurnData }>('reply', { thread: this.thread.id, turn: x.index, interaction, reply: r })).turn,
    }, this.thread.id);
    this.turns.push(t);
    this.list.append(t.el);
    t.mount();
    if (live) emit('turn-started', d.index);
    t.start(live);
    this.io.observe(t.el);
    this.host.onWorkingChange(this.working);
    return t;
  }

  get working(): boolean {
    return this.turns.some((t) => t.status === 'working');
  }

  get current(): TurnCtl | undefined {
    return this.turns[this.turns.length - 1];
  }

  dispose(): void {
    this.io.disconnect();
    this.closePopover();
    for (const t of this.turns) t.dispose();
  }

  // -------------------------------------------------------------------------------------------------
  // Citation popover (generation B)

  private onClick(e: Event): void {
    if (app.generation !== 'B') {
      const turnEl = (e.target as Element).closest('[data-workflow-entry]');
      const turn = this.turns.find((t) => t.el === turnEl);
      if (turn) toggleGroupedBadge(e.target as Element, turn.sources);
      return;
    }
    const cite = (e.target as Element).closest('.citation');
    if (!cite) return;
    const turnEl = cite.closest('[data-workflow-entry]');
    const turn = this.turns.find((t) => t.el === turnEl);
    const final = cite.closest('[data-workflow-final-text]');
    if (!turn || !final) return;
    if (this.popoverFor === cite) {
      this.closePopover();
      return;
    }
    const ordinal = [...final.querySelectorAll('.citation')].indexOf(cite);
    const group = turn.citationGroup(ordinal);
    if (!group) return;
    this.openPopover(cite, group.map((i) => turn.sources[i]).filter((s): s is Source => !!s));
  }

  private openPopover(anchor: Element, sources: Source[]): void {
    this.closePopover();
    const entries = sources.map((s) =>
      s.url
        ? `<a class="entry" href="${esc(s.url)}" target="_blank" rel="noopener"><div class="entry-title">${esc(s.title)}</div><div class="entry-url">${esc(s.url)}</div></a>`
        : `<div class="entry"><div class="entry-title">${esc(s.title)}</div></div>`,
    );
    const dialog = fromHtml(
      `<div role="dialog" data-state="open" class="popover"><div class="flex items-center gap-2 text-xs text-quiet" style="padding:4px 8px">${iconHtml('pplx-icon-globe', 'icon icon-sm')}${esc(tr.sourcesCount(sources.length))}</div>${entries.join('')}</div>`,
    ) as HTMLElement;
    const wrapper = h('div', { 'data-radix-popper-content-wrapper': '' }, dialog);
    document.body.append(wrapper);
    const r = anchor.getBoundingClientRect();
    const top = r.bottom + 6 + dialog.offsetHeight > window.innerHeight ? Math.max(8, r.top - 6 - dialog.offsetHeight) : r.bottom + 6;
    dialog.style.top = `${Math.round(top)}px`;
    dialog.style.left = `${Math.round(Math.min(r.left, window.innerWidth - dialog.offsetWidth - 8))}px`;
    this.popover = wrapper;
    this.popoverFor = anchor;
    document.addEventListener('pointerdown', this.onOutside, true);
    document.addEventListener('keydown', this.onEscape, true);
  }

  private onOutside = (e: Event) => {
    const t = e.target as Node;
    if (this.popover?.contains(t) || this.popoverFor?.contains(t)) return;
    this.closePopover();
  };

  private onEscape = (e: KeyboardEvent) => {
    if (e.key === 'Escape') this.closePopover();
  };

  closePopover(): void {
    this.popover?.remove();
    this.popover = null;
    this.popoverFor = null;
    document.removeEventListener('pointerdown', this.onOutside, true);
    document.removeEventListener('keydown', this.onEscape, true);
  }
}
