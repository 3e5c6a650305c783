import { useState } from 'react';
import { api, call } from '../api/client';
import { CodeLabel } from '../components/code-label';
import { Pager } from '../components/pager';
import { Async } from '../components/states';
import { useI18n } from '../i18n/i18n';
import { formatDateTime, formatScore } from '../lib/format';
import { href } from '../lib/route';
import { useApiQuery } from '../api/queries';
import { choiceOf } from '../lib/choice';
import { useUrlState } from '../lib/url-state';
import { BadCaseReview, type BadCase } from './review/bad-case-review';
import { CaseLibrary } from './review/case-library';
import { useCanWrite } from '../lib/identity';

const STATUSES = ['OPEN', 'RESOLVED', ''] as const;

/** The review queue (bad cases with their trace and the operator's actions) and the case library. */
export function ReviewPage() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const [list, setList] = useUrlState<{ status: (typeof STATUSES)[number]; cursor: readonly string[] }>({ status: 'OPEN', cursor: [] }, { status: STATUSES });
  const { status, cursor: cursors } = list;
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors.at(-1);
  const badCases = useApiQuery(['bad-cases', status, cursor], () =>
    call(api.GET('/admin/bad-cases', { params: { query: { limit: 20, cursor, status: status || undefined } } })),
  );
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.review')}</h1>
      <article className="card">
        <div className="toolbar">
          <h2>{t('review.badCases')}</h2>
          <label>
            {t('review.status')}
            <select
              value={status}
              onChange={(event) => {
                setList({ status: choiceOf(STATUSES, event.target.value, ''), cursor: [] });
                setOpen(null);
              }}
            >
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value ? t(value === 'OPEN' ? 'review.open' : 'review.resolved') : t('filter.all')}
                </option>
              ))}
            </select>
          </label>
        </div>
        <Async state={badCases} isEmpty={(data) => data.items.length === 0} empty={t('review.none')}>
          {(data) => (
            <>
              <ul className="cases">
                {data.items.map((item: BadCase) => (
                  <li key={item.sessionId} className="card case" data-testid="bad-case">
                    <header className="session-head">
                      <span className={`badge badge-${(item.review?.status ?? 'OPEN').toLowerCase()}`}>
                        {t(item.review?.status === 'RESOLVED' ? 'review.resolved' : 'review.open')}
                      </span>
                      <strong>{item.query}</strong>
                      <span className="muted">
                        {item.channel} · {formatDateTime(item.markedAt)}
                      </span>
                    </header>
                    <dl className="qa">
                      <dt>{t('conversations.answer')}</dt>
                      <dd>{item.answer ?? '—'}</dd>
                      {item.comment && (
                        <>
                          <dt>{t('review.comment')}</dt>
                          <dd>{item.comment}</dd>
                        </>
                      )}
                      <dt>{t('review.routing')}</dt>
                      <dd>
                        {item.intent ?? t('intents.noIntent')}
                        {item.routeSummary && (
                          <span className="muted">
                            {' '}
                            · {item.routeSummary.decisionReason ? <CodeLabel kind="reason" code={item.routeSummary.decisionReason} /> : '—'} ·{' '}
                            {formatScore(item.routeSummary.finalConfidence)}
                            {item.routeSummary.llmJudgeTriggered && ` · ${t('trace.judge')}`}
                          </span>
                        )}
                      </dd>
                      <dt>{t('review.attribution')}</dt>
                      <dd>
                        <span className="badge badge-queued">
                          <CodeLabel kind="layer" code={item.attribution.layer} />
                        </span>{' '}
                        <code>{item.attribution.reason}</code>
                      </dd>
                      {item.selfEvaluation && (
                        <>
                          <dt>{t('trace.selfEvaluation')}</dt>
                          <dd>
                            {item.selfEvaluation.confidence} <span className="muted">{item.selfEvaluation.reasoning}</span>
                          </dd>
                        </>
                      )}
                    </dl>
                    <p>
                      <a href={href('conversations', item.conversationId)}>{t('review.openTrace')}</a>
                      {canWrite && (
                        <>
                          {' · '}
                          <button
                            type="button"
                            className="link"
                            onClick={() => setOpen(open === item.sessionId ? null : item.sessionId)}
                            aria-expanded={open === item.sessionId}
                          >
                            {t('review.review')}
                          </button>
                        </>
                      )}
                    </p>
                    {canWrite && open === item.sessionId && <BadCaseReview item={item} />}
                  </li>
                ))}
              </ul>
              <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ status, cursor: next })} />
            </>
          )}
        </Async>
      </article>
      <CaseLibrary />
    </section>
  );
}
