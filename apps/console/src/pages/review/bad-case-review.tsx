import { useState } from 'react';
import { api, call } from '../../api/client';
import { useApiMutation, useApiQuery } from '../../api/queries';
import type { components } from '../../api/schema';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';

export type BadCase = components['schemas']['BadCaseDto'];

/** The choices of the review form, loaded when the form opens (not with the queue: the page stays within 3 calls). */
async function loadChoices() {
  const [rules, documents] = await Promise.all([
    call(api.GET('/admin/intent-rules', { params: { query: { limit: 100 } } })),
    call(api.GET('/admin/knowledge/documents', { params: { query: { limit: 100 } } })),
  ]);
  return { intents: [...new Set(rules.items.map((rule) => rule.intent))].sort(), documents: documents.items };
}

/** Set the correct intent or document, a note, resolve or reopen, and accept the question as an example. */
export function BadCaseReview({ item }: { item: BadCase }) {
  const { t } = useI18n();
  const choices = useApiQuery(['review-choices'], loadChoices);
  const [intent, setIntent] = useState(item.review?.intent ?? item.label?.intent ?? '');
  const [documentId, setDocumentId] = useState(item.review?.document?.id ?? '');
  const [note, setNote] = useState(item.review?.note ?? '');
  // One write at a time, its error or its outcome shown below the form; the queue is asked again after it (an
  // accepted example changes the rules and their training too).
  const action = useApiMutation({
    send: (request: { write: () => Promise<unknown>; done: string }) => request.write().then(() => request.done),
    invalidates: ['bad-cases', 'intent-rules', 'intent-status'],
  });
  const run = (write: () => Promise<unknown>, done: string) => action.mutate({ write, done });
  const error = action.error;
  const message = action.isSuccess ? action.data : null;
  const review = (status?: 'OPEN' | 'RESOLVED') =>
    run(
      () =>
        call(
          api.PUT('/admin/bad-cases/{sessionId}/review', {
            params: { path: { sessionId: item.sessionId } },
            body: { intent: intent || null, documentId: documentId || null, note: note || null, ...(status ? { status } : {}) },
          }),
        ),
      status === 'RESOLVED' ? t('review.resolvedDone') : status === 'OPEN' ? t('review.reopenedDone') : t('review.savedDone'),
    );
  const accept = () =>
    run(
      () => call(api.POST('/admin/bad-cases/{sessionId}/accept-example', { params: { path: { sessionId: item.sessionId } }, body: { intent } })),
      t('review.acceptedDone', { intent }),
    );
  const resolved = item.review?.status === 'RESOLVED';
  return (
    <form className="editor" onSubmit={(event) => event.preventDefault()} aria-label={t('review.review')}>
      {choices.error && <ErrorNotice error={choices.error} onRetry={() => void choices.refetch()} />}
      <div className="row">
        <label>
          {t('review.correctIntent')}
          <input type="text" list={`intents-${item.sessionId}`} value={intent} onChange={(event) => setIntent(event.target.value)} />
          <datalist id={`intents-${item.sessionId}`}>
            {choices.data?.intents.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
        <label>
          {t('review.correctDocument')}
          <select value={documentId} onChange={(event) => setDocumentId(event.target.value)}>
            <option value="">{t('review.noDocument')}</option>
            {item.review?.document && !choices.data?.documents.some((doc) => doc.id === item.review?.document?.id) && (
              <option value={item.review.document.id}>{item.review.document.title}</option>
            )}
            {choices.data?.documents.map((doc) => (
              <option key={doc.id} value={doc.id}>
                {doc.title} ({doc.filePath})
              </option>
            ))}
          </select>
        </label>
      </div>
      <label>
        {t('review.note')}
        <textarea rows={2} value={note} onChange={(event) => setNote(event.target.value)} />
      </label>
      {error && <ErrorNotice error={error} />}
      {message && <p role="status">{message}</p>}
      <div className="row">
        <button type="button" onClick={() => review()}>
          {t('action.save')}
        </button>
        {resolved ? (
          <button type="button" onClick={() => review('OPEN')}>
            {t('review.reopen')}
          </button>
        ) : (
          <button type="button" onClick={() => review('RESOLVED')}>
            {t('review.resolve')}
          </button>
        )}
        <button type="button" onClick={() => accept()} disabled={!intent}>
          {t('review.acceptExample')}
        </button>
      </div>
    </form>
  );
}
