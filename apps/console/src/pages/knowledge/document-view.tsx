import { useState } from 'react';
import { api, ApiError, asApiError, call, downloadFile } from '../../api/client';
import type { components } from '../../api/schema';
import { Async, ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { offerDownload } from '../../lib/download';
import { formatDateTime } from '../../lib/format';
import { href } from '../../lib/route';
import { useApiQuery } from '../../api/queries';
import { ChunkList } from './chunk-list';

type DocumentDetail = components['schemas']['DocumentDetailDto'];

/**
 * One document (docs/console.md "Knowledge"): what it is and where it came from, its original file to download
 * when it was uploaded as one, and its chunks to review and correct. Two API calls: the document, its first chunks.
 */
export function DocumentView({ id }: { id: string }) {
  const { t } = useI18n();
  const document = useApiQuery(['knowledge-document', id], () => call(api.GET('/admin/knowledge/documents/{id}', { params: { path: { id } } })));
  return (
    <section aria-labelledby="page-title">
      <p>
        <a href={href('knowledge')}>← {t('document.back')}</a>
      </p>
      <h1 id="page-title">{document.data?.title ?? t('document.title')}</h1>
      <Async state={document}>{(doc) => <DocumentDetails doc={doc} />}</Async>
      <ChunkList documentId={id} total={document.data?.chunkCount ?? null} />
    </section>
  );
}

function DocumentDetails({ doc }: { doc: DocumentDetail }) {
  const { t } = useI18n();
  return (
    <article className="card" aria-labelledby="document-details">
      <h2 id="document-details">{t('document.details')}</h2>
      <dl className="qa" data-testid="document-details">
        <dt>{t('knowledge.filePath')}</dt>
        <dd>
          <code>{doc.filePath}</code>
        </dd>
        <dt>{t('document.mediaType')}</dt>
        <dd>{doc.mediaType ? <code>{doc.mediaType}</code> : '—'}</dd>
        <dt>{t('document.pages')}</dt>
        <dd>{doc.pageCount ?? '—'}</dd>
        <dt>{t('knowledge.domain')}</dt>
        <dd>{doc.domain}</dd>
        <dt>{t('document.keywords')}</dt>
        <dd>{doc.keywords.length > 0 ? doc.keywords.join(', ') : '—'}</dd>
        <dt>{t('knowledge.chunks')}</dt>
        <dd>{doc.chunkCount}</dd>
        <dt>{t('document.version')}</dt>
        <dd>{doc.version}</dd>
        <dt>{t('knowledge.updated')}</dt>
        <dd>{formatDateTime(doc.updatedAt)}</dd>
        <dt>{t('document.original')}</dt>
        <dd>{doc.fileId ? <DownloadOriginal documentId={doc.id} /> : <span className="muted">{t('document.noFile')}</span>}</dd>
      </dl>
    </article>
  );
}

/** The original file: fetched with the operator key (a header, so not a plain link) and offered under its own name. */
function DownloadOriginal({ documentId }: { documentId: string }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    try {
      const { blob, fileName } = await downloadFile(documentId);
      offerDownload(fileName, blob);
    } catch (reason) {
      setError(asApiError(reason));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="link" disabled={busy} onClick={() => void download()}>
        {t('document.download')}
      </button>
      {error && <ErrorNotice error={error} />}
    </>
  );
}
