import { registerKit } from '../lib/page/kits';
import { threadHandlers } from '../lib/page/thread-handlers';

/** The Computer-thread methods, injected by the worker into a Perplexity tab that needs them (lib/protocol/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('threads', (host) => threadHandlers(host)));
