import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from 'vitest';
import { AskStream } from '../../lib/page/stream/ask-stream';
import { askStream2026 } from '../../lib/selectors/stream/ask-stream';
import { applyPatch } from '../../lib/page/stream/json-patch';
import { jsonDiff } from '../sim/json/json-diff';
import { answerMarkdown } from '../sim/json/thread-json';
import { simRequestHandler } from '../sim/server';
import { createSimSite, type SimSite } from '../sim/site';
import type { AskResponse } from '../sim/types';

/**
 * The simulated site's answer stream (tests/sim/json/ask-stream.ts) read by the product's own stream reader:
 * the real frame shapes (chunks growing by patches, the last frame whole), the turn's whole answer at
 * the end, a stopped turn ending COMPLETED with what it had, a turn that waits on the person ending
 * with no final frame.
 */
async function ask(site: SimSite, query: string, mode = 'standard'): Promise<AskResponse> {
  const res = await site.handle({ method: 'POST', url: '/_sim/api/ask', body: JSON.stringify({ query, mode, model: 'Best' }) });
  return JSON.parse(String(res.body)) as AskResponse;
}

async function play(site: SimSite, r: AskResponse, during?: (stream: AskStream) => Promise<void> | void): Promise<{ stream: AskStream; text: string }> {
  const res = await site.handle({
    method: 'POST',
    url: '/rest/sse/perplexity_ask',
    body: JSON.stringify({ query_str: r.turn.query, params: { frontend_uuid: r.turn.uuid, thread: r.thread.id, turn: r.turn.index } }),
  });
  expect(res.contentType).toMatch(/^text\/event-stream/);
  const stream = new AskStream(askStream2026, { query: r.turn.query }, 0);
  let text = '';
  let asked = false;
  await res.stream?.((piece) => {
    text += piece;
    stream.push(piece);
    if (!asked && during && stream.markdown()) {
      asked = true;
      void during(stream);
    }
  }, () => false);
  stream.close();
  return { stream, text };
}

describe('the sim’s ask stream', () => {
  test('a search answer: chunks added by patches while it plays, the last frame whole, the end; its Markdown is the turn’s', async () => {
    // The site's clock moves 15 ms each time it is read: the stream samples the script at fixed moments, however loaded the machine.
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, clock: () => (t += 15) });
    const r = await ask(site, 'What is the capital of Australia?');
    const seen: string[] = [];
    const { stream, text } = await play(site, r, (s) => void seen.push(s.markdown()));
    expect(stream.unknown).toBeUndefined();
    expect(stream.state()).toBe('completed');
    const turn = site.thread(r.thread.id)?.turns[0];
    expect(turn).toBeDefined();
    const whole = answerMarkdown(turn?.script.answer ?? [], turn?.script.sources ?? [], Number.POSITIVE_INFINITY);
    expect(stream.markdown()).toBe(whole);
    expect(text).toMatch(/"op":"add","path":"\/steps\/\d+\/items\/0\/payload\/text_payload\/chunks\/1"/);
    expect(text.startsWith('event: message\r\ndata: {')).toBe(true);
    expect(text.endsWith('event: end_of_stream\r\ndata: {}\r\n\r\n')).toBe(true);
    expect(seen[0]?.length).toBeLessThan(whole.length);
    expect(stream.sources().length).toBe(turn?.script.sources.length);
    expect(stream).toMatchObject({ query: r.turn.query, slug: r.thread.slug, threadUuid: r.thread.id });
  });

  test('Deep Research: the answer in ask_text’s markdown_block, as the 2026-07-31 stream', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, scenario: 'short', clock: () => (t += 15) });
    const r = await ask(site, 'Research the capital of Australia', 'deep-research');
    const { stream, text } = await play(site, r);
    expect(text).toContain('"intended_usage":"ask_text","diff_block":{"field":"markdown_block","patches":[{"op":"add","path":"/chunks/1"');
    expect(stream.state()).toBe('completed');
    expect(stream.markdown().length).toBeGreaterThan(0);
  });

  /** The stream's message frames, parsed. */
  const framesOf = (text: string) =>
    text
      .split('\r\n\r\n')
      .filter((f) => f.startsWith('event: message'))
      .map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as { blocks: ({ intended_usage: string; diff_block?: { patches: { op: string; path: string }[] } } & Record<string, unknown>)[] });

  test('Deep Research opens with its follow-ups alone and sends each other block as a replace of its whole field once it has something, its plan among them (the 2026-07-31 order)', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 8, scenario: 'deep-research', clock: () => (t += 15) });
    const r = await ask(site, 'Research the capital of Australia', 'deep-research');
    const { stream, text } = await play(site, r);
    const frames = framesOf(text);
    expect(frames[0]?.blocks.map((b) => b.intended_usage)).toEqual(['pending_followups']);
    const firstSeen = new Map<string, (typeof frames)[number]['blocks'][number]>();
    for (const f of frames.slice(0, -1)) for (const b of f.blocks) if (!firstSeen.has(b.intended_usage)) firstSeen.set(b.intended_usage, b);
    for (const usage of ['answer_tabs', 'plan', 'workflow_root', 'ask_text', 'web_results']) {
      expect(firstSeen.get(usage)?.diff_block?.patches[0], usage).toMatchObject({ op: 'replace', path: '' });
    }
    expect(stream.state()).toBe('completed');
    expect(stream.steps().length).toBeGreaterThan(10);
    const turn = site.thread(r.thread.id)?.turns[0];
    expect(stream.markdown()).toBe(answerMarkdown(turn?.script.answer ?? [], turn?.script.sources ?? [], Number.POSITIVE_INFINITY));
  });

  test('search results first come with empty snippets, and from the third on as provisional results replaced later (the 2026-08-04 stream): the end has the real ones', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, clock: () => (t += 15) });
    const r = await ask(site, 'What is the capital of Australia?');
    const { stream, text } = await play(site, r);
    const patches = framesOf(text).flatMap((f) => f.blocks.filter((b) => b.intended_usage === 'web_results').flatMap((b) => b.diff_block?.patches ?? []));
    expect(patches[0]).toMatchObject({ op: 'replace', path: '' });
    expect(patches.map((p) => `${p.op} ${p.path}`)).toEqual(expect.arrayContaining(['replace /web_results/0/snippet', 'replace /web_results/2/url', 'replace /web_results/2/name']));
    const turn = site.thread(r.thread.id)?.turns[0];
    expect(stream.sources().map((s) => s.url)).toEqual(turn?.script.sources.map((s) => s.url));
  });

  test('stopped while it streams: the last frame still COMPLETED, the answer as far as it got', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, scenario: 'slow', clock: () => (t += 15) });
    const r = await ask(site, 'Tell me slowly');
    const { stream } = await play(site, r, async () => {
      await site.handle({ method: 'POST', url: '/_sim/api/stop', body: JSON.stringify({ thread: r.thread.id, turn: r.turn.index, applied: 3 }) });
    });
    expect(stream.finalSeen).toBe(true);
    expect(stream.ended).toBe(true);
    stream.terminated = true;
    expect(stream.state()).toBe('stopped');
  });

  test('after the first frame a block comes by a diff_block (a new one whole at path "", once) and changes by patches on what changed, as in the live stream', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 1, scenario: 'long', clock: () => (t += 15) });
    const r = await ask(site, 'A long answer, please');
    const { stream, text } = await play(site, r);
    expect(stream.unknown).toBeUndefined();
    expect(stream.state()).toBe('completed');
    const frames = text.split('\r\n\r\n').filter((f) => f.startsWith('event: message'));
    type Frame = { blocks: { intended_usage: string; diff_block?: { patches: { path: string }[] } }[] };
    const parsed = frames.slice(0, -1).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as Frame);
    const middle = parsed.slice(1);
    const paths = middle.flatMap((f) => f.blocks.flatMap((b) => b.diff_block?.patches.map((p) => p.path) ?? []));
    expect(paths.length).toBeGreaterThan(0);
    // A whole replacement (path "") only brings a block the stream had not carried yet, once, as the live streams do
    // (2026-07-31, 2026-08-04); a block seen before changes by its own patches.
    const seen = new Set((parsed[0]?.blocks ?? []).map((b) => b.intended_usage));
    const whole: string[] = [];
    for (const f of middle) {
      for (const b of f.blocks) {
        if (b.diff_block?.patches.some((p) => p.path === '')) {
          expect(seen.has(b.intended_usage), b.intended_usage).toBe(false);
          whole.push(b.intended_usage);
        }
        seen.add(b.intended_usage);
      }
    }
    expect(whole.length).toBeGreaterThan(0);
    expect(new Set(whole).size).toBe(whole.length);
    // The steps' own changes reach the page as the live stream's do: a step's status, an item added.
    expect(paths.some((p) => /^\/steps\/\d+\/(status|items\/\d+)/.test(p) || /^\/steps\/\d+$/.test(p))).toBe(true);
    const turn = site.thread(r.thread.id)?.turns[0];
    expect(stream.markdown()).toBe(answerMarkdown(turn?.script.answer ?? [], turn?.script.sources ?? [], Number.POSITIVE_INFINITY));
  });

  test('the sim’s JSON diff, applied by the product’s own patcher, makes the later value', () => {
    const cases: [unknown, unknown][] = [
      [{ a: 1, b: [1, 2, 3], c: { d: 'x' } }, { a: 2, b: [1, 5], c: { d: 'x', e: null }, f: [] }],
      [{ steps: [{ status: 'IN_PROGRESS', items: [] }] }, { steps: [{ status: 'DONE', items: [{ t: 'a' }] }, { status: 'IN_PROGRESS', items: [] }] }],
      [{ 'a/b': { '~k': 1 } }, { 'a/b': { '~k': 2 } }],
      [{ list: [{ x: 1 }, { x: 2 }, { x: 3 }] }, { list: [{ x: 1 }] }],
      [{ v: [1] }, { v: { one: 1 } }],
    ];
    for (const [before, after] of cases) {
      const ops = jsonDiff(before, after);
      expect(applyPatch(JSON.parse(JSON.stringify(before)), ops)).toEqual(after);
      expect(ops.filter((o) => o.path === '')).toEqual([]);
    }
    expect(jsonDiff({ a: 1 }, { a: 1 })).toEqual([]);
  });

  test('an unknown turn is a 404, and Stop’s call answers', async () => {
    const site = createSimSite({ generation: 'B', speed: 20 });
    const res = await site.handle({ method: 'POST', url: '/rest/sse/perplexity_ask', body: JSON.stringify({ query_str: 'q', params: { thread: 'nope', turn: 0 } }) });
    expect(res.status).toBe(404);
    expect((await site.handle({ method: 'POST', url: '/rest/sse/perplexity_terminate', body: '{}' })).status).toBe(200);
  });

  test('cut after n frames (site.setAskStreamCut): no final frame, no end; the reader calls it cut', async () => {
    let t = 1_000_000;
    const site = createSimSite({ generation: 'B', speed: 4, scenario: 'slow', clock: () => (t += 15) });
    const r = await ask(site, 'Tell me slowly');
    site.setAskStreamCut(3);
    const res = await site.handle({
      method: 'POST',
      url: '/rest/sse/perplexity_ask',
      body: JSON.stringify({ query_str: r.turn.query, params: { frontend_uuid: r.turn.uuid, thread: r.thread.id, turn: r.turn.index } }),
    });
    const reader = new AskStream(askStream2026, { query: r.turn.query }, 0);
    let text = '';
    const ended = await res.stream?.((piece) => {
      text += piece;
      reader.push(piece);
    }, () => false);
    reader.close();
    expect(ended).toBe('cut');
    expect(text.match(/^event: message\r\n/gm)).toHaveLength(3);
    expect(text).not.toContain('end_of_stream');
    expect(reader.finalSeen).toBe(false);
    expect(reader.state()).toBe('cut');
  });
});

/** The sim's HTTP handler (server.ts), which the standalone server and the e2e worlds' streams go through, on plain HTTP. */
describe('the sim’s HTTP handler streams', () => {
  async function serving(site: SimSite): Promise<{ port: number; close: () => Promise<void>; played: Promise<unknown>[] }> {
    const played: Promise<unknown>[] = [];
    const handle = site.handle.bind(site);
    // Each stream's play, to know when the server stopped writing it.
    site.handle = async (req) => {
      const res = await handle(req);
      const stream = res.stream;
      if (!stream) return res;
      return {
        ...res,
        stream: (w, c) => {
          const play = stream(w, c);
          played.push(play);
          return play;
        },
      };
    };
    const server = http.createServer(simRequestHandler(site));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      played,
      close: () => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    };
  }

  function post(port: number, r: AskResponse): http.ClientRequest {
    const body = JSON.stringify({ query_str: r.turn.query, params: { frontend_uuid: r.turn.uuid, thread: r.thread.id, turn: r.turn.index } });
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/rest/sse/perplexity_ask', headers: { 'content-type': 'application/json' } });
    req.end(body);
    return req;
  }

  test('each frame as it happens: the first arrives while the turn still plays; the whole ends with end_of_stream', async () => {
    const site = createSimSite({ generation: 'B', speed: 8, scenario: 'slow' });
    const srv = await serving(site);
    try {
      const r = await ask(site, 'Tell me slowly');
      const pieces: string[] = [];
      await new Promise<void>((resolve, reject) => {
        post(srv.port, r).on('response', (res) => {
          res.setEncoding('utf8');
          res.on('data', (d: string) => pieces.push(d));
          res.on('end', resolve);
          res.on('error', reject);
        });
      });
      expect(pieces.length).toBeGreaterThan(1);
      expect(pieces[0]).not.toContain('end_of_stream');
      expect(pieces.join('').endsWith('event: end_of_stream\r\ndata: {}\r\n\r\n')).toBe(true);
    } finally {
      await srv.close();
    }
  });

  test('the client’s abort ends the play; a cut drops the connection with no end', async () => {
    const site = createSimSite({ generation: 'B', speed: 1, scenario: 'slow' });
    const srv = await serving(site);
    try {
      const r = await ask(site, 'Tell me slowly');
      const req = post(srv.port, r);
      req.on('error', () => undefined);
      await new Promise<void>((resolve) => req.on('response', (res) => res.once('data', () => resolve())));
      req.destroy();
      // The server stops writing (its play returns) once the connection is gone: awaited, not timed.
      await expect(srv.played[0]).resolves.toBeUndefined();

      site.setAskStreamCut(1);
      const cut = await ask(site, 'Tell me slowly, cut');
      const outcome = await new Promise<string>((resolve) => {
        const creq = post(srv.port, cut);
        creq.on('error', (e) => resolve(`error ${String(e)}`));
        creq.on('response', (res) => {
          res.on('aborted', () => resolve('aborted'));
          res.on('error', () => resolve('aborted'));
          res.on('end', () => resolve('ended'));
          res.resume();
        });
      });
      expect(outcome).toBe('aborted');
      await expect(srv.played[1]).resolves.toBe('cut');
    } finally {
      await srv.close();
    }
  });
});
