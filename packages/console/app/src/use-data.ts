import { useCallback, useEffect, useState } from "preact/hooks";

/** Loads `load()` now and every `refreshMs` (0: once); `reload` loads again at once. */
export function useData<T>(load: () => Promise<T>, refreshMs = 0, deps: unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(() => {
    load().then(
      (value) => {
        setData(value);
        setError(undefined);
      },
      (failure: Error) => setError(failure.message),
    );
  }, deps);
  useEffect(() => {
    reload();
    if (refreshMs <= 0) return undefined;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);
  return { data, error, reload };
}
