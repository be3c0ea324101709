/**
 * The simulated site's answer stream (issue 30): `POST /rest/sse/perplexity_ask` answers a turn as the live site
 * does (the frame shapes of the real streams of 2026-07-31 and 2026-08-04, our own text; NOTES §B, §D): SSE framed
 * `\r\n\r\n` with `event: message` / `data: {…}`, a first frame with every block whole (`PENDING`,
 * `message_mode: "STREAMING"`), then per change of the turn a frame whose blocks are JSON-patch `diff_block`s — the
 * answer growing by `add …/chunks/N` (in `workflow_root`'s `WORKFLOW_ITEM_TEXT`, or `ask_text`'s `markdown_block` for
 * Deep Research, as the thread JSON places them), any other change by patches on the values that changed (json-diff.ts;
 * a block that appears mid-way comes as a `replace` of its whole field; Deep Research opens with its follow-ups alone;
 * search results come provisional first, `provisional`) — and, when the turn is done
 * or stopped, the last frame whole (`COMPLETED`, `final_sse_message: true`, `message_mode: "FULL"`) before
 * `event: end_of_stream`. A turn that stops to ask the person, or fails, ends the stream with no final frame (the page
 * decides). Frames go out as the turn's script plays (the server's clock), each when it happens.
 */
import type { ThreadData, TurnData } from '../types';
import { entryJson } from './thread-json';
import { jsonDiff } from './json-diff';
import { turnStateAt } from '../tasks/task-state';

type Block = Record<string, unknown> & { intended_usage: string };
type Entry = ReturnType<typeof entryJson> & { blocks: Block[] };

const sse = (event: string, data: unknown) => `event: ${event}\r\ndata: ${JSON.stringify(data)}\r\n\r\n`;

/** Where a block keeps the answer's text, as a JSON pointer inside the block's field, and that text. */
function answerOf(block: Block): { field: string; pointer: string; text: string } | null {
  if (block.intended_usage === 'ask_text') {
    const md = block.markdown_block as { answer?: string };
    return { field: 'markdown_block', pointer: '', text: md.answer ?? '' };
  }
  if (block.intended_usage !== 'workflow_root') return null;
  const steps = (block.workflow_block as { steps: { items: { type: string; payload?: { text_payload?: { text: string } } }[] }[] }).steps;
  const k = steps.findIndex((s) => s.items[0]?.type === 'WORKFLOW_ITEM_TEXT');
  const text = k >= 0 ? steps[k]?.items[0]?.payload?.text_payload?.text : undefined;
  return text === undefined ? null : { field: 'workflow_block', pointer: `/steps/${k}/items/0/payload/text_payload`, text };
}

/** The block as the stream shows it while it streams: the answer as the chunks so far, no whole text yet. */
function streaming(block: Block, chunks: string[]): Block {
  const a = answerOf(block);
  if (!a) return block;
  const copy = JSON.parse(JSON.stringify(block)) as Block;
  const field = copy[a.field] as Record<string, unknown>;
  let target = field;
  for (const key of a.pointer.split('/').slice(1)) target = (target as Record<string, Record<string, unknown>>)[key] as Record<string, unknown>;
  if (a.pointer === '') {
    target.chunks = chunks;
    delete target.answer;
  } else {
    target.chunks = chunks;
    target.text = '';
  }
  return copy;
}

/**
 * Search results as the stream first shows them (2026-08-04: snippets empty and no `meta_data` yet, filled by `replace`
 * patches a frame later; from the third result on, a provisional result whose url, name and snippet are replaced by
 * another source's later), so that a reader holding results mid-stream sees them change under it.
 */
function provisional(view: Block): Block {
  const copy = JSON.parse(JSON.stringify(view)) as Block;
  const results = (copy.web_result_block as { web_results?: Record<string, unknown>[] } | undefined)?.web_results ?? [];
  results.forEach((r, i) => {
    r.snippet = '';
    delete r.meta_data;
    if (i < 2 || typeof r.url !== 'string') return;
    const host = new URL(r.url).host;
    r.url = `https://${host}/`;
    r.name = host;
  });
  return copy;
}

/**
 * Deep Research's stream (2026-07-31) opens with its follow-ups alone; every other block comes (as a `replace ""`)
 * once it has something: the answer's tabs next, the plan, the workflow with its first step, the answer with its first text.
 */
function notYet(block: Block, first: boolean): boolean {
  switch (block.intended_usage) {
    case 'pending_followups':
      return false;
    case 'answer_tabs':
      return first;
    case 'workflow_root':
      return first || (block.workflow_block as { steps: unknown[] }).steps.length === 0;
    case 'ask_text':
      return !answerOf(block)?.text;
    default:
      return first;
  }
}

export interface AskStreamOptions {
  thread: ThreadData;
  turn: TurnData;
  now: () => number;
  origin: string;
  /** Resolves after ms (real time). */
  sleep: (ms: number) => Promise<void>;
  write: (text: string) => void;
  /** The connection closed: stop writing. */
  closed: () => boolean;
  /** Cut the stream after this many frames (`site.setAskStreamCut`): no final frame, no end; the server drops the connection. */
  cutAfter?: number | null;
}

/** Plays one turn's stream to its end; `'cut'` when it was cut (the connection is to be dropped, not ended). */
export async function playAskStream(o: AskStreamOptions): Promise<undefined | 'cut'> {
  const { thread, turn } = o;
  /** Each block as the stream last showed it (plain JSON), and the answer's chunks so far. */
  const shown = new Map<string, Block>();
  const chunks = new Map<string, string[]>();
  let first = true;
  let frames = 0;
  for (;;) {
    if (o.cutAfter != null && frames >= o.cutAfter) return 'cut';
    if (o.closed()) return;
    const at = o.now();
    const st = turnStateAt(turn, at);
    const entry = entryJson(thread, turn, at, o.origin, true) as Entry;
    const head = { ...entry, blocks: undefined, message_mode: 'STREAMING', final_sse_message: false, status: 'PENDING', frontend_uuid: turn.uuid };
    if (st.phase === 'finished' || st.phase === 'stopped') {
      // The last frame: every block whole. A stopped turn ends COMPLETED too (NOTES §D: Stop, then the stream's end).
      o.write(sse('message', { ...entry, frontend_uuid: turn.uuid, status: 'COMPLETED', message_mode: 'FULL', text_completed: true, final: true, final_sse_message: true }));
      o.write(sse('end_of_stream', {}));
      return;
    }
    if (st.phase !== 'working') {
      // Waits on the person, sleeps or failed: the stream ends with no final frame (the page says the rest).
      o.write(sse('end_of_stream', {}));
      return;
    }
    const blocks: Block[] = [];
    for (const block of entry.blocks) {
      const usage = block.intended_usage;
      if (turn.mode === 'deep-research' && !shown.has(usage) && notYet(block, first)) continue;
      const a = answerOf(block);
      const had = chunks.get(usage) ?? [];
      const before = had.join('');
      // The answer's chunks: one more when it grew, as the live stream adds them; its whole text again if it changed otherwise.
      const next = !a || a.text === before ? had : a.text.startsWith(before) ? [...had, a.text.slice(before.length)] : [a.text];
      chunks.set(usage, next);
      const was = shown.get(usage);
      const whole = JSON.parse(JSON.stringify(streaming(block, next))) as Block;
      const view = usage === 'web_results' && !was ? provisional(whole) : whole;
      shown.set(usage, view);
      const field = Object.keys(view).find((k) => k !== 'intended_usage') as string;
      // A block first seen goes whole in the first frame; one first seen later comes as a diff_block replacing its whole
      // field (path ""), as both live streams send them (2026-07-31, 2026-08-04); a block seen before, as the patches
      // that change it.
      if (!was || !Object.hasOwn(was, field)) {
        blocks.push(first ? view : { intended_usage: usage, diff_block: { field, patches: [{ op: 'replace', path: '', value: view[field] }] } });
        continue;
      }
      const patches = jsonDiff(was[field], view[field]);
      if (patches.length) blocks.push({ intended_usage: usage, diff_block: { field, patches } });
    }
    if (first || blocks.length) {
      o.write(sse('message', { ...head, blocks }));
      frames++;
    }
    first = false;
    // The next moment of the script, or a short while (a stop can come at any time).
    const elapsed = at - turn.startedAt;
    const next = turn.script.events.find((e) => e.t > elapsed);
    await o.sleep(Math.max(2, Math.min(40, next ? next.t - elapsed : 40)));
  }
}
