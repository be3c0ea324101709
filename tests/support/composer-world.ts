import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';

/**
 * Our page script's ask and typing code (lib/page/handlers with the ask kit, lib/page/composer), bundled and run in an
 * isolated world of a page, as the content script runs: it shares the page's DOM and events, not its
 * JavaScript (no `element.__lexicalEditor`, and a `document.execCommand` stubbed here is stubbed for
 * our code only). Exposes `globalThis.__relay` in that world.
 */
const ENTRY = `
import { pageWithAskKit } from './tests/support/ask-page';
import { composerOf, composerText, typeInto } from './lib/page/composer/composer';
import { PageWatcher } from './lib/page/answer/observer';
import { chooseSelectorSet } from './lib/selectors';

function context() {
  const set = chooseSelectorSet(document).set;
  const watcher = new PageWatcher(window, () => set);
  return { win: window, doc: document, set, waitFor: watcher.waitFor };
}
globalThis.__relay = {
  ask: (prompt) => pageWithAskKit(window)['page.ask']({ prompt }, { signal: new AbortController().signal, progress: (m) => globalThis.__relay.progress.push(m) }),
  progress: [],
  type: (text) => { const ctx = context(); return typeInto(ctx, composerOf(ctx), text); },
  text: () => composerText(composerOf(context())),
  execCommand: { calls: [] },
};
`;

let bundle: Promise<string> | null = null;

function relayBundle(): Promise<string> {
  bundle ??= build({
    stdin: { contents: ENTRY, resolveDir: fileURLToPath(new URL('../..', import.meta.url)), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'chrome116',
    platform: 'browser',
    logLevel: 'silent',
  }).then((r) => (r.outputFiles[0] as { text: string }).text);
  return bundle;
}

export interface RelayWorld {
  /** Evaluates `expression` (awaited) in the world; a thrown error comes back as `{ error: { code, message } }`. */
  run<T>(expression: string): Promise<T>;
  close(): Promise<void>;
}

/** Creates the world in the page's main frame and loads our code into it. */
export async function relayWorld(page: Page): Promise<RelayWorld> {
  const cdp = await page.context().newCDPSession(page);
  const { frameTree } = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const { executionContextId } = (await cdp.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: 'relay-under-test' })) as {
    executionContextId: number;
  };
  const evaluate = async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = (await cdp.send('Runtime.evaluate', {
      expression,
      contextId: executionContextId,
      awaitPromise: true,
      returnByValue: true,
    })) as { result: { value: T }; exceptionDetails?: { text: string; exception?: { description?: string } } };
    if (exceptionDetails) throw new Error(`relay world threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value;
  };
  await evaluate(await relayBundle());
  return {
    run: <T>(expression: string) =>
      evaluate<T>(`(async () => { try { return await (${expression}); } catch (e) { return { error: { code: e?.code, message: String(e?.message ?? e) } }; } })()`),
    close: () => cdp.detach().catch(() => {}),
  };
}
