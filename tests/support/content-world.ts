import type { Page } from 'playwright-core';

/**
 * Runs code inside our content script's isolated world of a page (where `chrome.runtime` is the
 * extension's), through the DevTools protocol: what a compromised or impersonating content script
 * could do, done for real.
 */
export async function evaluateInContentScript<T>(page: Page, expression: string, timeoutMs = 10_000): Promise<T> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const contexts: { id: number; origin: string; auxData?: { isDefault?: boolean; type?: string } }[] = [];
    cdp.on('Runtime.executionContextCreated', ({ context }) => contexts.push(context));
    await cdp.send('Runtime.enable');
    const deadline = Date.now() + timeoutMs;
    let world: (typeof contexts)[number] | undefined;
    while (!world && Date.now() < deadline) {
      world = contexts.find((c) => c.auxData?.type === 'isolated' && c.origin.startsWith('chrome-extension://'));
      if (!world) await new Promise((r) => setTimeout(r, 50));
    }
    if (!world) throw new Error(`no content script world in ${page.url()}`);
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
      expression,
      contextId: world.id,
      awaitPromise: true,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`content script world threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  } finally {
    await cdp.detach().catch(() => {});
  }
}
