/**
 * `wxt/browser` with every extension API a no-op answering `{}`, for unit tests of worker services whose calls are
 * the point, not the browser's: `vi.mock('wxt/browser', () => import('../support/noop-browser'))`.
 */
const noop = (): unknown =>
  new Proxy(() => Promise.resolve({}), {
    get: (_target, key) => (key === 'then' ? undefined : noop()),
    apply: () => Promise.resolve({}),
  });

export const browser = noop();
