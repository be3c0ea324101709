/**
 * A `wxt/browser` stand-in for the worker's panel service and router in unit tests: extension storage (`stored`, read
 * by key), the all-sites grant (`granted`, off unless given) and the browser's tabs. A test file hoists its state and
 * mocks with it: `vi.mock('wxt/browser', async () => (await import('../support/fake-wxt-browser')).fakeWxtBrowser(state))`.
 */
export interface FakeTab {
  id: number;
  windowId: number;
  title: string;
  url: string;
  active: boolean;
}

export interface FakeBrowserState {
  stored: Record<string, unknown>;
  tabs?: Record<number, FakeTab>;
  granted?: { value: boolean };
}

export function fakeWxtBrowser(state: FakeBrowserState) {
  const listener = { addListener: () => {} };
  const tabs = () => state.tabs ?? {};
  return {
    browser: {
      storage: {
        local: { get: async (key: string) => ({ [key]: state.stored[key] }), set: async () => {} },
        session: { get: async () => ({}), set: async () => {} },
        onChanged: listener,
      },
      permissions: { contains: async () => state.granted?.value ?? false, onAdded: listener, onRemoved: listener },
      runtime: { getManifest: () => ({ version: '0' }) },
      tabs: {
        get: async (id: number) => {
          const t = tabs()[id];
          if (!t) throw new Error('No tab with id');
          return { ...t };
        },
        update: async (id: number) => ({ ...tabs()[id] }),
        query: async () => Object.values(tabs()),
      },
      windows: { update: async () => ({}) },
    },
  };
}
