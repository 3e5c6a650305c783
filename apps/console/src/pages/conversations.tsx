import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { ChoiceFilter, WindowFields } from '../components/filters';
import { Pager } from '../components/pager';
import { Async } from '../components/states';
import { RouteTraceTimeline } from '../components/route-trace';
import { useI18n } from '../i18n/i18n';
import { formatDateTime, formatDuration, formatScore, lastDays, truncate } from '../lib/format';
import { href } from '../lib/route';
import { useUrlState } from '../lib/url-state';
import { readFollowUp } from '../lib/route-trace';
import { useApiQuery } from '../api/queries';
import { TableHead } from '../components/table-head';

const STATUSES = ['', 'SUCCESS', 'FAILED', 'BAD_CASE', 'PENDING', 'RUNNING'] as const;

type ListFilter = {
  from: string;
  to: string;
  channel: string;
  status: (typeof STATUSES)[number];
  intent: string;
};

/** The list's state in the URL: its filters and the cursors behind the page shown. */
type ListState = ListFilter & { cursor: readonly string[] };

export function ConversationsPage({ id }: { id: string | null }) {
  return id ? <ConversationDetail id={id} /> : <ConversationList />;
}

function ConversationList() {
  const { t } = useI18n();
  const [list, setList] = useUrlState<ListState>(() => ({ ...lastDays(30), channel: '', status: '', intent: '', cursor: [] }), { status: STATUSES });
  const { cursor: cursors, ...filter } = list;
  const cursor = cursors.at(-1);
  const state = useApiQuery(['conversations', filter, cursor], () =>
    call(
      api.GET('/admin/monitoring/conversations', {
        params: {
          query: {
            from: filter.from || undefined,
            to: filter.to || undefined,
            channel: filter.channel || undefined,
            status: filter.status || undefined,
            intent: filter.intent || undefined,
            limit: 25,
            cursor,
          },
        },
      }),
    ),
  );
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.conversations')}</h1>
      {/* Keyed by the filter applied: the browser's back and forward put it back in the form. */}
      <ConversationFilterForm key={JSON.stringify(filter)} value={filter} onApply={(next) => setList({ ...next, cursor: [] })} />
      <Async state={state} isEmpty={(data) => data.items.length === 0} empty={t('conversations.none')}>
        {(data) => (
          <>
            <table>
              <TableHead
                columns={[
                  t('conversations.conversation'),
                  t('filter.channel'),
                  t('conversations.sessions'),
                  t('conversations.status'),
                  t('conversations.lowestConfidence'),
                  t('conversations.lastActivity'),
                ]}
              />
              <tbody>
                {data.items.map((conversation) => (
                  <tr key={conversation.id} className={conversation.anyBadCase ? 'row-bad' : undefined}>
                    <td>
                      <a href={href('conversations', conversation.id)}>
                        <code>{conversation.id.slice(0, 8)}</code>
                      </a>
                      {conversation.userRef && <span className="muted"> {conversation.userRef}</span>}
                    </td>
                    <td>{conversation.channel}</td>
                    <td className="num">{conversation.sessionCount}</td>
                    <td>
                      {conversation.lastStatus && <span className={`badge badge-${conversation.lastStatus.toLowerCase()}`}>{conversation.lastStatus}</span>}
                      {conversation.anyBadCase && <span className="badge badge-failed">{t('conversations.badCase')}</span>}
                    </td>
                    <td className="num">{conversation.lowestConfidence ?? '—'}</td>
                    <td>{formatDateTime(conversation.lastActivityAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ ...filter, cursor: next })} />
          </>
        )}
      </Async>
    </section>
  );
}

/** The list's filters; applied on submit, so typing does not fire a request per key. */
function ConversationFilterForm({ value, onApply }: { value: ListFilter; onApply(next: ListFilter): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ ...draft, channel: draft.channel.trim(), intent: draft.intent.trim() });
  };
  return (
    <form className="filters" onSubmit={submit}>
      <WindowFields<ListFilter> draft={draft} onChange={setDraft} />
      <ChoiceFilter label={t('conversations.status')} options={STATUSES} value={draft.status} onChange={(status) => setDraft({ ...draft, status })} />
      <label>
        {t('conversations.intent')}
        <input type="text" value={draft.intent} onChange={(event) => setDraft({ ...draft, intent: event.target.value })} />
      </label>
      <button type="submit">{t('action.apply')}</button>
    </form>
  );
}

function ConversationDetail({ id }: { id: string }) {
  const { t } = useI18n();
  const state = useApiQuery(['conversation', id], () => call(api.GET('/admin/monitoring/conversations/{id}', { params: { path: { id } } })));
  return (
    <section aria-labelledby="page-title">
      <p>
        <a href={href('conversations')}>← {t('conversations.back')}</a>
      </p>
      <h1 id="page-title">
        {t('conversations.conversation')} <code>{id.slice(0, 8)}</code>
      </h1>
      <Async state={state}>
        {(conversation) => (
          <>
            <p className="muted">
              {conversation.channel} · {conversation.userRef ?? '—'} · {formatDateTime(conversation.createdAt)}
            </p>
            {conversation.sessions.map((session) => (
              <article className="card session" key={session.id} aria-label={t('conversations.session')}>
                <header className="session-head">
                  <span className={`badge badge-${session.status.toLowerCase()}`}>{session.status}</span>
                  <strong>{session.intent ?? t('conversations.noIntent')}</strong>
                  <span className="muted">
                    {formatDateTime(session.createdAt)} · {formatDuration(session.latencyMs)}
                  </span>
                </header>
                <dl className="qa">
                  <dt>{t('conversations.question')}</dt>
                  <dd>{session.query}</dd>
                  <FollowUp trace={session.routeTrace} />
                  <dt>{t('conversations.answer')}</dt>
                  <dd>{session.answer ?? '—'}</dd>
                </dl>
                <h2>{t('trace.route')}</h2>
                <RouteTraceTimeline trace={session.routeTrace} />
                <h2>{t('trace.retrieval')}</h2>
                {session.toolInvocations.length === 0 ? (
                  <p className="muted">{t('trace.noRetrieval')}</p>
                ) : (
                  <table>
                    <TableHead columns={[t('trace.tool'), t('trace.grade'), t('trace.dedup'), t('trace.result'), t('trace.duration')]} />
                    <tbody>
                      {session.toolInvocations.map((call) => (
                        <tr key={call.id}>
                          <td>
                            <code>{call.toolName}</code>
                            {call.status === 'FAILED' && <span className="badge badge-failed">FAILED</span>}
                          </td>
                          <td>{call.relevanceLevel ?? '—'}</td>
                          <td>{call.dedupReason ?? '—'}</td>
                          <td>{truncate(call.resultSummary ?? call.error ?? '', 160)}</td>
                          <td>{formatDuration(call.durationMs)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
                {session.references.length > 0 && (
                  <ul className="references">
                    {(session.references as { filePath?: string; title?: string; score?: number }[]).map((reference, index) => (
                      <li key={index}>
                        {reference.title ?? reference.filePath}{' '}
                        {reference.score !== undefined && <span className="muted">({formatScore(reference.score)})</span>}
                      </li>
                    ))}
                  </ul>
                )}
                <div className="grid-2">
                  <div>
                    <h2>{t('trace.selfEvaluation')}</h2>
                    {session.selfEvaluation ? (
                      <SelfEvaluation value={session.selfEvaluation as SelfEvaluationView} />
                    ) : (
                      <p className="muted">{t('trace.notEvaluated')}</p>
                    )}
                  </div>
                  <div>
                    <h2>{t('trace.coverage')}</h2>
                    {session.coverage ? (
                      <p>
                        <span className={`badge badge-${session.coverage.verdict}`}>{session.coverage.verdict}</span> {session.coverage.reasonCode}{' '}
                        <span className="muted">
                          ({session.coverage.evaluatorVersion}, {t('trace.references', { count: session.coverage.referenceCount })},{' '}
                          {formatScore(session.coverage.topScore)})
                        </span>
                      </p>
                    ) : (
                      <p className="muted">{t('trace.notEvaluated')}</p>
                    )}
                    {session.feedback && (
                      <p>
                        {t('trace.feedback')}: <strong>{session.feedback.value}</strong> {session.feedback.comment}
                      </p>
                    )}
                  </div>
                </div>
              </article>
            ))}
          </>
        )}
      </Async>
    </section>
  );
}

/** The stored self-evaluation (libs/sessions SelfEvaluation); the monitoring API serves it as an untyped object. */
interface SelfEvaluationView {
  confidence?: number;
  source?: string;
  reasoning?: string;
}

function SelfEvaluation({ value }: { value: SelfEvaluationView }) {
  return (
    <p>
      <strong>{value.confidence ?? '—'}</strong> <span className="muted">({value.source ?? ''})</span> {value.reasoning ?? ''}
    </p>
  );
}

/** The standalone question a follow-up was resolved to, and how (docs/chat-clients.md "Conversations that remember"). */
function FollowUp({ trace }: { trace: unknown }) {
  const { t } = useI18n();
  const followUp = readFollowUp(trace);
  if (!followUp) return null;
  return (
    <>
      <dt>{t('conversations.resolvedAs')}</dt>
      <dd>
        {followUp.query} <code className="muted">{followUp.by}</code>
      </dd>
    </>
  );
}
