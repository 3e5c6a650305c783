import { useState, type ChangeEvent, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { useApiMutation, useApiQuery } from '../api/queries';
import { Pager } from '../components/pager';
import { Async, ErrorNotice } from '../components/states';
import { useI18n } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { href } from '../lib/route';
import { TableHead } from '../components/table-head';
import { DocumentView } from './knowledge/document-view';
import { FileUpload } from './knowledge/file-upload';
import { GradingCard } from './knowledge/grading-card';
import { LookupPlayground } from './knowledge/lookup-playground';
import { useCanWrite } from '../lib/identity';
import { useUrlState } from '../lib/url-state';

/** `#/knowledge`: the documents and the lookup playground; `#/knowledge/<id>`: one document and its chunks. */
export function KnowledgePage({ id }: { id: string | null }) {
  return id ? <DocumentView id={id} /> : <KnowledgeList />;
}

/** Documents (list, upload files, one or a bulk file, delete), a lookup playground with grades and confidence, and the grade's calibration. */
function KnowledgeList() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const [list, setList] = useUrlState<{ cursor: readonly string[] }>({ cursor: [] });
  const cursors = list.cursor;
  const cursor = cursors.at(-1);
  const documents = useApiQuery(['knowledge-documents', cursor], () =>
    call(api.GET('/admin/knowledge/documents', { params: { query: { limit: 25, cursor } } })),
  );
  const deletion = useApiMutation({
    send: (id: string) => call(api.DELETE('/admin/knowledge/documents/{id}', { params: { path: { id } } })),
    invalidates: ['knowledge-documents'],
  });
  const remove = (id: string, title: string) => {
    if (!window.confirm(t('knowledge.confirmDelete', { title }))) return;
    deletion.mutate(id);
  };
  const actionError = deletion.error;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.knowledge')}</h1>
      <LookupPlayground />
      <GradingCard />
      <article className="card">
        <h2>{t('knowledge.documents')}</h2>
        {canWrite && (
          <>
            <FileUpload />
            <div className="grid-2">
              <UploadOne />
              <UploadBulk />
            </div>
          </>
        )}
        {actionError && <ErrorNotice error={actionError} />}
        <Async state={documents} isEmpty={(data) => data.items.length === 0} empty={t('knowledge.none')}>
          {(data) => (
            <>
              <table>
                <TableHead
                  columns={[
                    t('knowledge.title'),
                    t('knowledge.filePath'),
                    t('knowledge.domain'),
                    t('knowledge.chunks'),
                    t('knowledge.updated'),
                    ...(canWrite ? [{ hidden: t('action.delete') }] : []),
                  ]}
                />
                <tbody>
                  {data.items.map((doc) => (
                    <tr key={doc.id}>
                      <td>
                        <a href={href('knowledge', doc.id)}>{doc.title}</a>
                      </td>
                      <td>
                        <code>{doc.filePath}</code>
                      </td>
                      <td>{doc.domain}</td>
                      <td className="num">{doc.chunkCount}</td>
                      <td>{formatDateTime(doc.updatedAt)}</td>
                      {canWrite && (
                        <td>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => remove(doc.id, doc.title)}
                            aria-label={t('knowledge.deleteNamed', { title: doc.title })}
                          >
                            {t('action.delete')}
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ cursor: next })} />
            </>
          )}
        </Async>
      </article>
    </section>
  );
}

type DocumentBody = { domain: string; filePath: string; title: string; content: string };

function UploadOne() {
  const { t } = useI18n();
  const [draft, setDraft] = useState<DocumentBody>({ domain: '', filePath: '', title: '', content: '' });
  const upload = useApiMutation({
    send: (body: DocumentBody) => call(api.POST('/admin/knowledge/documents', { body })),
    invalidates: ['knowledge-documents'],
  });
  const error = upload.error;
  const done = upload.data ? t('knowledge.uploaded', { status: upload.data.status, chunks: upload.data.document.chunkCount }) : null;
  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    const content = await file.text();
    setDraft((current) => ({ ...current, content, filePath: current.filePath || file.name, title: current.title || file.name.replace(/\.[^.]+$/, '') }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    upload.mutate(draft);
  };
  return (
    <form className="editor" onSubmit={submit} aria-label={t('knowledge.uploadOne')}>
      <h3>{t('knowledge.uploadOne')}</h3>
      <label>
        {t('knowledge.file')}
        <input type="file" accept=".md,.txt,.markdown,text/*" onChange={(event) => void onFile(event)} />
      </label>
      <label>
        {t('knowledge.domain')}
        <input type="text" value={draft.domain} onChange={(event) => setDraft({ ...draft, domain: event.target.value })} />
      </label>
      <label>
        {t('knowledge.filePath')}
        <input type="text" value={draft.filePath} onChange={(event) => setDraft({ ...draft, filePath: event.target.value })} />
      </label>
      <label>
        {t('knowledge.title')}
        <input type="text" value={draft.title} onChange={(event) => setDraft({ ...draft, title: event.target.value })} />
      </label>
      <label>
        {t('knowledge.content')}
        <textarea rows={4} value={draft.content} onChange={(event) => setDraft({ ...draft, content: event.target.value })} />
      </label>
      {error && <ErrorNotice error={error} />}
      {done && <p role="status">{done}</p>}
      <button type="submit">{t('knowledge.upload')}</button>
    </form>
  );
}

function UploadBulk() {
  const { t } = useI18n();
  // The file goes to the API as written: the API checks every item and answers per item.
  const upload = useApiMutation({
    send: (text: string) =>
      call(
        api.POST('/admin/knowledge/documents/bulk', {
          body: text,
          bodySerializer: (body) => (typeof body === 'string' ? body : JSON.stringify(body)),
          headers: { 'content-type': text.trimStart().startsWith('[') ? 'application/json' : 'application/x-ndjson' },
        }),
      ),
    invalidates: ['knowledge-documents'],
  });
  const error = upload.error;
  const summary = upload.data ? t('knowledge.bulkSummary', { ...upload.data.summary }) : null;
  const failures = (upload.data?.results ?? [])
    .filter((item) => item.status === 'failed')
    .map((item) => `#${item.index + 1} ${item.filePath ?? ''}: ${item.error?.message ?? ''}`);
  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    upload.mutate(await file.text());
  };
  return (
    <div className="editor">
      <h3>{t('knowledge.uploadBulk')}</h3>
      <label>
        {t('knowledge.bulkFile')} <span className="muted">{t('knowledge.bulkFormat')}</span>
        <input type="file" accept=".jsonl,.ndjson,.json,application/json" onChange={(event) => void onFile(event)} />
      </label>
      {error && <ErrorNotice error={error} />}
      {summary && <p role="status">{summary}</p>}
      {failures.length > 0 && (
        <ul className="failures">
          {failures.map((failure) => (
            <li key={failure} className="error-message">
              {failure}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
