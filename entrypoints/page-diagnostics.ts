import { diagnosticsKit } from '../lib/page/diagnostics-kit';
import { registerKit } from '../lib/page/kits';

/** `doctor --page` and `capture`, injected by the worker into the Perplexity tab they look at (lib/protocol/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('diagnostics', diagnosticsKit));
