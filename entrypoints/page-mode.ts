import { registerKit } from '../lib/page/kit-registry';
import { modeKit } from '../lib/page/kits/mode-kit';

/** `page.mode` (comet_mode, the side panel's mode switch), injected by the worker into the Perplexity tab it reads or switches (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('mode', modeKit));
