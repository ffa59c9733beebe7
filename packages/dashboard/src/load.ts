import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';
import { errorText } from './format';

/** Loads data for a page; `reload()` fetches again; `error` is what to show where the data would be. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
      },
      (failure: unknown) => {
        if (!live) return;
        // Ended sessions and 429s are shown by the app; the page says what it could not load.
        setError(failure instanceof ApiError ? failure.failure.message : errorText(failure));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, reload, setData };
}

/** Runs an action (a button), keeping its error for the page to show; returns its result or null. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async <T>(action: () => Promise<T>): Promise<T | null> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.failure.message : errorText(failure));
      return null;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}
