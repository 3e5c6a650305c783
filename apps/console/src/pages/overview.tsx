import { useMemo } from 'react';
import { api, call } from '../api/client';
import { Chart, type ChartOption } from '../components/chart';
import { defaultWindow, WindowFilterForm, type WindowFilter } from '../components/filters';
import { Async } from '../components/states';
import { useI18n, type Translate } from '../i18n/i18n';
import { codeKey } from '../i18n/messages';
import { coverageSeries, histogramBars, reasonSlices, reliabilityLine } from '../lib/chart-data';
import { formatCount, formatDateTime, formatPercent } from '../lib/format';
import { useUrlState } from '../lib/url-state';
import { href } from '../lib/route';
import { JobStatus } from './jobs';
import { useApiQuery } from '../api/queries';
import { TableHead } from '../components/table-head';

type Overview = Awaited<ReturnType<typeof loadOverview>>;

function loadOverview(filter: WindowFilter) {
  return call(api.GET('/admin/console/overview', { params: { query: { from: filter.from, to: filter.to, channel: filter.channel || undefined } } }));
}

/** Coverage, decisions, confidence, feedback, gaps and jobs of the window: one API call (docs/console.md "Budgets"). */
export function OverviewPage() {
  const { t } = useI18n();
  const [filter, setFilter] = useUrlState<WindowFilter>(defaultWindow);
  const state = useApiQuery(['overview', filter], () => loadOverview(filter));
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.overview')}</h1>
      <WindowFilterForm key={JSON.stringify(filter)} value={filter} onApply={setFilter} />
      <Async state={state}>{(data) => <OverviewBody data={data} t={t} />}</Async>
    </section>
  );
}

function OverviewBody({ data, t }: { data: Overview; t: Translate }) {
  const { language } = useI18n();
  const charts = useMemo(() => overviewCharts(data, t), [data, t]);
  const { totals } = data;
  return (
    <>
      <div className="tiles">
        <Tile label={t('overview.sessions')} value={formatCount(totals.sessions, language)} />
        <Tile label={t('overview.coverageRate')} value={formatPercent(totals.coverageRate)} />
        <Tile label={t('overview.useful')} value={formatCount(totals.useful, language)} />
        <Tile label={t('overview.notUseful')} value={formatCount(totals.notUseful, language)} />
        <Tile label={t('overview.badCases')} value={formatCount(totals.badCases, language)} />
      </div>
      <div className="grid-2">
        <article className="card">
          <h2>{t('overview.coverageByDay')}</h2>
          <Chart option={charts.coverage} label={t('overview.coverageByDay')} />
        </article>
        <article className="card">
          <h2>{t('overview.decisionReasons')}</h2>
          {charts.hasReasons ? (
            <Chart option={charts.reasons} label={t('overview.decisionReasons')} />
          ) : (
            <p className="state state-empty">{t('state.empty')}</p>
          )}
        </article>
        <article className="card">
          <h2>{t('overview.confidence')}</h2>
          <Chart option={charts.histogram} label={t('overview.confidence')} />
        </article>
        <article className="card">
          <h2>{t('overview.reliability')}</h2>
          {charts.reliability ? (
            <Chart option={charts.reliability} label={t('overview.reliability')} />
          ) : (
            <p className="state state-empty">{t('overview.notCalibrated')}</p>
          )}
        </article>
      </div>
      <div className="grid-2">
        <article className="card">
          <h2>{t('overview.topGaps')}</h2>
          {data.topGaps.length === 0 ? (
            <p className="state state-empty">{t('gaps.none')}</p>
          ) : (
            <table>
              <TableHead columns={[t('gaps.question'), t('gaps.count')]} />
              <tbody>
                {data.topGaps.map((gap) => (
                  <tr key={gap.normalizedText}>
                    <td>{gap.sampleQuery ?? gap.normalizedText}</td>
                    <td className="num">{gap.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <a href={href('gaps')}>{t('overview.allGaps')}</a>
        </article>
        <article className="card">
          <h2>{t('overview.jobs')}</h2>
          <ul className="status-counts">
            {Object.entries(data.jobs.byStatus).map(([status, count]) => (
              <li key={status}>
                <JobStatus status={status} /> {count}
              </li>
            ))}
          </ul>
          {data.jobs.recentFailures.length > 0 && (
            <ul className="failures">
              {data.jobs.recentFailures.map((failure) => (
                <li key={failure.id}>
                  <strong>{failure.name}</strong> {formatDateTime(failure.finishedAt)}: <span className="error-message">{failure.error}</span>
                </li>
              ))}
            </ul>
          )}
          <a href={href('jobs')}>{t('overview.allJobs')}</a>
        </article>
      </div>
    </>
  );
}

function Tile({ label, value }: { label: string; value: string }) {
  return (
    <div className="tile">
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
    </div>
  );
}

function overviewCharts(data: Overview, t: Translate) {
  const series = coverageSeries(data.coverageByDay, data.window.from, data.window.to);
  const slices = reasonSlices(data.decisionReasons).map((slice) => {
    const key = codeKey('reason', slice.name);
    return { ...slice, name: key ? t(key) : slice.name };
  });
  const bars = histogramBars(data.confidenceHistogram);
  const coverage: ChartOption = {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 48, top: 24, bottom: 32 },
    xAxis: { type: 'category', data: series.dates },
    yAxis: [
      { type: 'value', min: 0, max: 100, name: '%' },
      { type: 'value', name: t('overview.evaluated') },
    ],
    series: [
      { name: t('overview.coverageRate'), type: 'line', data: series.ratePercent, connectNulls: false, showSymbol: true, showAllSymbol: true, symbolSize: 7 },
      { name: t('overview.evaluated'), type: 'bar', yAxisIndex: 1, data: series.evaluated, itemStyle: { opacity: 0.35 } },
    ],
  };
  const reasons: ChartOption = {
    tooltip: { trigger: 'item' },
    legend: { bottom: 0, type: 'scroll' },
    series: [{ type: 'pie', radius: ['35%', '65%'], top: 0, bottom: 40, label: { show: false }, data: slices }],
  };
  const histogram: ChartOption = {
    tooltip: { trigger: 'axis' },
    grid: { left: 48, right: 16, top: 24, bottom: 32 },
    xAxis: { type: 'category', data: bars.labels, name: t('overview.confidenceAxis') },
    yAxis: { type: 'value', name: t('overview.sessions') },
    series: [{ type: 'bar', data: bars.counts }],
  };
  const points = data.reliability?.points ?? [];
  const line = reliabilityLine(points);
  const reliability: ChartOption | null = data.reliability
    ? {
        tooltip: { trigger: 'item' },
        grid: { left: 48, right: 16, top: 24, bottom: 40 },
        xAxis: { type: 'value', min: 0, max: 1, name: t('overview.confidenceAxis') },
        yAxis: { type: 'value', min: 0, max: 1, name: t('overview.accuracy') },
        series: [
          { name: t('overview.observed'), type: 'line', data: line.observed },
          { name: t('overview.ideal'), type: 'line', data: line.ideal, lineStyle: { type: 'dashed' }, symbol: 'none' },
        ],
      }
    : null;
  return { coverage, reasons, histogram, reliability, hasReasons: slices.length > 0 };
}
