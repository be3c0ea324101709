import { startSimServer } from '../sim/server';
import { createSimSite } from '../sim/site';
import { findChromium } from '../support/chromium';
import { Harness, textOf } from '../support/harness';
import { ensureChromium, parseDemoArgs, processDeps } from './get-chromium';

/**
 * `npm run demo`: the whole chain against the simulated perplexity.ai, for a machine with no
 * Perplexity account. Headless Chromium with the built extension, the real native host registered
 * into a throwaway profile, and a real MCP client talking to `comet-relay mcp` over stdio: first the
 * comet_* tools on the tab you look at, then a Perplexity Computer task and its follow-up on a thread of its own.
 * The site is served standalone (not by Playwright's routing) so the background tabs the extension
 * opens for threads reach it too.
 */
const DEFAULT_QUESTION = 'What is the Model Context Protocol? #scenario:grouped-citations';

const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

function show(title: string, body: string, maxLines = 14): void {
  const lines = body.split('\n');
  const shown = lines.slice(0, maxLines).map((line) => `    ${line}`);
  if (lines.length > maxLines) shown.push(dim(`    … ${lines.length - maxLines} more lines`));
  console.log(`${bold(title)}\n${shown.join('\n')}\n`);
}

async function main(): Promise<void> {
  const args = parseDemoArgs(process.argv.slice(2));
  const question = args.question || DEFAULT_QUESTION;
  // No Chromium it can use: offer one (asked on a terminal, or --install-browser), else say how to get one.
  const chromiumPath = await ensureChromium(args, processDeps(findChromium));
  if (chromiumPath === null) {
    process.exitCode = 1;
    return;
  }
  const site = createSimSite({ generation: 'B', scenario: 'short', speed: 2 });
  console.log(dim('Starting headless Chromium with the comet-relay extension and a simulated perplexity.ai…'));
  const server = await startSimServer({ port: 0, site });
  const harness = await Harness.start({ browserArgs: server.chromiumArgs, executablePath: chromiumPath }).catch(async (error) => {
    await server.close();
    throw error;
  });
  try {
    const host = await harness.waitForHost();
    console.log(dim(`The browser started comet-relay host (pid ${host.pid}) for profile "${host.profileLabel}".\n`));
    await harness.openPerplexity();
    const client = await harness.stdioClient('comet-relay demo');
    const { tools } = await client.listTools();
    show(`tools/list (${tools.length})`, tools.map((tool) => `${tool.name} — ${tool.title ?? ''}`).join('\n'), tools.length);

    const call = async (name: string, args: Record<string, unknown> = {}, maxLines?: number) => {
      const started = Date.now();
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
      show(`${name} ${JSON.stringify(args)} ${dim(`(${Date.now() - started} ms)`)}`, textOf(result), maxLines);
      return textOf(result);
    };

    await call('comet_connect');
    await call('comet_mode');
    await call('comet_ask', { prompt: question });
    await call('comet_wait', {}, 24);
    await call('comet_get_sources', {}, 30);
    await call('comet_list_tabs');

    console.log(dim('Perplexity Computer: a task, then a follow-up on the same thread_id.\n'));
    const structured = async (name: string, args: Record<string, unknown>) => {
      const started = Date.now();
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 });
      const object = (result.structuredContent ?? {}) as { thread_id?: string; event?: string; files?: { filename: string; url: string }[] };
      show(`${name} ${JSON.stringify(args)} ${dim(`(${Date.now() - started} ms)`)}`, textOf(result), 16);
      return object;
    };
    const first = await structured('call_perplexity_computer', { message: 'Summarize the top 5 stories on Hacker News right now.' });
    if (!first.thread_id) throw new Error(`call_perplexity_computer returned no thread_id (event ${first.event ?? 'none'})`);
    // The tag picks the simulated site's file-producing task for this turn.
    const second = await structured('call_perplexity_computer', { message: 'Turn that into a PDF report #scenario:computer-files', thread_id: first.thread_id });
    for (const file of second.files ?? []) console.log(`    file: ${file.filename} — ${file.url}`);
    console.log(dim('\nDone. Every call above went MCP client → comet-relay mcp → host → extension → page and back.'));
  } finally {
    await harness.close();
    await server.close();
  }
}

main().catch((error) => {
  console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
