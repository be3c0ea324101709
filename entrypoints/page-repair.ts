import { registerKit } from '../lib/page/kit-registry';
import { repairKit } from '../lib/page/kits/repair-kit';

/** `page.repair`, `page.repairState`, `page.repairUndo`: injected by the worker into a tab whose reader missed (lib/protocol/page/page-kits.ts). */
export default defineUnlistedScript(() => registerKit('repair', repairKit));
