import { registerKit } from '../lib/page/kits';
import { sourcesKit } from '../lib/page/source-reader';

/** `page.sources` (comet_get_sources), injected by the worker into the Perplexity tab it reads (lib/protocol/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('sources', sourcesKit));
