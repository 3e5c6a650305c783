import { useState, type FormEvent } from 'react';
import { api, call } from '../../api/client';
import { useApiMutation } from '../../api/queries';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import type { Chunk } from './chunk-list';
import { PagesLabel, SectionLabel } from './location';
import { useCanWrite } from '../../lib/identity';

type ChunkEdit = { content: string } | { disabled: boolean };

/**
 * One chunk: its pages, section and text; its text edited in place (the API's 400 shown, the draft kept) and the
 * chunk disabled or enabled again. The API answers the chunk as stored, which replaces the one shown (in the cached
 * list: nothing else is asked again).
 */
export function ChunkItem({ documentId, chunk, onChanged }: { documentId: string; chunk: Chunk; onChanged(chunk: Chunk): void }) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const number = chunk.chunkIndex + 1;
  const [draft, setDraft] = useState<string | null>(null);
  const edit = useApiMutation({
    send: (body: ChunkEdit) =>
      call(
        api.PATCH('/admin/knowledge/documents/{id}/chunks/{chunkIndex}', {
          params: { path: { id: documentId, chunkIndex: String(chunk.chunkIndex) } },
          body,
        }),
      ),
    invalidates: [],
    onSuccess: (updated, body) => {
      onChanged(updated);
      if ('content' in body) setDraft(null);
    },
  });
  const busy = edit.isPending;
  const error = edit.error;
  const send = (body: ChunkEdit) => edit.mutate(body);
  const save = (event: FormEvent) => {
    event.preventDefault();
    // The text goes as typed: the API decides what is valid (docs/console.md: no validation re-implemented here).
    if (draft !== null) send({ content: draft });
  };
  const label = t('chunks.chunk', { number });
  return (
    <li className={chunk.disabled ? 'chunk chunk-disabled' : 'chunk'} aria-label={label} data-chunk-index={chunk.chunkIndex}>
      <header className="chunk-head">
        <strong>{label}</strong>
        <PagesLabel page={chunk.page} pageEnd={chunk.pageEnd} />
        <SectionLabel section={chunk.section} />
        {chunk.disabled && <span className="badge badge-failed">{t('chunks.disabled')}</span>}
        {canWrite && (
          <span className="actions">
            {draft === null && (
              <button type="button" disabled={busy} onClick={() => setDraft(chunk.content)} aria-label={t('chunks.editNamed', { number })}>
                {t('action.edit')}
              </button>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() => send({ disabled: !chunk.disabled })}
              aria-label={t(chunk.disabled ? 'chunks.enableNamed' : 'chunks.disableNamed', { number })}
            >
              {t(chunk.disabled ? 'chunks.enable' : 'chunks.disable')}
            </button>
          </span>
        )}
      </header>
      {draft === null ? (
        <p className="chunk-text">{chunk.content}</p>
      ) : (
        <form className="editor" onSubmit={save} aria-label={t('chunks.editNamed', { number })}>
          <label>
            {t('chunks.text', { number })}
            <textarea rows={Math.min(16, Math.max(4, chunk.content.split('\n').length + 1))} value={draft} onChange={(event) => setDraft(event.target.value)} />
          </label>
          <p className="muted">{t('chunks.editHint')}</p>
          <div className="actions">
            <button type="submit" disabled={busy}>
              {busy ? t('action.saving') : t('action.save')}
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setDraft(null);
                edit.reset();
              }}
            >
              {t('action.cancel')}
            </button>
          </div>
        </form>
      )}
      {error && <ErrorNotice error={error} />}
    </li>
  );
}
