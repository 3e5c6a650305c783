import { useEffect, useRef, useState, type DragEvent, type FormEvent } from 'react';
import { api, call, uploadFiles, type UploadStarted } from '../../api/client';
import { useApiMutation, useApiQuery, useInvalidate } from '../../api/queries';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { codeKey } from '../../i18n/messages';
import { formatBytes } from '../../lib/format';

type FileRow = UploadStarted['files'][number];
const FINISHED = new Set(['succeeded', 'failed']);
const POLL_MS = 1000;

/** What the upload accepts (the API sniffs the bytes; this only guides the file picker). */
const ACCEPT = '.pdf,.docx,.html,.htm,.md,.markdown,.txt,.csv,.xlsx';

/**
 * Drag-and-drop upload of many files (docs/console.md "Knowledge"): POST /admin/knowledge/files, then the
 * import is followed until every file has its outcome, each file's status and reason shown as it comes; the
 * documents list is asked again when it ends.
 */
export function FileUpload() {
  const { t } = useI18n();
  const [files, setFiles] = useState<File[]>([]);
  const [fields, setFields] = useState({ domain: '', keywords: '', metadata: '' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const upload = useApiMutation({
    send: (request: { files: readonly File[]; fields: Readonly<Record<string, string>> }) => uploadFiles(request.files, request.fields),
    invalidates: [],
    onSuccess: () => setFiles([]),
  });
  const importId = upload.data?.importId ?? null;
  // The import, asked every second until it ends (or fails to answer).
  const imported = useApiQuery(
    ['knowledge-import', importId],
    () => call(api.GET('/admin/knowledge/imports/{id}', { params: { path: { id: importId ?? '' } } })),
    {
      enabled: importId !== null,
      placeholderData: undefined,
      refetchInterval: (query) => (query.state.error !== null || (query.state.data && FINISHED.has(query.state.data.status)) ? false : POLL_MS),
      refetchIntervalInBackground: true,
    },
  );
  const finished = imported.data !== undefined && FINISHED.has(imported.data.status);
  const invalidate = useInvalidate();
  useEffect(() => {
    if (finished) invalidate('knowledge-documents');
  }, [finished, invalidate]);
  const error = upload.error ?? (importId !== null ? imported.error : null);
  const progress = importId !== null && imported.data ? { done: imported.data.done, total: imported.data.total, status: imported.data.status } : null;
  // Each file's outcome as the import reports it; before that, as the upload answered; a request whose every file
  // was refused names each file and its reason.
  const refused = (upload.error?.details as { files?: FileRow[] } | undefined)?.files;
  const rows: FileRow[] = (importId !== null ? imported.data?.files : undefined) ?? upload.data?.files ?? (Array.isArray(refused) ? refused : []);

  const statusLabel = (status: string) => {
    const key = codeKey('files.status', status);
    return key ? t(key) : status;
  };
  const add = (list: FileList | null) => {
    if (!list) return;
    const added = [...list];
    setFiles((current) => [...current.filter((f) => !added.some((a) => a.name === f.name)), ...added]);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate({ files, fields });
  };

  return (
    <form className="editor" onSubmit={submit} aria-label={t('files.title')}>
      <h3>{t('files.title')}</h3>
      <div
        className={dragging ? 'drop-zone drop-zone-active' : 'drop-zone'}
        data-testid="drop-zone"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>{t('files.drop')}</p>
        <button type="button" onClick={() => input.current?.click()}>
          {t('files.choose')}
        </button>
        <input ref={input} type="file" multiple accept={ACCEPT} hidden aria-label={t('files.choose')} onChange={(event) => add(event.target.files)} />
        <p className="muted">{t('files.formats')}</p>
      </div>
      {files.length > 0 && (
        <ul aria-label={t('files.selected')}>
          {files.map((file) => (
            <li key={file.name}>
              {file.name} <span className="muted">{formatBytes(file.size)}</span>{' '}
              <button
                type="button"
                className="link"
                onClick={() => setFiles(files.filter((f) => f !== file))}
                aria-label={t('files.removeNamed', { name: file.name })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <label>
        {t('knowledge.domain')} <span className="muted">{t('files.optional')}</span>
        <input type="text" value={fields.domain} onChange={(event) => setFields({ ...fields, domain: event.target.value })} />
      </label>
      <label>
        {t('files.keywords')} <span className="muted">{t('files.optional')}</span>
        <input type="text" value={fields.keywords} onChange={(event) => setFields({ ...fields, keywords: event.target.value })} />
      </label>
      <label>
        {t('files.metadata')} <span className="muted">{t('files.optional')}</span>
        <input
          type="text"
          value={fields.metadata}
          placeholder='{"product":"TP10"}'
          onChange={(event) => setFields({ ...fields, metadata: event.target.value })}
        />
      </label>
      {error && <ErrorNotice error={error} />}
      <button type="submit" disabled={files.length === 0}>
        {t('files.upload', { count: files.length })}
      </button>
      {progress && (
        <p role="status">
          <progress max={progress.total} value={progress.done} /> {t('files.progress', { done: progress.done, total: progress.total, status: progress.status })}
        </p>
      )}
      {rows.length > 0 && (
        <table data-testid="upload-files">
          <thead>
            <tr>
              <th scope="col">{t('files.file')}</th>
              <th scope="col">{t('files.type')}</th>
              <th scope="col">{t('files.status')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.fileName}>
                <td>{row.fileName}</td>
                <td>
                  <code>{row.mediaType ?? '—'}</code>
                </td>
                <td>
                  <span className={`badge badge-${row.status === 'refused' ? 'failed' : row.status}`}>{statusLabel(row.status)}</span>
                  {row.error && (
                    <span className="error-message">
                      {' '}
                      <code>{row.error.code}</code> {row.error.message}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </form>
  );
}
