import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, asApiError, call } from '../../api/client';
import type { components } from '../../api/schema';
import { ErrorNotice, Loading } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { appendChunks, replaceChunk } from '../../lib/chunk-location';
import { ChunkItem } from './chunk-item';

export type Chunk = components['schemas']['ChunkViewDto'];

/** Chunks asked for at a time: a 250-page manual has hundreds; "load more" asks for the next ones. */
const PAGE_SIZE = 50;

interface Loaded {
  items: Chunk[];
  nextCursor: string | null;
  /** The first page has arrived (an empty document is then "no chunks", not "loading"). */
  started: boolean;
}

/** The document's chunks page after page (the API's nextCursor); a stale answer (another document meanwhile) is dropped. */
function useChunkPages(documentId: string) {
  const [loaded, setLoaded] = useState<Loaded>({ items: [], nextCursor: null, started: false });
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<ApiError | null>(null);
  const latest = useRef(0);
  const fetchPage = useCallback(
    async (cursor: string | null) => {
      const ticket = ++latest.current;
      setLoading(true);
      setError(null);
      try {
        const page = await call(
          api.GET('/admin/knowledge/documents/{id}/chunks', { params: { path: { id: documentId }, query: { limit: PAGE_SIZE, cursor: cursor ?? undefined } } }),
        );
        if (ticket !== latest.current) return;
        setLoaded((current) => ({ items: cursor ? appendChunks(current.items, page.items) : page.items, nextCursor: page.nextCursor, started: true }));
      } catch (reason) {
        if (ticket === latest.current) setError(asApiError(reason));
      } finally {
        if (ticket === latest.current) setLoading(false);
      }
    },
    [documentId],
  );
  useEffect(() => {
    setLoaded({ items: [], nextCursor: null, started: false });
    void fetchPage(null);
  }, [fetchPage]);
  return {
    ...loaded,
    loading,
    error,
    loadMore: () => void fetchPage(loaded.nextCursor),
    retry: () => void fetchPage(loaded.started ? loaded.nextCursor : null),
    /** An edit's answer is the chunk as stored now: it replaces the one shown. */
    update: (chunk: Chunk) => setLoaded((current) => ({ ...current, items: replaceChunk(current.items, chunk) })),
  };
}

/** The document's chunks in order, with pages and section, each editable and disableable in place. */
export function ChunkList({ documentId, total }: { documentId: string; total: number | null }) {
  const { t } = useI18n();
  const chunks = useChunkPages(documentId);
  return (
    <article className="card" aria-labelledby="chunks-title">
      <h2 id="chunks-title">{t('chunks.title')}</h2>
      <p className="muted">{t('chunks.disabledHint')}</p>
      {chunks.started && chunks.items.length === 0 && <p className="state state-empty">{t('chunks.none')}</p>}
      {chunks.items.length > 0 && (
        <ol className="chunks" aria-labelledby="chunks-title">
          {chunks.items.map((chunk) => (
            <ChunkItem key={chunk.chunkIndex} documentId={documentId} chunk={chunk} onChanged={chunks.update} />
          ))}
        </ol>
      )}
      {chunks.loading && <Loading />}
      {chunks.error && <ErrorNotice error={chunks.error} onRetry={chunks.retry} />}
      {chunks.started && (
        <div className="pager">
          {total !== null && <span role="status">{t('chunks.shown', { shown: chunks.items.length, total })}</span>}
          {chunks.nextCursor && (
            <button type="button" disabled={chunks.loading} onClick={chunks.loadMore}>
              {t('chunks.loadMore')}
            </button>
          )}
        </div>
      )}
    </article>
  );
}
