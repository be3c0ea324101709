import { createSimSite, type SimOptions, type SimSite } from '../sim/site';
import { routeSim } from '../sim/playwright';
import { startSimServer } from '../sim/server';
import { Harness, type HarnessOptions, textOf } from './harness';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';

/** A harness whose perplexity.ai is the simulator, with one Perplexity tab open and one MCP client. */
export interface SimWorld {
  harness: Harness;
  site: SimSite;
  page: Page;
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean; raw: unknown }>;
  /** What comet_connect said when the world started. */
  connected: { text: string; isError: boolean };
  /**
   * Waits until the page has drawn the end of the site's latest turn (window.__sim: finished, stopped or failed).
   * comet_wait returns when the ask stream ends, which can be before the page has typed it all out: a test that then
   * reads the page waits for this first.
   */
  pageDrewEnd(timeoutMs?: number): Promise<void>;
}

export async function startSimWorld(
  options: Partial<SimOptions> & { clientName?: string; build?: Pick<HarnessOptions, 'cli' | 'extensionDir'> } = {},
): Promise<SimWorld> {
  const { build, clientName, ...simOptions } = options;
  const site = createSimSite({ generation: 'B', scenario: 'short', speed: 4, ...simOptions });
  // Every route is Playwright's, but the ask stream goes through Chromium's network to a server of the same site,
  // which sends each frame as it happens (a route answers only whole): the page reads it as it reads the live one.
  const server = await startSimServer({ port: 0, site });
  let harness: Harness;
  try {
    harness = await Harness.start({
      site: (context) => routeSim(context, site, { streamsThroughNetwork: true }),
      browserArgs: server.chromiumArgs,
      onClose: () => server.close(),
      ...build,
    });
  } catch (err) {
    await server.close();
    throw err;
  }
  await harness.waitForHost();
  const page = await harness.openPerplexity();
  const client = await harness.stdioClient(clientName ?? `e2e-${site.generation}`);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const raw = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 });
    return { text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError), raw };
  };
  const connected = await call('comet_connect');
  const pageDrewEnd = async (timeoutMs = 30_000) => {
    const turn = site.threads()[0]?.turns.at(-1)?.index ?? -1;
    await page.waitForFunction(
      (t) => window.__sim.events.some((e) => e.turn === t && (e.type === 'answer-finished' || e.type === 'stopped' || e.type === 'error')),
      turn,
      { timeout: timeoutMs },
    );
  };
  return { harness, site, page, client, call, connected, pageDrewEnd };
}

export type PanelWorld = SimWorld & { panel: Page };

/**
 * A sim world with seeded threads and the side panel open (as a tab, at a side panel's width),
 * connected: the panel shows what the worker pushes for the client named `clientName`.
 */
export async function startPanelWorld(options: Partial<SimOptions> & { clientName: string }): Promise<PanelWorld> {
  const world = await startSimWorld({ seedThreads: true, ...options });
  if (world.connected.isError) throw new Error(`comet_connect failed, so the panel has nothing to show: ${world.connected.text}`);
  const panel = await world.harness.openPanel();
  await panel.setViewportSize({ width: 340, height: 1400 });
  return { ...world, panel };
}
