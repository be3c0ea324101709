import { registerKit } from '../lib/page/kit-registry';
import { sourcesKit } from '../lib/page/kits/source-reader';

/** `page.sources` (comet_get_sources), injected by the worker into the Perplexity tab it reads (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('sources', sourcesKit));
