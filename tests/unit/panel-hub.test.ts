import { describe, expect, it } from 'vitest';
import { PanelHub } from '../../lib/worker/panel/panels';

/** A side panel's port; `closed` makes postMessage throw as Chromium's does before the port's onDisconnect has run. */
function panelPort(name: string, delivered: string[]) {
  const port = {
    closed: false,
    onDisconnect: { addListener: () => {} },
    onMessage: { addListener: () => {} },
    postMessage: () => {
      if (port.closed) throw new Error('Attempting to use a disconnected port object');
      delivered.push(name);
    },
  };
  return port;
}

describe('the side panels’ state, pushed to each open panel', () => {
  it('a panel closing the moment a state goes out keeps it from no other panel, and throws nowhere (worker review F3)', async () => {
    const delivered: string[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (error: unknown) => unhandled.push(error);
    process.on('unhandledRejection', onUnhandled);
    try {
      const hub = new PanelHub(async () => ({}) as never, {} as never);
      const closing = panelPort('closing', delivered);
      const open = panelPort('open', delivered);
      hub.accept(closing as never);
      hub.accept(open as never);
      await new Promise((resolve) => setTimeout(resolve, 10));
      delivered.length = 0;
      closing.closed = true;
      hub.push();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(delivered).toEqual(['open']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
