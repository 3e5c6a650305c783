import { api, call } from '../api/client';
import { Pager } from '../components/pager';
import { Async } from '../components/states';
import { useI18n } from '../i18n/i18n';
import { codeKey } from '../i18n/messages';
import { jobProgress } from '../lib/chart-data';
import { formatCount, formatDateTime } from '../lib/format';
import { useApiQuery } from '../api/queries';
import { choiceOf } from '../lib/choice';
import { useUrlState } from '../lib/url-state';
import { TableHead } from '../components/table-head';

const STATUSES = ['', 'queued', 'running', 'succeeded', 'failed'] as const;

/** Job runs, newest first, with progress and errors; refreshes on demand. */
export function JobsPage() {
  const { t, language } = useI18n();
  const [list, setList] = useUrlState<{ status: (typeof STATUSES)[number]; cursor: readonly string[] }>({ status: '', cursor: [] }, { status: STATUSES });
  const { status, cursor: cursors } = list;
  const cursor = cursors.at(-1);
  const state = useApiQuery(['jobs', status, cursor], () =>
    call(api.GET('/admin/jobs', { params: { query: { limit: 25, cursor, status: status || undefined } } })),
  );
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.jobs')}</h1>
      <div className="filters">
        <label>
          {t('jobs.status')}
          <select value={status} onChange={(event) => setList({ status: choiceOf(STATUSES, event.target.value, ''), cursor: [] })}>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value ? <JobStatusLabel status={value} /> : t('filter.all')}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void state.refetch()}>
          {t('action.refresh')}
        </button>
      </div>
      <Async state={state} isEmpty={(data) => data.items.length === 0} empty={t('jobs.none')}>
        {(data) => (
          <>
            <table>
              <TableHead columns={[t('jobs.name'), t('jobs.status'), t('jobs.progress'), t('jobs.created'), t('jobs.finished'), t('jobs.error')]} />
              <tbody>
                {data.items.map((run) => {
                  const total = run.total;
                  // A succeeded run is complete even when items vanished after the count (docs/FOUNDATION.md "Jobs").
                  const progress = run.status === 'succeeded' && total !== null ? 1 : jobProgress(run.processed, total);
                  return (
                    <tr key={run.id}>
                      <td>
                        <code>{run.name}</code>
                      </td>
                      <td>
                        <JobStatus status={run.status} />
                      </td>
                      <td>
                        {/* No total known: an indeterminate bar while it works, none once it is done. */}
                        {progress !== null ? (
                          <progress max={1} value={progress} aria-label={t('jobs.progressOf', { name: run.name })} />
                        ) : (
                          (run.status === 'running' || run.status === 'queued') && <progress aria-label={t('jobs.progressOf', { name: run.name })} />
                        )}{' '}
                        {formatCount(run.processed, language)}
                        {total !== null && ` / ${formatCount(total, language)}`}
                        {run.failed > 0 && <span className="error-message"> {t('jobs.failedItems', { count: run.failed })}</span>}
                      </td>
                      <td>{formatDateTime(run.createdAt)}</td>
                      <td>{formatDateTime(run.finishedAt)}</td>
                      <td className="error-message">{run.error ?? ''}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <Pager cursors={cursors} nextCursor={data.nextCursor} onChange={(next) => setList({ status, cursor: next })} />
          </>
        )}
      </Async>
    </section>
  );
}

function JobStatusLabel({ status }: { status: string }) {
  const { t } = useI18n();
  const key = codeKey('jobStatus', status);
  return <>{key ? t(key) : status}</>;
}

export function JobStatus({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status}`}>
      <JobStatusLabel status={status} />
    </span>
  );
}
