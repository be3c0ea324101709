/** Names of the runtime ports inside the extension (content script → worker, panel → worker). */
export const PAGE_PORT = 'comet-relay/page';
export const PANEL_PORT = 'comet-relay/panel';

/** Events the content script pushes to the worker. */
export interface PageReady {
  url: string;
  title: string;
  selectorSet: string | null;
}
