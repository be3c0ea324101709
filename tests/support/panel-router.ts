import type { PageHub } from '../../lib/worker/calls/pages';
import { Router, type RouterDeps } from '../../lib/worker/calls/router';
import type { TabService } from '../../lib/worker/calls/tabs';
import { PanelService } from '../../lib/worker/panel/panel-service';

/**
 * The real PanelService (approvals, the person's policy) wired into the real Router, as lib/worker/main.ts wires
 * them, over the pages and tabs a test gives. The test file mocks `wxt/browser` (storage, permissions, tabs).
 */
export function panelRouter(pages: PageHub, tabs: TabService, more: Pick<RouterDeps, 'threads'> = {}): { router: Router; panels: PanelService } {
  let router!: Router;
  const panels = new PanelService({
    router: () => router,
    tabs,
    pages,
    status: async () => ({}),
    identity: async () => ({}),
    renameProfile: async () => {},
    link: () => ({ state: 'connected', since: 0, failures: 0 }),
    restartLink: () => {},
    clients: () => [],
    packs: () => ({ added: [], readers: [], problems: [] }),
  } as never);
  // The recheck looked up at each call, so a test can spy on it.
  router = new Router({ ...more, tabs, pages, status: async () => ({}), authorize: panels.authorize, authorizeTarget: panels.authorizeTarget, recheck: (...args) => panels.recheck(...args), refuseIfDenied: (...args) => panels.refuseIfDenied(...args) });
  return { router, panels };
}
