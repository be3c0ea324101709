import { registerKit } from '../lib/page/kits';
import { panelKit } from '../lib/page/panel-kit';

/** `page.watch` (the side panel) and `page.conversations`, injected by the worker into the Perplexity tab they read (lib/protocol/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('panel', panelKit));
