import { api, call } from '../../api/client';
import { useApiPages } from '../../api/queries';
import type { components } from '../../api/schema';
import { ErrorNotice, Loading } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { appendChunks, replaceChunk } from '../../lib/chunk-location';
import { ChunkItem } from './chunk-item';

export type Chunk = components['schemas']['ChunkViewDto'];

/** Chunks asked for at a time: a 250-page manual has hundreds; "load more" asks for the next ones. */
const PAGE_SIZE = 50;

/** The document's chunks page after page (the API's nextCursor), in document order, each chunk once. */
function useChunkPages(documentId: string) {
  const { query, update } = useApiPages(['knowledge-chunks', documentId], (cursor) =>
    call(api.GET('/admin/knowledge/documents/{id}/chunks', { params: { path: { id: documentId }, query: { limit: PAGE_SIZE, cursor: cursor ?? undefined } } })),
  );
  const pages = query.data?.pages ?? [];
  return {
    items: pages.reduce<Chunk[]>((items, page) => appendChunks(items, page.items), []),
    nextCursor: pages.at(-1)?.nextCursor ?? null,
    /** The first page has arrived (an empty document is then "no chunks", not "loading"). */
    started: query.data !== undefined,
    loading: query.isFetching,
    // Hidden while asking again, as a retry clears it until its answer.
    error: query.isFetching ? null : query.error,
    loadMore: () => void query.fetchNextPage(),
    retry: () => void (query.data ? query.fetchNextPage() : query.refetch()),
    /** An edit's answer is the chunk as stored now: it replaces the one shown. */
    update: (chunk: Chunk) => update((page) => ({ ...page, items: replaceChunk(page.items, chunk) })),
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
