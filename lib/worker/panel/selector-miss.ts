import type { PageProblem } from '../../protocol/panel';
import type { CallEvent } from '../calls/router';

/**
 * The last call that failed because the page was not understood (`[SELECTOR_MISS] probe: …`), for
 * the side panel, which shows it until the same method works again or the selector sets change.
 */
const MISS = '[SELECTOR_MISS] ';

export class SelectorMissLog {
  private last: PageProblem | null = null;

  /** True when what the panel shows changed. */
  onCall(event: CallEvent): boolean {
    if (event.phase !== 'end') return false;
    const { method } = event.request;
    if (!event.ok && event.error?.startsWith(MISS)) {
      const message = event.error.slice(MISS.length);
      this.last = { method, probe: /^([A-Za-z]+):/.exec(message)?.[1] ?? '', message, at: event.at };
      return true;
    }
    if (event.ok && this.last?.method === method) {
      this.last = null;
      return true;
    }
    return false;
  }

  clear(): void {
    this.last = null;
  }

  current(): PageProblem | null {
    return this.last;
  }
}
