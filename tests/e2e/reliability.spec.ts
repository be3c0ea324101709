import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { listHosts } from '../../lib/relay/discovery';
import { CLI, textOf } from '../support/harness';
import { mcpProcessId, type ObserverProbe, observerProbe, stopServiceWorker } from '../support/probes';
import { startSimWorld, type SimWorld } from '../support/sim-harness';

/**
 * Faults, for real: the host killed, the service worker stopped, the tab closed or
 * navigated, a client cancelling or crashing, the browser closed — each mid-call. Every caller gets
 * a clear error instead of a hang, nothing keeps running in the page for a caller that is gone (the
 * content script's MutationObservers are counted over CDP), and everything reconnects by itself.
 */
test.describe.configure({ mode: 'serial' });

let world: SimWorld;
let observers: ObserverProbe;
test.beforeAll(async () => {
  world = await startSimWorld({ generation: 'B', speed: 4, clientName: 'reliability' });
  observers = await observerProbe(world.harness.context, world.page);
});
test.afterAll(async () => world?.harness.close());

/** comet_wait started in the background; resolves to its text and error flag, and how long it took. */
function backgroundWait(signal?: AbortSignal) {
  const started = Date.now();
  return world.client
    .callTool({ name: 'comet_wait', arguments: { timeout: 60_000 } }, undefined, { signal, timeout: 90_000 })
    .then((raw) => ({ text: textOf(raw), isError: Boolean((raw as { isError?: boolean }).isError), ms: Date.now() - started }));
}

test('a client cancelling mid-comet_wait, or crashing: the page stops watching for it', async () => {
  expect(await observers.count()).toBe(0);
  await world.call('comet_ask', { prompt: 'Never ending #scenario:stopped' });
  const controller = new AbortController();
  const waiting = backgroundWait(controller.signal).catch((error: Error) => ({ text: error.message, isError: true, ms: 0 }));
  await observers.until((n) => n > 0);
  controller.abort();
  expect((await waiting).isError).toBe(true);
  await observers.until(0);

  // A second agent's process dies mid-wait: the host drops it, and its call is cancelled down to the page.
  const doomed = await world.harness.stdioClient('doomed-agent');
  void doomed.callTool({ name: 'comet_wait', arguments: { timeout: 60_000 } }).catch(() => {});
  await observers.until((n) => n > 0);
  process.kill(mcpProcessId(doomed), 'SIGKILL');
  await observers.until(0);
  expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
});

test('the host killed mid-comet_wait: a clear error at once, a new host by itself, the answer still there', async () => {
  world.site.setSpeed(1); // `slow`: about 7 s of answer, so the kill lands mid-answer
  await world.call('comet_ask', { prompt: 'Survive the host #scenario:slow', newChat: true });
  const waiting = backgroundWait();
  await observers.until((n) => n > 0);
  const old = listHosts(world.harness.home)[0]!;
  process.kill(old.pid, 'SIGKILL');
  const failed = await waiting;
  console.log(`host killed → comet_wait error after ${failed.ms} ms`);
  expect(failed.isError).toBe(true);
  expect(failed.text).toMatch(/^\[HOST_DISCONNECTED\] .*Call again/);
  // The worker aborted the call when its link dropped: nothing watches the page for a caller that is
  // gone, while the answer is still streaming (checked next, so a natural end cannot pass for it).
  await observers.until(0, 4000);
  // Nobody clicks anything: the extension starts a new host, which replaces the dead one's socket and record.
  const fresh = await world.harness.waitForHost(20_000, old.pid);
  expect(fresh.socketPath).toBe(old.socketPath);
  expect(listHosts(world.harness.home).map((h) => h.pid)).toEqual([fresh.pid]);
  expect(JSON.parse((await world.call('comet_poll')).text).status).toBe('working');
  const again = await world.call('comet_wait');
  expect(again.isError).toBe(false);
  expect(again.text).toContain('Survive the host');
  const snapshot = JSON.parse((await world.call('comet_poll')).text);
  expect(snapshot).toMatchObject({ status: 'completed', questionText: expect.stringContaining('Survive the host') });
  expect(snapshot.response.length).toBeGreaterThan(100);
  world.site.setSpeed(4);
});

test('the service worker stopped mid-call: a clear error, then it comes back by itself and the next call works', async () => {
  await world.call('comet_ask', { prompt: 'Never ending again #scenario:stopped' });
  const waiting = backgroundWait();
  await observers.until((n) => n > 0);
  const before = listHosts(world.harness.home)[0]!;
  await stopServiceWorker(world.harness.context, world.page);
  const failed = await waiting;
  expect(failed.isError).toBe(true);
  expect(failed.text).toMatch(/^\[HOST_DISCONNECTED\]/);
  await observers.until(0);
  // The content script reconnects, which wakes the worker, which starts a new host.
  await world.harness.waitForHost(20_000, before.pid);
  const snapshot = await world.call('comet_poll');
  expect(snapshot.isError).toBe(false);
  expect(JSON.parse(snapshot.text).status).toBe('working');
  expect((await world.call('comet_stop')).text).toBe('Agent stopped.');
});

test('the Perplexity tab navigated away mid-comet_wait: a clear error, never a hang', async () => {
  await world.call('comet_ask', { prompt: 'Leaving soon #scenario:stopped' });
  const waiting = backgroundWait();
  await observers.until((n) => n > 0);
  await world.page.goto('https://www.perplexity.ai/library');
  const failed = await waiting;
  expect(failed.isError).toBe(true);
  expect(failed.text).toMatch(/^\[NO_PERPLEXITY_TAB\] .*(closed or reloaded|reconnected).*Call again/);
});

test('the Perplexity tab closed mid-comet_wait: a clear error; comet_connect then picks another tab', async () => {
  await world.page.goto('https://www.perplexity.ai/');
  await world.call('comet_connect');
  await world.call('comet_ask', { prompt: 'Closing soon #scenario:stopped' });
  const waiting = backgroundWait();
  await observers.until((n) => n > 0);
  await world.page.close();
  const failed = await waiting;
  expect(failed.isError).toBe(true);
  expect(failed.text).toMatch(/^\[NO_PERPLEXITY_TAB\]/);
  world.page = await world.harness.openPerplexity();
  expect((await world.call('comet_connect')).text).toMatch(/^Connected to /);
});

test('the browser closed with a client attached: the next call and doctor say so', async () => {
  const host = listHosts(world.harness.home)[0]!;
  await world.harness.context.close();
  await expect.poll(() => listHosts(world.harness.home).length, { timeout: 15_000 }).toBe(0);
  const after = await world.call('comet_list_tabs');
  expect(after.isError).toBe(true);
  expect(after.text).toMatch(/^\[EXTENSION_NOT_CONNECTED\] No browser with the comet-relay extension is connected\..*run `node (?:dist\/cli\.js|\S+\/dist\/cli\.js) doctor(?: --home \S+)?`/);
  let output = '';
  try {
    execFileSync(process.execPath, [CLI, 'doctor', '--user-data-dir', world.harness.userDataDir], { env: world.harness.env, encoding: 'utf8' });
  } catch (error) {
    output = String((error as { stdout: string }).stdout);
  }
  expect(output).toMatch(/✘ host running/);
  expect(() => process.kill(host.pid, 0)).toThrow(); // the host exited with the browser
});
