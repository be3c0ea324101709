import { captureKit } from '../lib/page/capture';
import { registerKit } from '../lib/page/kits';

/** `page.capture`, injected by the worker into the Perplexity tab `comet-relay capture` reads (lib/protocol/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('capture', captureKit));
