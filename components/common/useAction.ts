import { useCallback, useState } from 'preact/hooks';

/**
 * Runs one panel request at a time for a control: `busy` while it runs, and the error it ended
 * with (shown next to the control) until the next attempt.
 */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run(action: () => Promise<unknown>): Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useCallback(async (action: () => Promise<unknown>) => {
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
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
