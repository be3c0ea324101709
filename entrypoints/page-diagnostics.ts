import { diagnosticsKit } from '../lib/page/kits/diagnostics-kit';
import { registerKit } from '../lib/page/kit-registry';

/** `doctor --page` and `capture`, injected by the worker into the Perplexity tab they look at (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('diagnostics', diagnosticsKit));
