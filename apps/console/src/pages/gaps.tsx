import { api, call } from '../api/client';
import { defaultWindow, WindowFilterForm, type WindowFilter } from '../components/filters';
import { CodeLabel } from '../components/code-label';
import { SessionLink } from '../components/session-link';
import { Async } from '../components/states';
import { useI18n } from '../i18n/i18n';
import { downloadText, toCsv } from '../lib/csv';
import { formatDateTime } from '../lib/format';
import { useUrlState } from '../lib/url-state';
import { useApiQuery } from '../api/queries';
import { TableHead } from '../components/table-head';

const GAP_LIMIT = 200;

/** Uncovered questions grouped as GET /admin/coverage/gaps groups them; CSV export of what is shown. */
export function GapsPage() {
  const { t } = useI18n();
  const [filter, setFilter] = useUrlState<WindowFilter>(defaultWindow);
  const state = useApiQuery(['coverage-gaps', filter], () =>
    call(api.GET('/admin/coverage/gaps', { params: { query: { from: filter.from, to: filter.to, channel: filter.channel || undefined, limit: GAP_LIMIT } } })),
  );
  const exportCsv = () => {
    if (!state.data) return;
    const csv = toCsv(
      ['question', 'normalized', 'count', 'layer', 'reasons', 'last_seen_at', 'sample_sessions'],
      state.data.items.map((gap) => [
        gap.sampleQuery,
        gap.normalizedText,
        gap.count,
        gap.layer,
        gap.reasonCodes.join(' '),
        gap.lastSeenAt,
        gap.sampleSessionIds.join(' '),
      ]),
    );
    downloadText(`knowledge-gaps-${filter.from}-${filter.to}.csv`, csv);
  };
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.gaps')}</h1>
      <WindowFilterForm key={JSON.stringify(filter)} value={filter} onApply={setFilter} />
      <Async state={state} isEmpty={(data) => data.items.length === 0} empty={t('gaps.none')}>
        {(data) => (
          <>
            <div className="toolbar">
              <span>{t('gaps.groups', { count: data.items.length })}</span>
              <button type="button" onClick={exportCsv}>
                {t('gaps.exportCsv')}
              </button>
            </div>
            <table>
              <TableHead columns={[t('gaps.question'), t('gaps.count'), t('gaps.layer'), t('gaps.reasons'), t('gaps.lastSeen'), t('gaps.samples')]} />
              <tbody>
                {data.items.map((gap) => (
                  <tr key={gap.normalizedText}>
                    <td>{gap.sampleQuery ?? gap.normalizedText}</td>
                    <td className="num">{gap.count}</td>
                    <td>{gap.layer ? <CodeLabel kind="layer" code={gap.layer} /> : '—'}</td>
                    <td>{gap.reasonCodes.join(', ')}</td>
                    <td>{formatDateTime(gap.lastSeenAt)}</td>
                    <td>
                      {gap.sampleSessionIds.map((id) => (
                        <SessionLink key={id} sessionId={id} />
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Async>
    </section>
  );
}
