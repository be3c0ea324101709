import { PERPLEXITY_MATCHES } from '../lib/protocol/urls';
import { ASK_STREAM_ENDPOINTS } from '../lib/selectors/stream/endpoints';
import { installTap } from '../lib/page/stream/tap';

/**
 * The passive tap on the page's own ask stream (issue 30; lib/page/stream/tap.ts): the page's main
 * world, before any of its scripts, on the same pages as the page script. Where the browser blocks
 * extensions on perplexity.ai (Comet, its policy) this is blocked with the page script, and the
 * same report says so.
 */
export default defineContentScript({
  matches: PERPLEXITY_MATCHES,
  runAt: 'document_start',
  world: 'MAIN',
  main() {
    installTap(window, ASK_STREAM_ENDPOINTS);
  },
});
