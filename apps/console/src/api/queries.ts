import {
  keepPreviousData,
  QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryKey,
  type UseMutationResult,
  type UseQueryOptions,
  type UseQueryResult,
} from '@tanstack/react-query';
import { useCallback } from 'react';
import { ApiError, asApiError } from './client';
import { useCaller } from '../lib/identity';

// Server state goes through TanStack Query (docs/console.md "Server state"): reads are queries cached under a key,
// writes are mutations that invalidate the keys they change, so a list is asked again after a write without a
// hand-written reload.

declare module '@tanstack/react-query' {
  interface Register {
    /** Every query and mutation fails with an ApiError (a network failure or a bug becomes status 0). */
    defaultError: ApiError;
  }
}

/**
 * The console's one client. As the hand-written hook it replaced behaved: no retry (the API's error is shown at once,
 * and a 401/403 signs out on the first answer), no refetch on focus or reconnect; a page mounted again asks again
 * (nothing is fresh for longer than its answer, staleTime 0) while it shows what it had.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false, staleTime: 0 },
      mutations: { retry: false },
    },
  });
}

/** What the console reads, the first part of every query key after the signed-in key's scope. */
export type Resource =
  | 'overview'
  | 'coverage-gaps'
  | 'conversations'
  | 'conversation'
  | 'jobs'
  | 'bad-cases'
  | 'review-choices'
  | 'case-library'
  | 'intent-rules'
  | 'intent-status'
  | 'intent-config'
  | 'knowledge-documents'
  | 'knowledge-document'
  | 'knowledge-chunks'
  | 'knowledge-import'
  | 'knowledge-grading'
  | 'webhooks'
  | 'webhook-deliveries'
  | 'api-keys'
  | 'audit'
  | 'audit-settings';

/** A resource and the parameters of one read of it (filters, cursor, id). */
export type ResourceKey = readonly [Resource, ...unknown[]];

/**
 * The full query key of a read: the tenant and the signed-in key come first, so signing in with another key (or for
 * another tenant) never shows what the previous one read; the cache is also emptied on sign-out (app.tsx).
 */
export function useScopedKey(): (key: ResourceKey) => QueryKey {
  const caller = useCaller();
  const tenant = caller?.tenantId ?? '';
  const who = caller?.id ?? caller?.role ?? '';
  return useCallback((key: ResourceKey) => [tenant, who, ...key], [tenant, who]);
}

/** Rejects with an ApiError whatever the request threw. */
function asApiFailure<T>(request: Promise<T>): Promise<T> {
  return request.catch((reason: unknown) => Promise.reject(asApiError(reason)));
}

type ReadOptions<T> = Pick<UseQueryOptions<T, ApiError, T, QueryKey>, 'refetchInterval' | 'refetchIntervalInBackground' | 'enabled' | 'placeholderData'>;

/**
 * A read. While the key changes (another filter, another page) the previous answer stays on screen until the next
 * one arrives, as before; `placeholderData: undefined` opts out.
 */
export function useApiQuery<T>(key: ResourceKey, load: () => Promise<T>, options: ReadOptions<T> = {}): UseQueryResult<T, ApiError> {
  const scoped = useScopedKey();
  return useQuery<T, ApiError, T, QueryKey>({ queryKey: scoped(key), queryFn: () => asApiFailure(load()), placeholderData: keepPreviousData, ...options });
}

/** The read of who the stored key is (before anyone is signed in, so outside the scope); never kept in the cache. */
export function useUnscopedQuery<T>(name: string, load: () => Promise<T>): UseQueryResult<T, ApiError> {
  return useQuery<T, ApiError, T, QueryKey>({ queryKey: ['unscoped', name], queryFn: () => asApiFailure(load()), gcTime: 0 });
}

/** A page of a list that the API pages with `nextCursor`. */
export interface CursorPage<I> {
  items: I[];
  nextCursor: string | null;
}

/**
 * A "Load more" list: the pages asked for so far, in order. Not kept once the list leaves the screen (gcTime 0), so
 * coming back asks for the first page only, as before. `restart` asks for the first page again and drops the others.
 */
export function useApiPages<P extends CursorPage<unknown>>(key: ResourceKey, load: (cursor: string | null) => Promise<P>) {
  const scoped = useScopedKey();
  const client = useQueryClient();
  const queryKey = scoped(key);
  const query = useInfiniteQuery<P, ApiError, InfiniteData<P, string | null>, QueryKey, string | null>({
    queryKey,
    queryFn: ({ pageParam }) => asApiFailure(load(pageParam)),
    initialPageParam: null,
    getNextPageParam: (last) => last.nextCursor,
    gcTime: 0,
  });
  const restart = () => {
    client.setQueryData<InfiniteData<P, string | null>>(queryKey, (data) => data && { pages: data.pages.slice(0, 1), pageParams: data.pageParams.slice(0, 1) });
    void client.invalidateQueries({ queryKey, exact: true });
  };
  /** Replaces what is cached for this list (an edit's answer is the item as stored now). */
  const update = (change: (page: P) => P) =>
    client.setQueryData<InfiniteData<P, string | null>>(queryKey, (data) => data && { ...data, pages: data.pages.map(change) });
  return { query, restart, update };
}

/**
 * A write: `send` runs it, and on success the reads of `invalidates` (of the signed-in key) are asked again where
 * they are on screen and marked stale elsewhere; `onSuccess` runs first (e.g. to close a form). Not awaited: the
 * write is done when the API answered it, the lists follow.
 */
export function useApiMutation<V, R>(options: {
  send: (variables: V) => Promise<R>;
  invalidates: readonly Resource[];
  onSuccess?: (result: R, variables: V) => void;
}): UseMutationResult<R, ApiError, V> {
  const client = useQueryClient();
  const scoped = useScopedKey();
  return useMutation<R, ApiError, V>({
    mutationFn: (variables) => asApiFailure(options.send(variables)),
    onSuccess: (result, variables) => {
      options.onSuccess?.(result, variables);
      for (const resource of options.invalidates) void client.invalidateQueries({ queryKey: scoped([resource]) });
    },
  });
}

/** Asks again for the reads of these resources (of the signed-in key). */
export function useInvalidate(): (...resources: Resource[]) => void {
  const client = useQueryClient();
  const scoped = useScopedKey();
  return useCallback(
    (...resources: Resource[]) => {
      for (const resource of resources) void client.invalidateQueries({ queryKey: scoped([resource]) });
    },
    [client, scoped],
  );
}
