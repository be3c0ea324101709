import { extractVisibleText } from './visible-text';

/**
 * The methods the content script answers, by name. Each gets its parsed params (the worker
 * validated them) and a context with an abort signal and a progress callback.
 */
export interface HandlerContext {
  signal: AbortSignal;
  progress(message: string): void;
}

export type PageHandlers = Record<string, (params: never, context: HandlerContext) => Promise<unknown>>;

export function pageHandlers(_win: Window): PageHandlers {
  return {
    'page.content': async ({ maxLength }: { maxLength: number }) => extractVisibleText(maxLength),
  };
}

export function selectorSetName(_win: Window): string | null {
  return null;
}
