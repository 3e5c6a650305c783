import type { ReactNode } from 'react';
import type { ApiError } from '../api/client';
import { useI18n } from '../i18n/i18n';

export function Loading() {
  const { t } = useI18n();
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      {t('state.loading')}
    </p>
  );
}

export function Empty({ children }: { children?: ReactNode }) {
  const { t } = useI18n();
  return <p className="state state-empty">{children ?? t('state.empty')}</p>;
}

/** An API error as the API said it: its message and the request id to quote to support. */
export function ErrorNotice({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  const { t } = useI18n();
  return (
    <div className="state state-error" role="alert">
      <strong>{error.status === 0 ? t('state.networkError') : t('state.error', { status: error.status })}</strong>{' '}
      <span className="error-message">{error.message}</span>
      {error.requestId && (
        <div className="request-id">
          {t('state.requestId')}: <code>{error.requestId}</code>
        </div>
      )}
      {onRetry && (
        <button type="button" onClick={onRetry}>
          {t('action.retry')}
        </button>
      )}
    </div>
  );
}

/** What Async shows of a read: its answer, or its error with a retry (a TanStack Query result has both). */
export interface ReadState<T> {
  data: T | undefined;
  error: ApiError | null;
  isFetching: boolean;
  refetch(): Promise<unknown>;
}

/** Loading, error and empty states around a result: every page shows all three the same way. */
export function Async<T>({
  state,
  isEmpty,
  empty,
  children,
}: {
  state: ReadState<T>;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  // An error is hidden while the read is asked again (a retry): the answer decides what is shown next.
  if (state.error && !state.isFetching) return <ErrorNotice error={state.error} onRetry={() => void state.refetch()} />;
  if (state.data === undefined) return <Loading />;
  if (isEmpty?.(state.data)) return <Empty>{empty}</Empty>;
  return <>{children(state.data)}</>;
}
