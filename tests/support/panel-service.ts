import { PanelService, type PanelServiceDeps } from '../../lib/worker/panel/panel-service';

/**
 * A PanelService on no browser: no driven tab, no page, a connected link and no clients; the router's local calls
 * go to `local`, which is what each test is about.
 */
export function offlinePanelService(local: (method: string, params: unknown) => Promise<unknown>): PanelService {
  const deps = {
    router: () => ({ local }),
    tabs: { drivenTab: async () => undefined },
    pages: { state: () => undefined, request: async () => ({}) },
    status: async () => {
      throw new Error('no browser in this test');
    },
    identity: async () => ({ browser: { name: 'Chromium', version: '156' }, profile: { id: 'p', label: 'P' } }),
    renameProfile: async () => {},
    link: () => ({ state: 'connected' }),
    restartLink: () => {},
    clients: () => [],
    packs: () => ({ sets: [], readers: [], problems: [] }),
  } as unknown as PanelServiceDeps;
  return new PanelService(deps);
}
