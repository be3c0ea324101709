import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startSimServer, type SimServer } from '../sim/server';
import { createSimSite, type SimSite } from '../sim/site';
import { spawnSync } from 'node:child_process';
import { parsePack } from '../../lib/packs/parse';
import { CLI, Harness, textOf } from '../support/harness';
import { inOrderShare, realCapturesFolder } from '../support/real-captures';
import { renameHooks, type ThreadTurn, threadJsonBody, threadTurnsByStructure } from '../support/repair-pages';

/**
 * Issue 24 through the whole chain (MCP client → comet-relay → host → worker → content script and
 * its repair kit) in real Chromium: real thread pages of Aug and Sep 2026 (loaded from
 * COMET_REAL_PERPLEXITY, never copied here), their hooks renamed as a redesign might rename them,
 * served at perplexity.ai URLs beside a thread JSON made from the unchanged page's own text.
 */
const folder = realCapturesFolder();
const PAGES = [
  'search-thread-page-WebMCP-2026-08.html',
  'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
  'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html',
];

const wrap = (bytes: string) =>
  /<html[\s>]/i.test(bytes) ? bytes : `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Perplexity</title></head><body>${bytes}</body></html>`;
const slugOf = (file: string) => file.replace(/\.html$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-');
const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
/** The page's words run together, as `words` makes the expected ones (case and punctuation dropped). */
const wordsRunTogether = (s: string) => words(s).join('');

/** The sim site, with these pages and thread bodies answered at their paths. */
function serving(site: SimSite, routes: Map<string, { contentType: string; body: string }>): SimSite {
  return Object.assign(Object.create(site) as SimSite, {
    async handle(req: Parameters<SimSite['handle']>[0]) {
      const url = new URL(req.url, 'https://www.perplexity.ai');
      const hit = url.hostname === 'www.perplexity.ai' && req.method.toUpperCase() === 'GET' ? routes.get(url.pathname) : undefined;
      if (hit) return { status: 200, contentType: hit.contentType, body: hit.body, headers: { 'cache-control': 'no-store' } };
      return site.handle(req);
    },
  });
}

test.describe('a changed page read again through a repair verified against its thread JSON', () => {
  test.skip('skip' in folder, 'skip' in folder ? folder.skip : '');

  let srv: SimServer;
  let harness: Harness;
  let client: Client;
  const routes = new Map<string, { contentType: string; body: string }>();
  const html = (p: string, body: string) => routes.set(p, { contentType: 'text/html; charset=utf-8', body });
  const json = (slug: string, body: string) => routes.set(`/rest/thread/${slug}`, { contentType: 'application/json', body });
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError) };
  };
  const open = async (p: string) => {
    for (const old of harness.context.pages()) await old.close();
    await harness.openPerplexity(`https://www.perplexity.ai${p}`);
    expect((await call('comet_connect')).isError).toBe(false);
  };

  test.beforeAll(async () => {
    const dir = 'dir' in folder ? folder.dir : '';
    for (const file of PAGES) {
      const bytes = wrap(fs.readFileSync(path.join(dir, file), 'utf8'));
      const slug = slugOf(file);
      html(`/search/${slug}-unchanged`, bytes);
      html(`/search/${slug}`, renameHooks(bytes));
      html(`/search/${slug}-nowhere`, renameHooks(bytes));
      html(`/search/${slug}-panel`, renameHooks(bytes));
      json(`${slug}-nowhere`, threadJsonBody([{ index: 0, question: 'What is the capital of Australia?', answer: 'Canberra is the capital of Australia [1].', sources: ['https://example.com/canberra'] }], `${slug}-nowhere`));
    }
    srv = await startSimServer({ port: 0, site: serving(createSimSite({ seedThreads: false }), routes) });
    harness = await Harness.start({ browserArgs: srv.chromiumArgs });
    await harness.waitForHost();
    client = await harness.stdioClient('e2e-repair');
    // The thread JSON of each page, from the unchanged page's own text as the browser shows it.
    for (const file of PAGES) {
      const slug = slugOf(file);
      const page = await harness.openPerplexity(`https://www.perplexity.ai/search/${slug}-unchanged`);
      const turns = (await page.evaluate(`(${threadTurnsByStructure.toString()})(document)`)) as ThreadTurn[];
      await page.close();
      json(slug, threadJsonBody(turns, slug));
      json(`${slug}-unchanged`, threadJsonBody(turns, `${slug}-unchanged`));
      json(`${slug}-panel`, threadJsonBody(turns, `${slug}-panel`));
    }
  });
  test.afterAll(async () => {
    await harness?.close();
    await srv?.close();
  });

  for (const file of PAGES) {
    const slug = slugOf(file);
    test(`${file}, hooks renamed: comet_poll, comet_wait and comet_get_sources read the answer through a verified repair, and say so`, async () => {
      test.setTimeout(120_000);
      const turns = JSON.parse(routes.get(`/rest/thread/${slug}`)?.body ?? '{}') as { entries: { query_str: string; blocks: { markdown_block?: { answer: string }; web_result_block?: { web_results: { url: string }[] } }[] }[] };
      const last = turns.entries.at(-1);
      const answer = last?.blocks[0]?.markdown_block?.answer ?? '';
      const urls = (last?.blocks[1]?.web_result_block?.web_results ?? []).map((r) => r.url);
      await open(`/search/${slug}`);

      const polled = await call('comet_poll');
      expect(polled.isError, polled.text).toBe(false);
      const snapshot = JSON.parse(polled.text) as { status: string; response: string; questionText: string; repair?: string };
      expect(snapshot.repair).toMatch(/^Read through a repair: selectors for .* derived on \d{4}-\d{2}-\d{2} from https:\/\/www\.perplexity\.ai\/search\/.* against its thread JSON/);
      expect(inOrderShare(words(answer), snapshot.response, wordsRunTogether)).toBeGreaterThan(0.95);
      expect(snapshot.status).toBe('completed');
      if (last?.query_str) expect(words(snapshot.questionText)).toEqual(words(last.query_str));

      const waited = await call('comet_wait', { timeout: 10_000 });
      expect(waited.isError, waited.text).toBe(false);
      expect(inOrderShare(words(answer), waited.text, wordsRunTogether)).toBeGreaterThan(0.95);
      expect(waited.text.split('\n').filter((l) => l.startsWith('Read through a repair:'))).toHaveLength(1);

      const sources = await call('comet_get_sources');
      expect(sources.isError, sources.text).toBe(false);
      for (const url of urls) expect(sources.text).toContain(url);
      expect(sources.text).toMatch(/\nRead through a repair: /);
    });

    test(`${file}, unchanged: read with no repair`, async () => {
      test.setTimeout(60_000);
      await open(`/search/${slug}-unchanged`);
      const polled = await call('comet_poll');
      expect(polled.isError, polled.text).toBe(false);
      expect(JSON.parse(polled.text)).not.toHaveProperty('repair');
      const sources = await call('comet_get_sources');
      expect(sources.text).not.toContain('Read through a repair');
    });

    test(`${file}, hooks renamed, with a thread JSON whose text is nowhere on the page: no repair, and a clear [SELECTOR_MISS]`, async () => {
      test.setTimeout(60_000);
      await open(`/search/${slug}-nowhere`);
      for (const tool of ['comet_poll', 'comet_wait']) {
        const result = await call(tool, tool === 'comet_wait' ? { timeout: 10_000 } : {});
        expect(result.isError, result.text).toBe(true);
        expect(result.text).toMatch(/^\[SELECTOR_MISS\] turn: /);
        expect(result.text).toContain("A repair from the thread JSON was tried on this page and failed (answer: no element on the page shows the text of any of the thread JSON's 1 finished answer(s))");
      }
    });
  }

  test('the side panel shows the repair, exports it as the pack `selectors add` takes, and undoes it; doctor --page reports it', async () => {
    test.setTimeout(120_000);
    const slug = slugOf(PAGES[2] as string);
    await open(`/search/${slug}-panel`);
    const polled = await call('comet_poll');
    expect(polled.isError, polled.text).toBe(false);
    expect(JSON.parse(polled.text)).toHaveProperty('repair');

    const doctor = spawnSync(process.execPath, [CLI, 'doctor', '--page', '--user-data-dir', harness.userDataDir, '--home', harness.home], {
      env: harness.env,
      encoding: 'utf8',
      cwd: harness.home,
    });
    expect(doctor.stdout).toMatch(/Read through a repair: selectors for .* derived on \d{4}-\d{2}-\d{2} from https:\/\/www\.perplexity\.ai\/search\/.*-panel against its thread JSON/);
    expect(doctor.stdout).toMatch(/ {2}✔ answer — 3 elements \(/);

    const panel = await harness.openPanel();
    const card = panel.getByTestId('repair');
    await expect(card).toBeVisible();
    await expect(card).toContainText(`/search/${slug}-panel against its thread JSON`);
    await expect(panel.getByTestId('repair-probes')).toContainText('answer');
    await expect(panel.getByTestId('repair-probes')).toContainText('citationInline');

    const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('repair-export').click()]);
    const file = await download.path();
    const pack = parsePack(JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(pack.ok ? pack.name : pack.problems).toMatch(/^gen-[a-z]-\d{4}-\d{2}-derived$/);

    await panel.getByTestId('repair-undo').click();
    await expect(card).toBeHidden();
    const after = await call('comet_poll');
    expect(after.isError).toBe(true);
    expect(after.text).toMatch(/^\[SELECTOR_MISS\] turn: .*A repair from the thread JSON was tried on this page and failed \(turn: the repair derived on .* was undone in the side panel\)/);
    await panel.close();
  });
});
