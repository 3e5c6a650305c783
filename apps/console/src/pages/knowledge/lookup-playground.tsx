import { useState, type FormEvent } from 'react';
import { api, ApiError, asApiError, call } from '../../api/client';
import { ErrorNotice } from '../../components/states';
import { TableHead } from '../../components/table-head';
import { useI18n } from '../../i18n/i18n';
import { formatScore, truncate } from '../../lib/format';
import { href } from '../../lib/route';
import { PagesLabel, SectionLabel } from './location';

type LookupResult = Awaited<ReturnType<typeof lookup>>;
const lookup = (sessionId: string, query: string) => call(api.POST('/ai/knowledge/lookup', { body: { sessionId, query, topK: 5 } }));

/**
 * A lookup as the chat makes it, on its own retrieval session: grade, completeness, confidence and its reasons,
 * dedup, and where each result sits in its file (file name, pages, section).
 */
export function LookupPlayground() {
  const { t } = useI18n();
  // One playground session per page visit: the retrieval memory (dedup) then behaves as in a conversation.
  const [sessionId, setSessionId] = useState(() => crypto.randomUUID());
  const [query, setQuery] = useState('');
  const [result, setResult] = useState<LookupResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      setResult(await lookup(sessionId, query));
    } catch (reason) {
      setResult(null);
      setError(asApiError(reason));
    }
  };
  return (
    <article className="card">
      <h2>{t('knowledge.lookup')}</h2>
      <form className="row" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          <span className="visually-hidden">{t('knowledge.query')}</span>
          <input type="text" value={query} placeholder={t('knowledge.queryPlaceholder')} onChange={(event) => setQuery(event.target.value)} />
        </label>
        <button type="submit">{t('knowledge.search')}</button>
        <button type="button" onClick={() => setSessionId(crypto.randomUUID())} title={t('knowledge.newSessionHint')}>
          {t('knowledge.newSession')}
        </button>
      </form>
      {error && <ErrorNotice error={error} />}
      {result && (
        <div data-testid="lookup-result">
          <p>
            {t('knowledge.grade')}: <span className={`badge badge-grade-${result.relevanceLevel.toLowerCase()}`}>{result.relevanceLevel}</span>
            {result.completenessHint && <span className="badge badge-queued">{result.completenessHint}</span>} · {t('trace.confidence')}{' '}
            <strong>{formatScore(result.confidence.score)}</strong> ({result.confidence.level})
            {result.dedupReason && (
              <>
                {' '}
                · {t('trace.dedup')}: <code>{result.dedupReason}</code>
              </>
            )}
          </p>
          {result.confidence.reasons.length > 0 && <p className="muted">{result.confidence.reasons.join(' · ')}</p>}
          {result.results.length === 0 ? (
            <p className="state state-empty">{t('knowledge.noResults')}</p>
          ) : (
            <table>
              <TableHead
                columns={[
                  t('knowledge.title'),
                  t('knowledge.location'),
                  t('knowledge.source'),
                  t('knowledge.similarity'),
                  t('knowledge.relevance'),
                  t('knowledge.excerpt'),
                ]}
              />
              <tbody>
                {result.results.map((item) => (
                  <tr key={`${item.documentId}-${item.page ?? ''}-${(item.section ?? []).join('/')}-${item.source}-${item.distance}`}>
                    <td>
                      <a href={href('knowledge', item.documentId)}>{item.title}</a>
                      <br />
                      <code className="muted">{item.filePath}</code>
                    </td>
                    <td className="location">
                      {item.fileName && <code>{item.fileName}</code>} <PagesLabel page={item.page} pageEnd={item.pageEnd} />{' '}
                      <SectionLabel section={item.section} />
                    </td>
                    <td>{item.source}</td>
                    <td className="num">{formatScore(item.similarity)}</td>
                    <td className="num">{formatScore(item.relevance)}</td>
                    <td>{truncate(item.content, 140)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </article>
  );
}
