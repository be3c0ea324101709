import { registerKit } from '../lib/page/kit-registry';
import { threadHandlers } from '../lib/page/threads/thread-handlers';

/** The Computer-thread methods, injected by the worker into a Perplexity tab that needs them (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('threads', (host) => threadHandlers(host)));
