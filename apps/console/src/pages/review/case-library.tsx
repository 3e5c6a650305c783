import { useState, type FormEvent } from 'react';
import { api, call } from '../../api/client';
import { useApiMutation, useApiQuery } from '../../api/queries';
import type { components } from '../../api/schema';
import { Pager } from '../../components/pager';
import { Async, ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { formatDateTime, truncate } from '../../lib/format';
import { ChoiceFilter } from '../../components/filters';
import { useUrlState } from '../../lib/url-state';
import { TableHead } from '../../components/table-head';
import { useCanWrite } from '../../lib/identity';

type Case = components['schemas']['CaseDto'];
const SOURCES = ['', 'AUTO', 'MANUAL'] as const;

/** Verified cases that answer chat directly: list by source, edit, retract. */
export function CaseLibrary() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  // In the URL beside the bad cases' own filter and cursors (`source`, `libraryCursor`).
  const [list, setList] = useUrlState<{ source: (typeof SOURCES)[number]; libraryCursor: readonly string[] }>(
    { source: '', libraryCursor: [] },
    { source: SOURCES },
  );
  const { source: sourceType, libraryCursor: cursors } = list;
  const [editing, setEditing] = useState<string | null>(null);
  const cursor = cursors.at(-1);
  const cases = useApiQuery(['case-library', sourceType, cursor], () =>
    call(api.GET('/admin/case-library', { params: { query: { limit: 20, cursor, sourceType: sourceType || undefined } } })),
  );
  const retraction = useApiMutation({
    send: (item: Case) => call(api.DELETE('/admin/case-library/{id}', { params: { path: { id: item.id } } })),
    invalidates: ['case-library'],
  });
  const retract = (item: Case) => {
    if (!window.confirm(t('review.confirmRetract', { query: truncate(item.query, 40) }))) return;
    retraction.mutate(item);
  };
  const error = retraction.error;
  return (
    <article className="card">
      <div className="toolbar">
        <h2>{t('review.caseLibrary')}</h2>
        <ChoiceFilter label={t('review.source')} options={SOURCES} value={sourceType} onChange={(source) => setList({ source, libraryCursor: [] })} />
      </div>
      {error && <ErrorNotice error={error} />}
      <Async state={cases} isEmpty={(data) => data.items.length === 0} empty={t('review.noCases')}>
        {(data) => (
          <>
            <table>
              <TableHead
                columns={[
                  t('conversations.question'),
                  t('conversations.answer'),
                  t('review.source'),
                  t('review.category'),
                  t('knowledge.updated'),
                  ...(canWrite ? [{ hidden: t('action.edit') }] : []),
                ]}
              />
              <tbody>
                {data.items.map((item) =>
                  canWrite && editing === item.id ? (
                    <tr key={item.id}>
                      <td colSpan={6}>
                        <CaseEditor item={item} onDone={() => setEditing(null)} />
                      </td>
                    </tr>
                  ) : (
                    <tr key={item.id}>
                      <td>{item.query}</td>
                      <td>{truncate(item.answer, 120)}</td>
                      <td>
                        <span className="badge badge-queued">{item.sourceType}</span>
                      </td>
                      <td>
                        {item.faultCategory}
                        {item.errorCode && <code> {item.errorCode}</code>}
                      </td>
                      <td>{formatDateTime(item.updatedAt)}</td>
                      {canWrite && (
                        <td>
                          <div className="actions">
                            <button type="button" onClick={() => setEditing(item.id)}>
                              {t('action.edit')}
                            </button>
                            <button type="button" className="danger" onClick={() => retract(item)}>
                              {t('review.retract')}
                            </button>
                          </div>
                        </td>
                      )}
                    </tr>
                  ),
                )}
              </tbody>
            </table>
            <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ source: sourceType, libraryCursor: next })} />
          </>
        )}
      </Async>
    </article>
  );
}

function CaseEditor({ item, onDone }: { item: Case; onDone(): void }) {
  const { t } = useI18n();
  const [query, setQuery] = useState(item.query);
  const [answer, setAnswer] = useState(item.answer);
  const [errorCode, setErrorCode] = useState(item.errorCode ?? '');
  const save = useApiMutation({
    send: (body: { query: string; answer: string; errorCode: string | null }) =>
      call(api.PATCH('/admin/case-library/{id}', { params: { path: { id: item.id } }, body })),
    invalidates: ['case-library'],
    onSuccess: onDone,
  });
  const error = save.error;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ query, answer, errorCode: errorCode.trim() ? errorCode.trim() : null });
  };
  return (
    <form className="editor" onSubmit={submit} aria-label={t('review.editCase')}>
      <label>
        {t('conversations.question')}
        <input type="text" value={query} onChange={(event) => setQuery(event.target.value)} />
      </label>
      <label>
        {t('conversations.answer')}
        <textarea rows={3} value={answer} onChange={(event) => setAnswer(event.target.value)} />
      </label>
      <label>
        {t('review.errorCode')}
        <input type="text" value={errorCode} onChange={(event) => setErrorCode(event.target.value)} />
      </label>
      {error && <ErrorNotice error={error} />}
      <div className="row">
        <button type="submit">{t('action.save')}</button>
        <button type="button" onClick={onDone}>
          {t('action.cancel')}
        </button>
      </div>
    </form>
  );
}
