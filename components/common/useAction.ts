import { useCallback, useRef, useState } from 'preact/hooks';

/**
 * While busy, the controls that start the action say so (`aria-disabled`) and stay focusable: Chromium blurs a focused
 * control that turns `disabled`, and the keyboard's focus falls to the top of the panel (review 15f, F6). `run`
 * ignores a press while busy, so nothing is sent twice.
 */
const HELD = { 'aria-disabled': 'true' } as const;

/**
 * Runs one panel request at a time for a control: `busy` while it runs, and the error it ended
 * with (shown next to the control) until the next attempt. Spread `held` on the controls that start it.
 */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  held: { 'aria-disabled'?: 'true' };
  run(action: () => Promise<unknown>): Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  // The state is read as the last render saw it; a second press before the next one is turned away here.
  const running = useRef(false);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      const err = e as { code?: string; message?: string };
      setError(err.code ? `[${err.code}] ${err.message}` : (err.message ?? String(e)));
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, error, held: busy ? HELD : {}, run };
}
