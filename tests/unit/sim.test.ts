import { describe, expect, it } from 'vitest';
import { answerPlainText, answerTokens, blockHtml, citationGroups } from '../sim/answer';
import { SCENARIO_NAMES, SCENARIOS, buildResume, buildScript, resolveScenario, scenarioFromPrompt } from '../sim/scenarios';
import { type SimSite, createSimSite } from '../sim/site';
import type { AskResponse, BootData, ThreadSummary } from '../sim/types';

function bootOf(html: string): BootData {
  const m = /<script id="__SIM_BOOT__" type="application\/json">(.*?)<\/script>/s.exec(html);
  if (!m?.[1]) throw new Error('no boot data');
  return JSON.parse(m[1]) as BootData;
}

async function get(site: SimSite, url: string) {
  const res = await site.handle({ method: 'GET', url });
  return { ...res, text: res.body.toString() };
}

async function ask(site: SimSite, body: Record<string, unknown>): Promise<AskResponse> {
  const res = await site.handle({ method: 'POST', url: '/_sim/api/ask', body: JSON.stringify({ mode: 'standard', model: 'Best', ...body }) });
  expect(res.status).toBe(200);
  return JSON.parse(res.body.toString()) as AskResponse;
}

describe('sim site routes', () => {
  it('serves the home page shell with boot data, sprite and page script', async () => {
    const site = createSimSite({ generation: 'A', speed: 50 });
    const res = await get(site, '/');
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/text\/html/);
    expect(res.text).toContain('<script src="/_sim/app.js">');
    expect(res.text).toContain('id="pplx-icon-telescope"');
    const boot = bootOf(res.text);
    expect(boot).toMatchObject({ generation: 'A', scenario: 'short', speed: 50, page: { kind: 'home' } });
  });

  it('serves its labels in a language (Arabic right to left) and its hooks renamed, on request', async () => {
    const ar = await get(createSimSite({ language: 'ar' }), '/');
    expect(ar.text).toMatch(/^<!DOCTYPE html><html lang="ar" dir="rtl"/);
    expect(bootOf(ar.text)).toMatchObject({ language: 'ar', hooks: 'standard' });
    const fr = await get(createSimSite({ language: 'fr', hooks: 'renamed' }), '/');
    expect(fr.text).toMatch(/<html lang="fr" dir="ltr"/);
    expect(bootOf(fr.text)).toMatchObject({ language: 'fr', hooks: 'renamed' });
    expect(() => createSimSite({ language: 'xx' as never })).toThrow(/unknown language "xx" \(known: en, fr, ar\)/);
    expect(() => createSimSite({ hooks: 'other' as never })).toThrow(/unknown hooks "other"/);
  });

  it('every language has every label (a missing one would show "undefined" on the page)', async () => {
    const { SIM_LANGUAGES } = await import('../sim/locales');
    const keys = Object.keys(SIM_LANGUAGES.en).sort();
    for (const [name, labels] of Object.entries(SIM_LANGUAGES)) {
      expect(Object.keys(labels).sort(), name).toEqual(keys);
      expect(Object.keys(labels.modes).sort(), name).toEqual(Object.keys(SIM_LANGUAGES.en.modes).sort());
    }
  });

  it('bundles the page script', async () => {
    const res = await get(createSimSite(), '/_sim/app.js');
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/javascript/);
    expect(res.text).toContain('__sim');
    expect(res.text.length).toBeGreaterThan(5000);
  });

  it('redirects the bare domain to www, 404s unknown pages and threads', async () => {
    const site = createSimSite();
    const r = await site.handle({ method: 'GET', url: 'https://perplexity.ai/library?x=1' });
    expect(r.status).toBe(301);
    expect(r.headers?.location).toBe('https://www.perplexity.ai/library?x=1');
    expect((await get(site, '/nope')).status).toBe(404);
    const missing = await get(site, '/search/does-not-exist');
    expect(missing.status).toBe(404);
    expect(bootOf(missing.text).page.kind).toBe('not-found');
  });

  it('serves library, static pages, sidecar and shared links', async () => {
    const site = createSimSite();
    const lib = bootOf((await get(site, 'https://www.perplexity.ai/library')).text).page;
    expect(lib.kind).toBe('library');
    if (lib.kind !== 'library') throw new Error();
    expect(lib.threads.map((t) => t.path)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\/search\//), expect.stringMatching(/^\/copilot\//), expect.stringMatching(/^\/computer\/tasks\//)]),
    );
    expect(lib.threads.some((t) => t.doubledTitle)).toBe(true);
    for (const p of ['/spaces', '/projects', '/computer/artifacts', '/page/abc']) {
      expect(bootOf((await get(site, p)).text).page.kind).toBe('static');
    }
    expect(bootOf((await get(site, '/sidecar?copilot=true&source=comet')).text).page.kind).toBe('sidecar');
    const first = site.threads()[0];
    expect(bootOf((await get(site, `/s/${first?.id}`)).text).page.kind).toBe('thread');
  });

  it('starts empty without seed threads', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100 });
    const res = await site.handle({ method: 'GET', url: '/_sim/api/threads' });
    expect(JSON.parse(res.body.toString())).toEqual({ threads: [] });
  });

  it('rejects bad asks, unknown scenarios and generations', async () => {
    const site = createSimSite({ speed: 100 });
    expect((await site.handle({ method: 'POST', url: '/_sim/api/ask', body: 'not json' })).status).toBe(400);
    expect((await site.handle({ method: 'POST', url: '/_sim/api/ask', body: '{"query":"  "}' })).status).toBe(400);
    expect(() => site.setScenario('nope')).toThrow(/unknown scenario/);
    expect(() => createSimSite({ scenario: 'nope' })).toThrow(/unknown scenario/);
    expect(() => site.setGeneration('C' as 'A')).toThrow();
  });
});

describe('sim threads', () => {
  it('keeps threads server side: ask → thread page → follow-up → library', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100 });
    const first = await ask(site, { query: 'What is MCP?' });
    expect(first.thread.path).toMatch(/^\/search\/what-is-mcp-[A-Za-z0-9]{22}$/);
    expect(first.turn).toMatchObject({ index: 0, query: 'What is MCP?', scenario: 'short', stoppedAfter: null });

    const page = bootOf((await get(site, first.thread.path)).text).page;
    expect(page.kind).toBe('thread');
    if (page.kind !== 'thread') throw new Error();
    expect(page.thread.turns).toHaveLength(1);

    const second = await ask(site, { query: 'And why?', thread: first.thread.id });
    expect(second.thread.id).toBe(first.thread.id);
    expect(second.turn.index).toBe(1);
    const again = bootOf((await get(site, first.thread.path)).text).page;
    expect(again.kind === 'thread' && again.thread.turns.map((t) => t.query)).toEqual(['What is MCP?', 'And why?']);

    const list = JSON.parse((await site.handle({ method: 'GET', url: '/_sim/api/threads' })).body.toString()) as { threads: ThreadSummary[] };
    expect(list.threads).toHaveLength(1);
    expect(list.threads[0]).toMatchObject({ path: first.thread.path, title: 'What is MCP?' });
    expect(list.threads[0]?.snippet).toContain('What is MCP?');
  });

  it('puts computer-mode asks under /computer/tasks and sidecar asks under /sidecar', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100 });
    const c = await ask(site, { query: 'Book a table', mode: 'computer' });
    expect(c.thread.path).toMatch(/^\/computer\/tasks\/[0-9a-f-]{36}$/);
    expect(bootOf((await get(site, c.thread.path)).text).page.kind).toBe('thread');
    const s = await ask(site, { query: 'Summarize', sidecar: true });
    expect(s.thread.path).toMatch(/^\/sidecar\/search\//);
    expect(bootOf((await get(site, s.thread.path)).text).page.kind).toBe('sidecar');
  });

  it('records Stop once, with how many events had been applied', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100, scenario: 'stopped' });
    const a = await ask(site, { query: 'forever' });
    const stop = (applied: number) =>
      site.handle({ method: 'POST', url: '/_sim/api/stop', body: JSON.stringify({ thread: a.thread.id, turn: 0, applied }) });
    expect((await stop(7)).status).toBe(200);
    await stop(9);
    expect(site.thread(a.thread.id)?.turns[0]?.stoppedAfter).toBe(7);
    const bad = await site.handle({ method: 'POST', url: '/_sim/api/stop', body: '{"thread":"x","turn":0}' });
    expect(bad.status).toBe(404);
  });

  it('takes the round trip before answering an ask (scaled by speed)', async () => {
    const site = createSimSite({ seedThreads: false, speed: 1 });
    const t0 = Date.now();
    await ask(site, { query: 'timing' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100); // 150 ms scripted; timers may fire a little early
  });
});

describe('sim scenarios', () => {
  it('uses the site scenario, setScenario, or a #scenario: tag in the prompt', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100, scenario: 'keywords' });
    expect((await ask(site, { query: 'plain' })).turn.scenario).toBe('keywords');
    site.setScenario('error');
    const r = await ask(site, { query: 'plain again' });
    expect(r.turn.scenario).toBe('error');
    expect(r.siteScenario).toBe('error');
    expect((await ask(site, { query: 'compare X and Y #scenario:long' })).turn.scenario).toBe('long');
    expect((await ask(site, { query: 'unknown #scenario:bogus' })).turn.scenario).toBe('error');
    expect(scenarioFromPrompt('x #Scenario:Deep-Research')).toBe('deep-research');
    expect(resolveScenario('no tag', 'slow')).toBe('slow');
  });

  it('strips the tag from thread titles but keeps the query as typed', async () => {
    const site = createSimSite({ seedThreads: false, speed: 100 });
    const r = await ask(site, { query: 'Rust vs Go #scenario:keywords' });
    expect(r.thread.title).toBe('Rust vs Go');
    expect(r.turn.query).toBe('Rust vs Go #scenario:keywords');
  });

  const ctx = { query: 'q', mode: 'standard' as const };

  it('ends every scenario the way it says', () => {
    for (const name of SCENARIO_NAMES) {
      const s = buildScript(name, ctx, 1);
      const last = s.events[s.events.length - 1];
      const times = s.events.map((e) => e.t);
      expect(times, name).toEqual([...times].sort((a, b) => a - b));
      if (name === 'error' || name === 'computer-error') expect(last?.type).toBe('error');
      else if (name === 'stopped') expect(s.events.some((e) => e.type === 'finish')).toBe(false);
      else if (SCENARIOS[name]?.resume) {
        // Computer tasks pause on the person; the reply's continuation (built at reply time) finishes.
        expect(last?.type, name).toBe('interaction');
        const replies = [
          { kind: 'answer', text: 'Lyon' },
          { kind: 'approve' },
          { kind: 'deny' },
          { kind: 'answers', answers: { a: 'Lyon' } },
          { kind: 'connected' },
          { kind: 'skip' },
        ] as const;
        for (const reply of replies) {
          const rest = buildResume(name, ctx, reply, 1, 5000);
          expect(rest?.events.at(-1)?.type, name).toBe('finish');
          expect(rest?.events[0]?.t, name).toBe(5000);
        }
      } else if (last?.type === 'block') {
        // Tasks that end on a block: a follow-up continues them, or (no access) nothing can.
        expect(SCENARIOS[name]?.followUp ?? (last.block.kind === 'access_denied' ? 'none' : undefined), name).toBeDefined();
      } else {
        expect(last?.type, name).toBe('finish');
        const tokens = s.events.filter((e) => e.type === 'tokens');
        const lastTokens = tokens[tokens.length - 1];
        expect(lastTokens?.type === 'tokens' && lastTokens.upto, name).toBe(answerTokens(s.answer));
      }
    }
  });

  it('scales times by speed', () => {
    const slow = buildScript('short', ctx, 1);
    const fast = buildScript('short', ctx, 4);
    expect(slow.events[slow.events.length - 1]?.t).toBe(1000);
    expect(fast.events[fast.events.length - 1]?.t).toBe(250);
  });

  it('long: over 50,000 characters with headings, lists, code and nested prose', () => {
    const s = buildScript('long', ctx, 1);
    expect(answerPlainText(s.answer).length).toBeGreaterThan(50_000);
    const html = s.answer.map((b) => blockHtml(b, Number.POSITIVE_INFINITY, { generation: 'B', sources: s.sources })).join('');
    expect(html).toContain('<h2');
    expect(html).toContain('<ul');
    expect(html).toContain('data-testid="copy-code-button"');
    expect(html).toContain('data-testid="code-language-indicator"');
    expect(html.match(/class="prose/g)?.length).toBe(1);
  });

  it('keywords: the prose contains the step words', () => {
    const text = answerPlainText(buildScript('keywords', ctx, 1).answer);
    for (const w of ['Reading', 'Searching', 'Preparing', 'Thinking']) expect(text).toContain(w);
  });

  it('slow: pauses of 2–3 s in the middle of the stream', () => {
    const s = buildScript('slow', ctx, 1);
    const t = s.events.filter((e) => e.type === 'tokens').map((e) => e.t);
    const gaps = t.slice(1).map((x, i) => x - (t[i] as number));
    expect(gaps.filter((g) => g >= 2000 && g <= 3000).length).toBe(2);
  });

  it('deep-research: ~20 steps with the deep research icons', () => {
    const steps = buildScript('deep-research', ctx, 1).events.filter((e) => e.type === 'step');
    expect(steps.length).toBe(20);
    const icons = new Set(steps.map((e) => e.type === 'step' && e.icon));
    for (const i of ['pplx-icon-blocks', 'pplx-icon-world-search', 'pplx-icon-bolt']) expect(icons.has(i)).toBe(true);
  });

  it('grouped-citations: name+N labels, overlapping groups, a title-only source', () => {
    const s = buildScript('grouped-citations', ctx, 1);
    const groups = citationGroups(s.answer);
    expect(groups.filter((g) => g.length > 1).length).toBeGreaterThanOrEqual(3);
    const seen = groups.flat();
    expect(new Set(seen).size).toBeLessThan(seen.length); // overlap
    expect(s.sources.some((x) => !x.url)).toBe(true);
    const html = blockHtml(s.answer[0] as never, Number.POSITIVE_INFINITY, { generation: 'B', sources: s.sources });
    expect(html).toContain('>reuters+2<');
    expect(html).toContain('data-pplx-citation-url="https://www.reuters.com/');
    expect(html).toContain('class="citation-nbsp"');
    expect(html).not.toContain('<a ');
    const a = blockHtml(s.answer[0] as never, Number.POSITIVE_INFINITY, { generation: 'A', sources: s.sources });
    expect(a).toContain('<a href="https://www.reuters.com/');
  });

  it('renders a streamed prefix, word by word', () => {
    const s = buildScript('short', ctx, 1);
    const b = s.answer[0] as never;
    const ctxR = { generation: 'B' as const, sources: s.sources };
    expect(blockHtml(b, 3, ctxR)).toBe('<p class="my-0">Here is a</p>');
  });
});
