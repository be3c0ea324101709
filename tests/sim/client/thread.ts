/**
 * A thread page's list of turns: query bubble, tabs (Answer / Links or Sources), steps block, streamed
 * answer, citations and their popover, error and stopped states, and virtualization (turns out of view
 * become empty placeholders of the same height, keeping their `data-workflow-entry`).
 *
 * Each turn plays its server-built script with one timer at a time; nothing runs when nothing streams.
 */
import { blockHtml, blockTokens, citationGroups, esc, iconHtml } from '../answer';
import { promptHtml } from '../prompt-markdown';
import { blockId } from '../tasks/task-paths';
import type { AssetSpec, Block, BlockSpec, InteractionEvent, ScriptEvent, Source, ThreadData, ThreadLayout, TurnData, TurnReply } from '../types';
import { api, app, emit, fromHtml, h, icon, lt, radixId, tr } from './dom';
import { blockCard, filesCard, interactionBoxes, interactionId, sleepCard, suggestionCard, toolRow } from './task';
import { tabLinks, toggleGroupedBadge, variant } from './variants';

/** How many answers a long thread keeps mounted in the Aug–Oct 2026 layout (measured live 2026-09-18). */
export const MOUNTED_ANSWERS = 5;

/** `blocked`: a computer task ended on something the person must clear (task.ts draws it). */
type Status = 'working' | 'finished' | 'stopped' | 'error' | 'blocked';

/**
 * The answer streams the page is reading, by turn uuid (client/main.ts): a turn's end waits for its stream's, as
 * the live page draws the end the stream announced (issue 30). Settles however the read ends (an abort too).
 */
export const askStreamsRead = new Map<string, Promise<void>>();

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
  /** The turn's own tabs (turn-2026-04 only; the captured layouts have one tablist in the thread header). */
  tabs: { answerPanel: HTMLElement; linksPanel: HTMLElement; answerTab: HTMLElement; linksTab: HTMLElement } | null;
  /** February's per-turn sources panel, switched by the header tablist. */
  sourcesPanel: HTMLElement | null;
  /** The answer block (`[data-workflow-final-text]` or `#markdown-content-N`), once the first token came. */
  final: HTMLElement | null;
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
  /** Each step, with when it began (ms). */
  steps: { icon: string; text: string; at: number }[] = [];
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
  /** When this page plays the script from: the turn's start, later by the page's paint lag for a turn asked in it. */
  private origin = 0;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(
    readonly data: TurnData,
    private readonly host: ThreadHost,
    private readonly threadId = '',
    readonly layout: ThreadLayout = 'turn-2026-04',
    /** February: the ids of the header's Links tab and of the panel it names, which every turn's panel carries (a capture of 2026-02-27). */
    private readonly links?: { trigger: string; panel: string },
  ) {
    this.el =
      layout === 'markdown-2026-02'
        ? h('div', { class: 'turn', role: 'tabpanel', 'data-state': 'active', 'data-orientation': 'horizontal' })
        : h('div', { 'data-workflow-entry': String(data.index), class: layout === 'turn-2026-04' ? 'turn' : 'entry' });
    this.measure();
  }

  /** The elements the turn puts in the thread's list: one, or (Aug–Oct 2026) the question and its siblings. */
  get parts(): HTMLElement[] {
    const v = this.view;
    if ((this.layout !== 'blocks-2026-08' && this.layout !== 'sessions-2026-09') || !v) return [this.el];
    return [this.el, v.stepsBox, v.askSlot, v.taskSlot, ...(v.final ? [v.final] : []), v.endSlot];
  }

  /** Whether `node` is part of this turn on the page. */
  owns(node: Node): boolean {
    return this.parts.some((p) => p.contains(node));
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
    // A turn asked in this page is typed out behind its stream by the page's paint lag (SimOptions.paintLagMs).
    this.origin = this.data.startedAt + (live && app.boot.askStream ? (app.boot.paintLagMs ?? 0) : 0);
    const elapsed = Date.now() - this.origin;
    while (
      this.status === 'working' &&
      this.applied < evs.length &&
      this.canApply(evs[this.applied] as ScriptEvent) &&
      (evs[this.applied] as ScriptEvent).t <= elapsed &&
      !this.held(evs[this.applied])
    ) {
      this.apply(evs[this.applied] as ScriptEvent, live);
    }
    this.schedule();
  }

  /** A paused turn takes only the other interactions asked at the same moment. */
  private canApply(ev: ScriptEvent): boolean {
    const first = this.pending[0];
    return !first || (ev.type === 'interaction' && ev.t === first.t);
  }

  /** The turn's answer stream, while the page still reads it: its end is drawn only after (the live page draws what the stream said). */
  private held(ev: ScriptEvent | undefined): boolean {
    return ev?.type === 'finish' && askStreamsRead.has(this.data.uuid ?? '');
  }

  private schedule(): void {
    const next = this.data.script.events[this.applied];
    if (!next || this.status !== 'working' || this.pending.length > 0) return;
    const reading = askStreamsRead.get(this.data.uuid ?? '');
    if (reading && this.held(next)) {
      void reading.then(() => {
        askStreamsRead.delete(this.data.uuid ?? '');
        if (this.status === 'working' && !this.timer) this.schedule();
      });
      return;
    }
    const delay = Math.max(0, this.origin + next.t - Date.now());
    this.timer = setTimeout(() => this.tick(), delay);
  }

  /**
   * Plays the events of one moment of the script (those sharing a time) per task, however late the timer
   * fired: the live page gets each streamed message in a task of its own, so each step row it draws is on
   * the page for at least one task before the next message (the fold at the end included) can change it.
   * Played all at once, a late timer under CPU load drew steps and folded them away within one task, where
   * no reader can see them (the missed steps of tests/e2e/ask-and-wait.spec.ts, 2026-12-02).
   */
  private tick(): void {
    this.timer = null;
    const evs = this.data.script.events;
    const elapsed = Date.now() - this.origin;
    const moment = (evs[this.applied] as ScriptEvent | undefined)?.t;
    while (
      this.status === 'working' &&
      this.applied < evs.length &&
      this.canApply(evs[this.applied] as ScriptEvent) &&
      (evs[this.applied] as ScriptEvent).t <= elapsed &&
      (evs[this.applied] as ScriptEvent).t === moment &&
      !this.held(evs[this.applied])
    ) {
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
        this.steps.push({ icon: ev.icon, text: ev.text, at: this.data.startedAt + ev.t });
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
      // Two replies in flight may come back in either order; a turn's script only grows, so the
      // older snapshot is not put over the newer (it would drop the continuation the last reply built).
      if (turn.script.events.length >= this.data.script.events.length) {
        this.data.script = turn.script;
        if (turn.replies) this.data.replies = turn.replies;
      }
      if (turn.reply) this.data.reply = turn.reply;
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
    if (this.layout === 'turn-2026-04') this.mountTurn();
    else this.mountCaptured();
    this.renderSteps();
    this.renderAnswer();
    this.renderInteraction();
    this.renderTask();
    this.renderEnd();
  }

  /**
   * The query text, folded behind "Show more" when long. `rendered`: drawn by the answer's Markdown renderer, as the
   * Sep 2026 captures draw the question (`[data-renderer="lm"] › p`, no class of its own; prompt-markdown.ts), so the
   * reader's live candidate is the one used and a prompt's marks do not show.
   */
  private queryParts(rendered = false): { text: HTMLElement; toggle: HTMLElement | null } {
    const d = this.data;
    const long = d.query.length > FOLD_CHARS || d.query.split('\n').length > FOLD_LINES;
    const queryText = rendered ? h('div', { 'data-renderer': 'lm' }) : h('div', { class: 'whitespace-pre-line break-words select-text [word-break:break-word]' });
    const setQuery = () => {
      const shown = !long || this.queryOpen ? d.query : `${d.query.split('\n').slice(0, FOLD_LINES).join('\n').slice(0, FOLD_CHARS - 60)}…`;
      if (rendered) queryText.innerHTML = promptHtml(shown);
      else queryText.textContent = shown;
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
    return { text: queryText, toggle };
  }

  private queryTools(cls: string): HTMLElement {
    return h(
      'div',
      { class: cls },
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.editQuery }, icon('pplx-icon-rewrite')),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': tr.copyQuery }, icon('pplx-icon-copy')),
    );
  }

  /**
   * The captured layouts. Aug–Oct 2026: the question block holds only the bubble; steps, answer and action
   * row follow it as siblings in the thread's list. February 2026: one panel per turn holding a `group/query`
   * question (a heading for the first turn), the steps button, `#markdown-content-N` and the action row.
   */
  private mountCaptured(): void {
    const d = this.data;
    const { text, toggle } = this.queryParts(this.layout === 'sessions-2026-09');
    // No capture shows a hook on the steps' container, so it has none: the reader finds it from its header. Aug–Oct
    // 2026 it goes into the answer block above the prose once that mounts (mountFinal), as the Sep 2026 captures show.
    const stepsBox = h('div', { dir: 'auto' });
    const askSlot = h('div', {});
    const taskSlot = h('div', {});
    let sourcesPanel: HTMLElement | null = null;
    if (this.layout === 'sessions-2026-09') {
      // Sep 2026: the time and Edit / Copy query first, then the question as rendered text; no bubble class
      // (one capture kept none), so a reader must take the text after the chrome, not the whole block.
      const time = new Date().toISOString().slice(11, 16);
      const tools = this.queryTools('query-tools flex items-center gap-1');
      tools.prepend(h('span', { class: 'asked-at' }, time));
      this.el.replaceChildren(h('div', { dir: 'auto' }, tools, h('div', { class: 'bubble' }, text, toggle)));
      const endSlot = h('div', { class: 'answer-end' });
      this.el.after(stepsBox, askSlot, taskSlot, endSlot);
      this.view = { stepsBox, tabs: null, sourcesPanel, final: null, prose: null, doneBlocks: 0, partialEl: null, askSlot, taskSlot, endSlot };
      return;
    }
    if (this.layout === 'blocks-2026-08') {
      // Hover tools first, then the bubble: the look-alike class `group-hover/user-bubble` stays a trap.
      const bubble = h(
        'div',
        { class: 'group group/user-bubble flex items-start justify-end gap-2' },
        this.queryTools('flex shrink-0 items-center gap-1 opacity-0 group-hover/user-bubble:opacity-100'),
        h('div', { class: 'bubble bg-subtle rounded-2xl' }, h('span', { class: 'select-text break-words' }, text), toggle),
      );
      this.el.replaceChildren(h('div', { dir: 'auto', class: 'contents' }, bubble));
      const endSlot = h('div', { dir: 'auto', class: 'contents' });
      this.el.after(stepsBox, askSlot, taskSlot, endSlot);
      this.view = { stepsBox, tabs: null, sourcesPanel, final: null, prose: null, doneBlocks: 0, partialEl: null, askSlot, taskSlot, endSlot };
      return;
    }
    text.className = 'min-w-0 select-text break-words';
    const query = h(
      d.index === 0 ? 'h1' : 'div',
      { class: 'group/query relative whitespace-pre-line break-words query-title' },
      h('span', { class: 'min-w-0 select-text break-words' }, text.textContent ?? ''),
    );
    // The query text lives in the span; the fold toggle (if any) updates the span through `text`.
    if (toggle) {
      const span = query.firstElementChild as HTMLElement;
      toggle.addEventListener('click', () => {
        span.textContent = text.textContent;
      });
    }
    const endSlot = h('div', {});
    sourcesPanel = h('div', {
      role: 'tabpanel',
      'data-state': 'inactive',
      'data-orientation': 'horizontal',
      hidden: true,
      // One id for every turn's panel, as the real page has it: the Links tab names them all.
      ...(this.links ? tabLinks({ id: this.links.panel, 'aria-labelledby': this.links.trigger }) : {}),
    });
    this.el.replaceChildren(
      h('div', { class: 'relative' }, this.queryTools('flex items-center gap-1'), h('div', { class: 'group/title relative inline-flex flex-col' }, query, toggle)),
      stepsBox,
      askSlot,
      taskSlot,
      endSlot,
    );
    this.view = { stepsBox, tabs: null, sourcesPanel, final: null, prose: null, doneBlocks: 0, partialEl: null, askSlot, taskSlot, endSlot };
  }

  /** The thread header's Links tab was chosen (or left): February's turns switch to their sources panel. */
  showLinks(links: boolean): void {
    const v = this.view;
    if (!v?.sourcesPanel) return;
    this.el.setAttribute('data-state', links ? 'inactive' : 'active');
    for (const child of [...this.el.children]) if (child !== v.sourcesPanel) (child as HTMLElement).hidden = links;
    v.sourcesPanel.hidden = !links;
    v.sourcesPanel.setAttribute('data-state', links ? 'active' : 'inactive');
    if (links) {
      this.el.after(v.sourcesPanel);
      v.sourcesPanel.replaceChildren(this.sourcesList());
    } else v.sourcesPanel.replaceChildren();
  }

  /** The sim's own layout of before the captures: everything inside one `[data-workflow-entry]` element. */
  private mountTurn(): void {
    const d = this.data;
    this.el.style.height = '';
    const gen = app.generation;
    const { text: queryText, toggle } = this.queryParts();
    // The look-alike: an element whose class merely mentions user-bubble (hover tools), placed first.
    const hoverTools = this.queryTools('query-tools opacity-0 group-hover/user-bubble:opacity-100 transition-opacity');
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
    this.view = {
      stepsBox,
      tabs: { answerPanel, linksPanel, answerTab, linksTab },
      sourcesPanel: null,
      final: null,
      prose: null,
      doneBlocks: 0,
      partialEl: null,
      askSlot,
      taskSlot,
      endSlot,
    };
    this.paintTabs();
  }

  unmount(): void {
    if (!this.view) return;
    const height = this.el.getBoundingClientRect().height;
    this.view = null;
    this.el.replaceChildren();
    this.el.style.height = `${Math.round(height)}px`;
  }

  /** Aug–Oct 2026: an answer beyond the latest five leaves the page altogether, question and all. */
  detach(): void {
    for (const p of this.parts) p.remove();
    this.view?.sourcesPanel?.remove();
    this.view = null;
  }

  private paintTabs(): void {
    const v = this.view?.tabs;
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

  sourcesList(): HTMLElement {
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
          : this.finishedLabel(n);
    // Sep 2026 (captures `search-thread-one-turn-…-2026-09-26.html`, `thread-page-main-excerpt-…-2026-09-27.html`): the
    // label and, once done, the time it took in a box of their own, the header's row `group/step-header`.
    const sep = this.layout === 'sessions-2026-09';
    const took = Math.max(1, Math.round(((this.steps[n - 1]?.at ?? 0) - (this.steps[0]?.at ?? 0)) / 1000));
    const head = h(
      'button',
      { type: 'button', class: 'flex items-center gap-2 flex-1', 'aria-expanded': String(this.stepsOpen) },
      working
        ? h('span', { class: 'spinner animate-spin', 'aria-hidden': 'true' })
        : icon(this.pending.length ? 'pplx-icon-message-question' : this.sleep ? 'pplx-icon-moon' : 'pplx-icon-circle-check'),
      sep
        ? h('div', { class: 'flex gap-1' }, h('span', {}, h('div', { class: working ? 'animate-pulse' : '' }, label)), this.status === 'finished' ? h('div', {}, `${took}s`) : null)
        : h('span', { class: working ? 'animate-pulse' : '' }, label),
    );
    head.addEventListener('click', () => {
      this.stepsOpen = !this.stepsOpen;
      this.renderSteps();
    });
    const headRow = h('div', { class: sep ? 'group/step-header steps-head' : 'steps-head' }, head);
    if (this.layout !== 'turn-2026-04') head.append(icon('pplx-icon-chevron-right', 'icon icon-sm'));
    if (this.status === 'working' && app.generation === 'B' && this.layout === 'turn-2026-04') {
      const cancel = h('button', { type: 'button', class: 'cancel', 'aria-label': tr.cancel }, tr.cancel);
      cancel.addEventListener('click', () => this.host.onStop(this));
      headRow.append(cancel);
    }
    const box = h('div', { class: 'steps' }, headRow);
    // A Computer task shows its tool rows in the thread, running or done (client/task.ts, toolRow);
    // other turns fold their rows away once done.
    const task = this.data.mode === 'computer';
    if ((this.stepsOpen || task) && n) {
      const rows = h('div', { class: 'step-rows' });
      this.steps.forEach((s, i) => {
        const current = working && i === n - 1;
        if (task) rows.append(toolRow(s, this.steps[i + 1]?.at ?? Date.now(), current));
        else rows.append(h('div', { class: `step-row${current ? ' animate-pulse' : ''}` }, icon(s.icon), h('span', {}, s.text)));
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
   * The steps header of a finished turn as each layout words it: "Completed N steps" (reported live
   * 2026-09-21); February's "Reviewed N sources" (search) and "N steps completed" (Deep Research).
   */
  private finishedLabel(n: number): string {
    if (this.layout === 'blocks-2026-08') return lt.completedSteps(n);
    if (this.layout === 'sessions-2026-09') return lt.researched;
    if (this.layout === 'markdown-2026-02') {
      return this.data.mode === 'deep-research' ? lt.stepsCompleted(n) : lt.reviewedSources(this.data.script.sources.length);
    }
    return tr.stepsFinished(n);
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
    const prose = v.prose ?? this.mountFinal(v);
    const ctx = { generation: app.generation, layout: this.layout, sources: this.data.script.sources, groupedBadges: variant('groupedBadges') };
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

  /**
   * The answer block, mounted with the first token (in every layout: Aug–Oct 2026 measured it so). Aug–Oct 2026 the
   * steps move into it then, above the prose (the Sep 2026 captures: the answer block's items, steps first).
   */
  private mountFinal(v: View): HTMLElement {
    const cls = 'prose dark:prose-invert inline leading-relaxed break-words min-w-0';
    if (this.layout === 'turn-2026-04') {
      const prose = h('div', { class: cls, 'data-renderer': 'lm' });
      v.prose = prose;
      v.final = h('div', { 'data-workflow-final-text': '', class: 'group/final-text relative' }, prose);
      v.stepsBox.after(v.final);
      return prose;
    }
    const prose = h('div', this.layout === 'markdown-2026-02' ? { class: cls } : { class: cls, 'data-renderer': 'lm' });
    v.prose = prose;
    if (this.layout === 'sessions-2026-09') {
      // Sep 2026: one answer block holding the steps header above the prose and the action row below it; a Deep
      // Research turn's report card between them, the prose being its summary.
      v.final = h('div', { 'data-workflow-final-text': '' });
      v.taskSlot.after(v.final);
      const card = this.data.mode === 'deep-research' ? this.reportCard() : null;
      v.final.append(h('div', { 'data-workflow-items': 'populated' }, v.stepsBox, ...(card ? [card] : []), h('div', {}, h('div', { dir: 'auto' }, h('div', {}, prose)))), v.endSlot);
      return prose;
    }
    v.final =
      this.layout === 'blocks-2026-08'
        ? h(
            'div',
            { class: 'group/final-text flex flex-col min-w-0 gap-4', 'data-workflow-final-text': '' },
            // The items: the steps (no Aug capture shows steps; placed as the Sep captures place them), the prose.
            h('div', {}, v.stepsBox, h('div', { dir: 'auto', class: 'contents' }, h('div', { class: 'break-words min-w-0 flex-1' }, h('div', {}, prose)))),
          )
        : h('div', { id: `markdown-content-${this.data.index}` }, h('div', {}, prose));
    v.taskSlot.after(v.final);
    return prose;
  }

  /**
   * Since ~2026-08-20 a Deep Research answer is the summary of a report kept apart: a card reading the report's title,
   * then "Deep research report", and buttons (the 2026-10-04 capture and ADR-035 of sho7650/obsidian-AI-exporter give
   * its words, no markup; this markup is ours). The report's body is not in the page until the card is opened.
   */
  private reportCard(): HTMLElement {
    const title = this.data.query.replace(/\s*#scenario:\S+/g, '').trim().slice(0, 80);
    return h(
      'div',
      { class: 'report-card flex items-center gap-3 rounded-xl border p-3' },
      icon('pplx-icon-file-text', 'icon'),
      h('div', { class: 'flex min-w-0 flex-1 flex-col' }, h('div', { class: 'truncate font-medium' }, title), h('div', { class: 'text-quiet text-sm' }, lt.deepResearchReport)),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Download' }, icon('pplx-icon-download')),
    );
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
    if (this.layout !== 'turn-2026-04') {
      v.endSlot.append(this.actionRow());
      return;
    }
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

  /**
   * The action row of a finished answer. Aug–Oct 2026 (the WebMCP capture): `[data-workflow-text-footer]`
   * with Copy / Share on the left, Helpful / Not helpful / More actions on the right; here also a read-aloud
   * control that is playing (labelled "Stop"), a decoy for readers that take any "Stop" for the stop control.
   * February 2026: Share / Copy / Rewrite, the sources count, Helpful / Not helpful / More actions.
   */
  private actionRow(): HTMLElement {
    const btn = (label: string, name: string) => h('button', { type: 'button', class: 'icon-btn', 'aria-label': label, 'data-state': 'closed' }, icon(name));
    const more = h('button', { type: 'button', class: 'icon-btn', 'aria-label': lt.moreActions, 'aria-haspopup': 'menu', 'aria-expanded': 'false', 'data-state': 'closed' }, icon('pplx-icon-dots'));
    if (this.layout === 'sessions-2026-09') {
      // Sep 2026: Copy, Share, Helpful, Not helpful, Fork, the sources count, More actions.
      const count = h('button', { type: 'button', class: 'pill-btn' }, tr.sourcesCount(this.data.script.sources.length));
      return h(
        'div',
        { class: 'answer-tools flex min-w-0 items-center justify-between', 'data-workflow-text-footer': '' },
        h('div', { class: 'flex items-center gap-1' }, btn(tr.copy, 'pplx-icon-copy'), btn(tr.share, 'pplx-icon-share'), btn(tr.helpful, 'pplx-icon-thumb-up'), btn(lt.notHelpful, 'pplx-icon-thumb-down'), btn(lt.fork, 'pplx-icon-arrow-fork'), count),
        h('div', { class: 'ml-auto flex items-center gap-1' }, more),
      );
    }
    if (this.layout === 'blocks-2026-08') {
      return h(
        'div',
        { class: 'answer-tools flex min-w-0 items-center justify-between', 'data-workflow-text-footer': '' },
        h('div', { class: 'flex items-center gap-1' }, btn(tr.copy, 'pplx-icon-copy'), btn(tr.share, 'pplx-icon-share'), btn(lt.stopReadAloud, 'pplx-icon-player-stop')),
        h('div', { class: 'ml-auto flex items-center gap-1' }, btn(tr.helpful, 'pplx-icon-thumb-up'), btn(lt.notHelpful, 'pplx-icon-thumb-down'), more),
      );
    }
    return h(
      'div',
      { class: 'answer-tools flex items-center justify-between' },
      h(
        'div',
        { class: 'flex items-center gap-1' },
        btn(tr.share, 'pplx-icon-share'),
        btn(tr.copy, 'pplx-icon-copy'),
        btn(tr.rewrite, 'pplx-icon-rewrite'),
        h('button', { type: 'button', class: 'pill-btn' }, tr.sourcesCount(this.data.script.sources.length)),
      ),
      h('div', { class: 'flex items-center gap-1' }, btn(tr.helpful, 'pplx-icon-thumb-up'), btn(lt.notHelpful, 'pplx-icon-thumb-down'), more),
    );
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
  readonly layout: ThreadLayout;
  private readonly io: IntersectionObserver | null;
  /** The thread header's tablist (captured layouts) and the thread-level Links panel (Aug–Oct 2026). */
  private header: { tabs: HTMLElement[]; linksPanel: HTMLElement | null } | null = null;
  private popover: HTMLElement | null = null;
  private popoverFor: Element | null = null;

  /** `liveTurn`: index of a turn just asked in this page (its events are reported as they happen). */
  constructor(
    readonly thread: ThreadData,
    private readonly host: Omit<ThreadHost, 'reply'>,
    liveTurn = -1,
  ) {
    this.layout = thread.layout ?? app.layout;
    this.list = h('div', { class: 'flex flex-col' });
    this.el = h('div', { class: 'max-w-threadContentWidth' }, this.list);
    if (this.layout !== 'turn-2026-04') this.header = this.mountHeader();
    this.io = this.layout !== 'turn-2026-04' ? null : new IntersectionObserver(
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
    const t = new TurnCtl(
      d,
      {
      onWorkingChange: () => this.workingChanged(),
      onStop: (x) => this.host.onStop(x),
      retry: (q) => this.host.retry(q),
      reply: async (x, r, interaction) =>
        (await api<{ turn: TurnData }>('reply', { thread: this.thread.id, turn: x.index, interaction, reply: r })).turn,
      },
      this.thread.id,
      this.layout,
      this.febLinks,
    );
    this.turns.push(t);
    this.list.append(t.el);
    t.mount();
    if (this.tab === 'links') t.showLinks(true);
    if (live) emit('turn-started', d.index);
    t.start(live);
    this.io?.observe(t.el);
    if (this.layout === 'blocks-2026-08' || this.layout === 'sessions-2026-09') {
      // A long thread keeps only its latest answers mounted and unmounts the oldest as a new one mounts.
      for (const old of this.turns.slice(0, -MOUNTED_ANSWERS)) old.detach();
    }
    if (this.tab === 'links') this.paintLinks();
    this.workingChanged();
    return t;
  }

  /**
   * The composer learns it; in the captured layouts the header also shows a "Stop response (Esc)" hint
   * while an answer streams, far from the composer: a decoy that is not the stop control (readers were
   * seen mistaking such a control for it, report of 2026-09).
   */
  private workingChanged(): void {
    const working = this.working;
    const header = this.el.querySelector('.thread-header');
    header?.querySelector('.stop-hint')?.remove();
    if (working && header) header.append(h('button', { type: 'button', class: 'icon-btn stop-hint', 'aria-label': lt.stopResponseHint }, icon('pplx-icon-x')));
    this.host.onWorkingChange(working);
  }

  private tab: 'answer' | 'links' | 'images' = 'answer';

  /**
   * One Answer / Links / Images tablist in the thread header (the February captures; reported for
   * September 2026), not one per turn. February's turns each switch to their own sources panel; in the
   * Aug–Oct layout one thread-level panel lists every mounted turn's sources under its question.
   */
  private febLinks?: { trigger: string; panel: string };

  private mountHeader(): { tabs: HTMLElement[]; linksPanel: HTMLElement | null } {
    const base = radixId().replace(/[^a-z0-9]/g, '');
    if (this.layout === 'markdown-2026-02') this.febLinks = { trigger: `${base}-trigger-links`, panel: `${base}-content-links` };
    const tab = (key: 'answer' | 'links' | 'images', iconName: string, label: string) => {
      const el = h(
        'button',
        { type: 'button', role: 'tab', 'data-tab': key, ...tabLinks({ id: `${base}-trigger-${key}`, 'aria-controls': `${base}-content-${key}` }) },
        icon(iconName, 'icon icon-sm'),
        label,
      );
      el.addEventListener('click', () => this.selectTab(key));
      return el;
    };
    const tabs = [tab('answer', 'pplx-icon-sparkles', tr.answerTab), tab('links', 'pplx-icon-globe', tr.linksTab), tab('images', 'pplx-icon-photo', lt.imagesTab)];
    const tablist = h('div', { role: 'tablist', 'aria-label': lt.answerModeTabs, 'aria-orientation': 'horizontal', class: 'tabs' }, ...tabs);
    const linksPanel =
      this.layout === 'blocks-2026-08' || this.layout === 'sessions-2026-09'
        ? h('div', { role: 'tabpanel', 'data-state': 'inactive', hidden: true, ...tabLinks({ id: `${base}-content-links`, 'aria-labelledby': `${base}-trigger-links` }) })
        : null;
    this.el.prepend(h('div', { class: 'thread-header' }, tablist));
    if (linksPanel) this.el.append(linksPanel);
    const header = { tabs, linksPanel };
    queueMicrotask(() => this.paintTabs());
    return header;
  }

  private selectTab(key: 'answer' | 'links' | 'images'): void {
    this.tab = key;
    this.paintTabs();
  }

  private paintTabs(): void {
    const hd = this.header;
    if (!hd) return;
    for (const t of hd.tabs) {
      const on = t.getAttribute('data-tab') === this.tab;
      t.setAttribute('aria-selected', String(on));
      t.setAttribute('data-state', on ? 'active' : 'inactive');
    }
    const links = this.tab === 'links';
    if (this.layout === 'markdown-2026-02') {
      for (const t of this.turns) t.showLinks(links);
      return;
    }
    this.list.hidden = this.tab !== 'answer';
    this.paintLinks();
  }

  private paintLinks(): void {
    const panel = this.header?.linksPanel;
    if (!panel) return;
    const links = this.tab === 'links';
    panel.hidden = !links;
    panel.setAttribute('data-state', links ? 'active' : 'inactive');
    if (!links) {
      panel.replaceChildren();
      return;
    }
    panel.replaceChildren(
      ...this.turns.filter((t) => t.view).map((t) => h('section', { class: 'links-group' }, h('h3', { class: 'text-sm font-medium' }, t.data.query), t.sourcesList())),
    );
  }

  get working(): boolean {
    return this.turns.some((t) => t.status === 'working');
  }

  get current(): TurnCtl | undefined {
    return this.turns[this.turns.length - 1];
  }

  dispose(): void {
    this.io?.disconnect();
    this.closePopover();
    for (const t of this.turns) t.dispose();
  }

  // -------------------------------------------------------------------------------------------------
  // Citation popover (generation B)

  private onClick(e: Event): void {
    if (this.layout === 'blocks-2026-08' || this.layout === 'sessions-2026-09') {
      this.onCapturedCitation(e);
      return;
    }
    if (this.layout === 'markdown-2026-02') return; // February's chips are links to their source
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

  /**
   * Aug–Oct 2026: a chip opens the popover of its group from its trigger, the `[data-state]` span inside the outer
   * `[data-pplx-citation-url]` one, as Radix listens on the trigger: an event dispatched on the outer span never
   * reaches it (review 13a, C1). February's trigger wraps the chip (its chips are links, handled before this).
   */
  private onCapturedCitation(e: Event): void {
    const trigger = (e.target as Element).closest('[data-state]');
    const cite = trigger?.parentElement?.closest('[data-pplx-citation-url]');
    const turn = cite ? this.turns.find((t) => t.owns(cite)) : undefined;
    const final = cite?.closest('[data-workflow-final-text]');
    if (!cite || !turn || !final) return;
    if (this.popoverFor === cite) {
      this.closePopover();
      return;
    }
    const group = turn.citationGroup([...final.querySelectorAll('[data-pplx-citation-url]')].indexOf(cite));
    if (group) this.openPopover(cite, group.map((i) => turn.sources[i]).filter((s): s is Source => !!s));
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
