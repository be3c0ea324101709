/**
 * Page script of the simulated perplexity.ai: boots from the JSON the server embedded, renders the page,
 * and behaves like a small SPA (pushState after an ask, client-side navigation for internal links).
 * Exposes `window.__sim` for tests and benchmarks.
 */
import type { AskResponse, BootData, PageData, ThreadData } from '../types';
import { Sidebar, libraryPage, notFoundPage, staticPage, topbar } from './chrome';
import { Composer } from './composer';
import { api, app, capturedLayout, emit, h, hooks, icon, initHook, modeState, tr } from './dom';
import { refusalCard, taskTopbarButtons } from './task';
import { computerSettings } from './task-composer';
import { askStreamsRead, ThreadView, type TurnCtl } from './thread';
import { variant } from './variants';

initHook();
if (variant('modeResets')) {
  modeState.mode = 'standard';
  modeState.computer = false;
}

const root = document.getElementById('__next') as HTMLElement;
let sidebar: Sidebar | null = null;
let mainEl: HTMLElement | null = null;
let disposeCurrent: (() => void) | null = null;

function scrollToTurn(t: TurnCtl): void {
  const top = t.el.getBoundingClientRect().top + window.scrollY - 64;
  window.scrollTo({ top: Math.max(0, top), behavior: 'instant' as ScrollBehavior });
}

function stopTurn(view: ThreadView, t: TurnCtl): void {
  if (t.status !== 'working') return;
  const applied = t.applied;
  t.stop();
  void api('stop', { thread: view.thread.id, turn: t.index, applied }).catch(() => undefined);
  // As the live site: Stop posts the terminate call beside its own (NOTES §D).
  if (app.boot.askStream) void fetch('/rest/sse/perplexity_terminate', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
}

/** The stream's end event, whole (tests/sim/json/ask-stream.ts writes it last). */
const END_EVENT = /(^|\n)event: end_of_stream\r?\ndata: [^\r\n]*\r?\n\r?\n/;

/**
 * The page's own fetch of a turn's answer stream, read to its end as the live page reads it (issue 30; the sim's
 * server plays it from the turn's script, tests/sim/json/ask-stream.ts). The turn is drawn from the ask's reply on the
 * script's clock, as before, and its end only once the stream has ended (client/thread.ts).
 */
function readAskStream(threadId: string, turn: { index: number; uuid?: string }, query: string): void {
  if (!app.boot.askStream) return;
  const body = JSON.stringify({ query_str: query, params: { frontend_uuid: turn.uuid ?? '', version: '2.18', source: 'default', thread: threadId, turn: turn.index } });
  let ended = false;
  const read = fetch('/rest/sse/perplexity_ask', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body })
    .then(async (res) => {
      const reader = res.body?.getReader();
      const decoder = new TextDecoder();
      let tail = '';
      if (reader) {
        for (let r = await reader.read(); !r.done; r = await reader.read()) {
          if (ended) continue;
          // The page has its stream's end when the end event is whole (its blank line read), which the browser may
          // hand over a millisecond or two before the body's close: the bench's stream row counts from here.
          tail = (tail + decoder.decode(r.value, { stream: true })).slice(-160);
          if (END_EVENT.test(tail)) {
            ended = true;
            emit('ask-stream-ended', turn.index);
          }
        }
      }
      if (!ended) emit('ask-stream-failed', turn.index); // closed before its end
    })
    .catch(() => {
      if (!ended) emit('ask-stream-failed', turn.index);
    });
  if (turn.uuid) askStreamsRead.set(turn.uuid, read);
}

/** A thread (or an empty sidecar / home) with its composer; asks go through the server. */
function conversation(
  thread: ThreadData | null,
  opts: {
    sidecar: boolean;
    placeholder: string;
    liveTurn?: number;
    menusBelow?: boolean;
    /** Asked from a Project's page: the visibility toggle's state at ask time. */
    project?: () => { uuid: string; visibility: 'private' | 'project' };
  },
) {
  let view: ThreadView | null = null;
  const composer: Composer = new Composer({
    placeholder: opts.placeholder,
    menusBelow: opts.menusBelow,
    onSubmit: (q) => void ask(q),
    onStop: () => {
      const t = view?.turns.find((x) => x.status === 'working');
      if (view && t) stopTurn(view, t);
    },
  });
  const host = {
    onWorkingChange: (w: boolean) => composer.setWorking(w),
    onStop: (t: TurnCtl) => view && stopTurn(view, t),
    retry: (q: string) => void ask(q),
  };
  if (thread) view = new ThreadView(thread, host, opts.liveTurn);
  window.__sim.composerText = () => composer.value;

  async function ask(query: string): Promise<void> {
    composer.setBusy(true);
    let res: AskResponse;
    const mode = modeState.effective(app.generation);
    try {
      res = await api<AskResponse>('ask', {
        query,
        mode,
        model: modeState.model,
        thread: view?.thread.id,
        sidecar: opts.sidecar,
        attachments: composer.files.ids(),
        ...(mode === 'computer' ? { settings: computerSettings() } : {}),
        ...(opts.project && !view ? { project: opts.project() } : {}),
      });
    } catch (e) {
      composer.setBusy(false);
      const refused = refusalCard((e as { status?: number; body?: unknown }).status, (e as { body?: unknown }).body);
      if (refused) composer.el.before(refused);
      else console.error('[sim] ask failed', e);
      return;
    }
    for (const old of document.querySelectorAll('[data-scope="composer"]')) old.remove();
    composer.setBusy(false);
    composer.files.clear();
    window.__sim.scenario = res.siteScenario;
    readAskStream(res.thread.id, res.turn, query);
    if (view) {
      view.thread.turns.push(res.turn);
      scrollToTurn(view.add(res.turn, true));
    } else {
      // Like the real SPA: the URL changes with pushState and the thread page renders in place.
      history.pushState({}, '', res.thread.path);
      const page: PageData = opts.sidecar ? { kind: 'sidecar', thread: res.thread } : { kind: 'thread', thread: res.thread };
      renderPage(page, res.turn.index);
    }
    void sidebar?.refresh();
  }

  return {
    composer,
    view,
    dispose: () => {
      view?.dispose();
      composer.dispose();
    },
  };
}

/**
 * The box around the composer. In the captured layouts (and on Computer task pages) it is
 * `[data-ask-input-container]`, where the stop control appears while an answer streams, beside the
 * composer's Dictation button ("Stop dictation", with the same icon, while dictation is on).
 */
function composerBox(cls: string, composer: Composer, task = false): HTMLElement {
  return h('div', { class: cls, ...(capturedLayout() || task ? { [hooks.composerBoxAttr]: 'true' } : {}) }, composer.el);
}

function renderPage(page: PageData, liveTurn = -1): void {
  app.layout = ((page.kind === 'thread' || page.kind === 'sidecar') && page.thread?.layout) || app.boot.layout || 'turn-2026-04';
  disposeCurrent?.();
  disposeCurrent = null;
  listenForSignIns(null);
  for (const n of document.querySelectorAll('[data-radix-popper-content-wrapper]')) n.remove();
  window.scrollTo(0, 0);

  if (page.kind === 'sidecar') {
    sidebar = null;
    mainEl = null;
    const c = conversation(page.thread, { sidecar: true, placeholder: page.thread ? tr.askFollowUp : tr.askAboutPage, liveTurn });
    disposeCurrent = c.dispose;
    const body = c.view
      ? h('div', { class: 'thread-scroll' }, c.view.el)
      : h('div', { class: 'page-pad' }, h('h1', { class: 'page-h1' }, tr.assistant), h('p', { class: 'text-quiet' }, tr.assistantHint));
    root.replaceChildren(
      h('div', { class: 'sidecar' }, topbar(tr.assistant), body, composerBox('follow-up', c.composer)),
    );
    const last = c.view?.current;
    if (last) scrollToTurn(last);
    return;
  }

  if (!sidebar || !mainEl || !root.contains(mainEl)) {
    sidebar = new Sidebar();
    mainEl = h('main', { class: 'main' });
    root.replaceChildren(h('div', { class: 'app' }, sidebar.el, mainEl));
    void sidebar.refresh();
  }
  const main = mainEl;

  switch (page.kind) {
    case 'home': {
      const c = conversation(null, { sidecar: false, placeholder: tr.askAnything, menusBelow: true });
      disposeCurrent = c.dispose;
      main.replaceChildren(
        topbar(null),
        h('div', { class: 'home' }, h('div', { class: 'wordmark' }, 'perplexity'), composerBox('composer-wrap', c.composer)),
      );
      c.composer.focus();
      break;
    }
    case 'thread': {
      // Computer task pages: the top bar's h1 title, Usage / Todo / Share, "Type a command..." (docs: task pages).
      const task = page.thread.kind === 'computer';
      const c = conversation(page.thread, { sidecar: false, placeholder: task ? 'Type a command...' : tr.askFollowUp, liveTurn });
      disposeCurrent = c.dispose;
      const share = h('button', { type: 'button', class: 'pill-btn', 'aria-label': tr.share }, icon('pplx-icon-share', 'icon icon-sm'), tr.share);
      const extra = task ? [...taskTopbarButtons(() => page.thread.title, () => c.view?.current?.plan ?? []), share] : [share];
      main.replaceChildren(
        topbar(page.thread.title, extra, task),
        h('div', { class: 'thread-scroll' }, c.view?.el ?? null),
        composerBox('follow-up', c.composer, task),
      );
      listenForSignIns(c.view);
      const last = c.view?.current;
      if (last) scrollToTurn(last);
      break;
    }
    case 'library':
      main.replaceChildren(topbar(tr.library), libraryPage(page.threads));
      break;
    case 'static':
      main.replaceChildren(topbar(page.title), staticPage(page.title, page.text));
      if (page.broadcast !== undefined) channel()?.postMessage(page.broadcast);
      break;
    case 'project': {
      const visibility = h(
        'button',
        { type: 'button', class: 'pill-btn', 'data-testid': 'project-visibility', 'aria-pressed': 'false', 'aria-label': 'Visible to project members' },
        'Share with project members',
      );
      visibility.addEventListener('click', () => visibility.setAttribute('aria-pressed', String(visibility.getAttribute('aria-pressed') !== 'true')));
      const project = () => ({ uuid: page.project.uuid, visibility: visibility.getAttribute('aria-pressed') === 'true' ? ('project' as const) : ('private' as const) });
      const c = conversation(null, { sidecar: false, placeholder: `Ask in ${page.project.name}…`, menusBelow: true, project });
      disposeCurrent = c.dispose;
      main.replaceChildren(
        topbar(page.project.name),
        h(
          'div',
          { class: 'home' },
          h('h1', { class: 'page-h1' }, page.project.name),
          h('p', { class: 'text-quiet' }, page.project.description),
          h('div', { class: 'composer-wrap' }, c.composer.el, visibility),
        ),
      );
      c.composer.focus();
      break;
    }
    case 'not-found':
      main.replaceChildren(topbar(null), notFoundPage());
      break;
  }
}

function channel(): BroadcastChannel | null {
  try {
    return new BroadcastChannel('pplx-sim');
  } catch {
    return null;
  }
}

let signIns: BroadcastChannel | null = null;

/** A connector signed in from another tab: the thread's waiting turn takes the server's new script. */
function listenForSignIns(view: ThreadView | null): void {
  signIns?.close();
  signIns = view ? channel() : null;
  if (!signIns || !view) return;
  signIns.onmessage = (e: MessageEvent) => {
    const msg = e.data as { type?: string; resumed?: { thread: string; turn: number }[] };
    if (msg?.type !== 'connector-connected') return;
    for (const r of msg.resumed ?? []) {
      if (r.thread !== view.thread.id) continue;
      void api<{ title: string; boot: BootData }>(`page?path=${encodeURIComponent(location.pathname)}`).then(({ boot }) => {
        const fresh = boot.page.kind === 'thread' ? boot.page.thread.turns[r.turn] : undefined;
        const turn = view.turns[r.turn];
        if (fresh && turn) turn.adopt(fresh);
      });
    }
  };
}

async function navigate(path: string, push: boolean): Promise<void> {
  const { title, boot } = await api<{ title: string; boot: BootData }>(`page?path=${encodeURIComponent(path)}`);
  if (push) history.pushState({}, '', path);
  document.title = title;
  renderPage(boot.page);
}

document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element).closest?.('a[href]') as HTMLAnchorElement | null;
  if (!a || a.target === '_blank') return;
  const href = a.getAttribute('href') ?? '';
  if (!href.startsWith('/') || href.startsWith('//') || href.startsWith('/_sim/')) return;
  e.preventDefault();
  void navigate(href, true).catch(() => {
    location.href = href;
  });
});

window.addEventListener('popstate', () => {
  void navigate(location.pathname + location.search, false).catch(() => location.reload());
});

renderPage(app.boot.page);
