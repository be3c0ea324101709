import { registerKit } from '../lib/page/kit-registry';
import { askKit } from '../lib/page/kits/ask-kit';

/** `page.ask` (comet_ask, the panel's asks), injected by the worker into the Perplexity tab it types into, before its first ask there (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('ask', askKit));
