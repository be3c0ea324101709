/** Routes perplexity.ai in a Playwright browser context to the simulated site. */
import type { BrowserContext, Route } from 'playwright-core';
import type { SimSite } from './site';

export const SIM_URL_PATTERNS = ['https://www.perplexity.ai/**', 'https://perplexity.ai/**'];

export async function routeSim(context: BrowserContext, site: SimSite): Promise<void> {
  const handler = async (route: Route): Promise<void> => {
    const req = route.request();
    try {
      const res = await site.handle({ method: req.method(), url: req.url(), body: req.postData() ?? undefined, headers: await req.allHeaders() });
      let body = res.body;
      if (res.stream) {
        // A route answers whole: the stream's pieces, sent when it has ended (the standalone server sends each as it comes).
        let text = '';
        await res.stream(
          (piece) => {
            text += piece;
          },
          () => false,
        );
        body = text;
        // The page may have gone (or aborted its fetch) while the stream played: nobody is left to answer.
        await route.fulfill({ status: res.status, contentType: res.contentType, body, headers: res.headers }).catch(() => undefined);
        return;
      }
      await route.fulfill({ status: res.status, contentType: res.contentType, body, headers: res.headers });
    } catch (err) {
      // The page or context may be gone by the time a delayed response is ready.
      if (!/closed|destroyed|Target/i.test(String(err))) throw err;
    }
  };
  for (const pattern of SIM_URL_PATTERNS) await context.route(pattern, handler);
}
