/** Routes perplexity.ai in a Playwright browser context to the simulated site. */
import type { BrowserContext, Route } from 'playwright-core';
import type { SimSite } from './site';

export const SIM_URL_PATTERNS = ['https://www.perplexity.ai/**', 'https://perplexity.ai/**'];

export interface RouteSimOptions {
  /**
   * Chromium resolves perplexity.ai to a sim server of this same site (server.ts `startSimServer({ site })`, its
   * `chromiumArgs` given at launch): streamed answers (the ask stream) go through to it over the network, so the page
   * reads each frame as it is sent, its abort closes the connection and cookies go as to the live site. Without it a
   * stream is answered whole, when it has ended (a route can only fulfil a body whole).
   */
  streamsThroughNetwork?: boolean;
}

export async function routeSim(context: BrowserContext, site: SimSite, options: RouteSimOptions = {}): Promise<void> {
  const handler = async (route: Route): Promise<void> => {
    const req = route.request();
    try {
      const res = await site.handle({ method: req.method(), url: req.url(), body: req.postData() ?? undefined, headers: await req.allHeaders() });
      if (res.stream && options.streamsThroughNetwork) {
        // The same site answers it there (server.ts simRequestHandler), frame by frame; nothing was played here.
        await route.continue().catch(() => undefined);
        return;
      }
      let body = res.body;
      if (res.stream) {
        // A route answers whole: the stream's pieces, sent when it has ended (a cut one as far as it went).
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
