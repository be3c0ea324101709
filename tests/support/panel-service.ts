import { PanelService, type PanelServiceDeps } from '../../lib/worker/panel/panel-service';

/**
 * A PanelService on no browser: no driven tab, no page, a connected link and no clients; the router's local calls
 * go to `local`, which is what each test is about. `more` replaces any of those (the tabs and pages of a test).
 */
export function offlinePanelService(local: (method: string, params: unknown) => Promise<unknown>, more: Record<string, unknown> = {}): PanelService {
  const deps = {
    router: () => ({ local }),
    tabs: { drivenTab: async () => undefined, connectedDrivenTab: () => undefined },
    pages: { state: () => undefined, request: async () => ({}), document: () => undefined },
    status: async () => {
      throw new Error('no browser in this test');
    },
    identity: async () => ({ browser: { name: 'Chromium', version: '156' }, profile: { id: 'p', label: 'P' } }),
    renameProfile: async () => {},
    link: () => ({ state: 'connected' }),
    restartLink: () => {},
    clients: () => [],
    packs: () => ({ sets: [], readers: [], problems: [] }),
    ...more,
  } as unknown as PanelServiceDeps;
  return new PanelService(deps);
}
