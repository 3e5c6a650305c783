import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, asApiError } from '../api/client';

export interface ApiState<T> {
  data: T | undefined;
  error: ApiError | null;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change; a stale response (deps changed meanwhile) is dropped. */
export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): ApiState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  const stableLoad = useCallback(load, deps);
  useEffect(() => {
    const ticket = ++latest.current;
    setLoading(true);
    setError(null);
    stableLoad().then(
      (value) => {
        if (ticket !== latest.current) return;
        setData(value);
        setLoading(false);
      },
      (reason: unknown) => {
        if (ticket !== latest.current) return;
        setError(asApiError(reason));
        setLoading(false);
      },
    );
  }, [stableLoad, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload };
}
