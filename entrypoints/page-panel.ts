import { registerKit } from '../lib/page/kit-registry';
import { panelKit } from '../lib/page/kits/panel-kit';

/** `page.watch` (the side panel) and `page.conversations`, injected by the worker into the Perplexity tab they read (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('panel', panelKit));
