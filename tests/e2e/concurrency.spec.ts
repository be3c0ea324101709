import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { listHosts } from '../../lib/relay/discovery';
import { fanOut } from '../support/fan-out';
import { CLI, Harness, textOf } from '../support/harness';
import { routePlaceholder } from '../support/placeholder-site';
import { startSimWorld } from '../support/sim-harness';
import { soak } from '../support/soak';

/**
 * Many at once: 8 MCP client processes × 200 mixed calls, every reply to
 * the client and call that asked, then the soak in its short form; and two browser profiles, two
 * hosts, clients pinned with --profile, no crosstalk between them.
 */

test('8 clients × 200 mixed calls at once, then a short soak: every reply reaches the call that asked, no errors', async () => {
  test.setTimeout(120_000);
  const world = await startSimWorld({ generation: 'B', speed: 10, clientName: 'fan-out' });
  try {
    // A medium answer gives every page-content call its own maxLength, echoed back in its reply.
    await world.call('comet_ask', { prompt: 'Fan out #scenario:slow', newChat: true });
    await world.call('comet_wait');
    const probe = await world.call('comet_get_page_content', { maxLength: 1 });
    const total = Number(/showing 1 of (\d+) characters/.exec(probe.text)?.[1] ?? 0);
    const result = await fanOut(world.harness, total);
    console.log(`fan-out: ${result.ok} ok, ${result.errors} errors, ${result.crossed} crossed in ${Math.round(result.wallMs)} ms`);
    expect(result.firstProblem).toBeUndefined();
    expect(result).toMatchObject({ ok: 1600, errors: 0, crossed: 0 });

    // The bench's soak in its short form (npm run bench runs it for 10 minutes).
    const soaked = await soak(world, { seconds: Number(process.env.SOAK_SECONDS ?? 6) });
    console.log(`soak: ${soaked.calls} calls, ${soaked.callsPerSecond.toFixed(0)}/s, ${soaked.errors} errors, ${soaked.asks} asks, ${soaked.churned} clients came and went`);
    expect(soaked.firstError).toBeUndefined();
    expect(soaked.calls).toBeGreaterThan(50);
    expect(soaked.asks).toBeGreaterThan(0);
  } finally {
    await world.harness.close();
  }
});

test('two browser profiles, two hosts: clients pinned with --profile see only their own browser', async () => {
  test.setTimeout(120_000);
  const first = await Harness.start({ site: routePlaceholder });
  let second: Harness | undefined;
  try {
    second = await Harness.start({ site: routePlaceholder, home: first.home });
    await first.openPerplexity('https://www.perplexity.ai/search/alpha-profile');
    await second.openPerplexity('https://www.perplexity.ai/search/beta-profile');
    await expect.poll(() => listHosts(first.home).length, { timeout: 20_000 }).toBe(2);
    const hosts = listHosts(first.home);
    expect(new Set(hosts.map((h) => h.profileId)).size).toBe(2);
    expect(new Set(hosts.map((h) => h.socketPath)).size).toBe(2);

    // One pinned client per profile; which browser each profile is shows in its tabs.
    const pinned = await Promise.all(hosts.map((h, i) => first.stdioClient(`pinned-${i}`, ['--profile', h.profileId])));
    const mains = await Promise.all(pinned.map(async (c) => /\/search\/(\w+)-profile/.exec(textOf(await c.callTool({ name: 'comet_list_tabs', arguments: {} })))?.[1]));
    expect(mains.sort()).toEqual(['alpha', 'beta']);
    const own = await Promise.all(pinned.map(async (c) => {
      await c.callTool({ name: 'comet_connect', arguments: {} });
      return /\/search\/(\w+)-profile/.exec(textOf(await c.callTool({ name: 'comet_get_page_content', arguments: { maxLength: 200 } })))?.[1];
    }));

    // 2 × 100 calls at once, interleaved: every answer comes from the caller's own browser.
    const calls = Array.from({ length: 200 }, (_, i) => {
      const side = i % 2;
      return pinned[side]!.callTool({ name: 'comet_get_page_content', arguments: { maxLength: 1 + (i % 50) } }).then((raw) => ({ side, i, text: textOf(raw) }));
    });
    for (const { side, i, text } of await Promise.all(calls)) {
      expect(text, `call ${i}`).toContain(`/search/${own[side]}-profile`);
      expect(text, `call ${i}`).toContain(`showing ${1 + (i % 50)} of`);
    }

    // status lists both profiles, each with only its own pinned client.
    const status = JSON.parse(execFileSync(process.execPath, [CLI, 'status', '--json'], { env: first.env }).toString()) as {
      host: { profileId: string };
      clients: { name: string }[];
    }[];
    expect(status).toHaveLength(2);
    for (const [i, h] of hosts.entries()) {
      const row = status.find((r) => r.host.profileId === h.profileId);
      expect(row?.clients.map((c) => c.name)).toEqual([`pinned-${i}`]);
    }
  } finally {
    await second?.close();
    await first.close();
  }
});
