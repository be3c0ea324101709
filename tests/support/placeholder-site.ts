import type { BrowserContext } from 'playwright-core';

/** A bare perplexity.ai stand-in for tests of the spine that need a tab, not Perplexity's UI. */
export async function routePlaceholder(context: BrowserContext): Promise<void> {
  const body = (title: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Placeholder page for the comet-relay spine.</p><script>document.body.append('')</script><p hidden>hidden text</p></main></body></html>`;
  for (const pattern of ['https://www.perplexity.ai/**', 'https://perplexity.ai/**']) {
    await context.route(pattern, (route) =>
      route.fulfill({ contentType: 'text/html', body: body(`Perplexity ${new URL(route.request().url()).pathname}`) }),
    );
  }
  await context.route('https://example.com/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Example Domain</title><p>An agent browsing page.</p>' }),
  );
}
