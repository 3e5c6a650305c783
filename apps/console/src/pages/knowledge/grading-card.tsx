import { useState } from 'react';
import { api, call } from '../../api/client';
import { useApiMutation, useApiQuery } from '../../api/queries';
import { LabelledFileInput } from '../../components/labelled-file-input';
import { Async, ErrorNotice } from '../../components/states';
import { TableHead } from '../../components/table-head';
import { useI18n } from '../../i18n/i18n';
import { formatDateTime, formatPercent } from '../../lib/format';
import { useCanWrite } from '../../lib/identity';
import { parseLabelledPairs, type LabelledPair } from '../../lib/labelled-file';

type FitResult = Awaited<ReturnType<typeof fitGrade>>;
type Metrics = FitResult['after'];
const fitGrade = (pairs: LabelledPair[], dryRun: boolean) => call(api.POST('/admin/knowledge/grading/fit', { body: { pairs, dryRun } }));

/**
 * The grade calibration in force (built-in, or fitted for this knowledge base) and its fit from a file of labelled
 * questions: a preview (dry run) shows the rates before and after on those questions, then apply or go back to the
 * built-in one (docs/console.md "Knowledge", docs/retrieval.md "Fitting the grade").
 */
export function GradingCard() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const grading = useApiQuery(['knowledge-grading'], () => call(api.GET('/admin/knowledge/grading')));
  const [pairs, setPairs] = useState<LabelledPair[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [result, setResult] = useState<FitResult | null>(null);
  // A preview stores nothing: only an applied fit asks for the calibration in force again.
  const preview = useApiMutation({ send: () => fitGrade(pairs ?? [], true), invalidates: [], onSuccess: setResult });
  const fit = useApiMutation({ send: () => fitGrade(pairs ?? [], false), invalidates: ['knowledge-grading'], onSuccess: setResult });
  const reset = useApiMutation({
    send: () => call(api.DELETE('/admin/knowledge/grading')),
    invalidates: ['knowledge-grading'],
    onSuccess: () => setResult(null),
  });
  const onFile = async (file: File | null) => {
    setProblem(null);
    setResult(null);
    setPairs(null);
    preview.reset();
    fit.reset();
    if (!file) return;
    const parsed = parseLabelledPairs(await file.text());
    if (parsed.ok) setPairs(parsed.pairs);
    else setProblem(t('grading.fileProblem', { line: parsed.line, problem: parsed.problem }));
  };
  const busy = preview.isPending || fit.isPending || reset.isPending;
  return (
    <article className="card" aria-labelledby="grading-title">
      <h2 id="grading-title">{t('grading.title')}</h2>
      <Async state={grading}>
        {(view) => (
          <div data-testid="grading-in-force">
            <p>
              <span className={`badge ${view.source === 'fitted' ? 'badge-succeeded' : 'badge-queued'}`}>
                {t(view.source === 'fitted' ? 'grading.fitted' : 'grading.builtIn')}
              </span>{' '}
              {view.source === 'fitted' && view.fittedAt && t('grading.fittedAt', { at: formatDateTime(view.fittedAt) })}{' '}
              <span className="muted">{t('grading.embedder', { embedder: view.embedder })}</span>
            </p>
            {view.metrics && <MetricsTable caption={t('grading.storedMetrics')} columns={[t('grading.fitted')]} rows={[view.metrics]} />}
            {canWrite && view.source === 'fitted' && (
              <button
                type="button"
                disabled={busy}
                onClick={() => {
                  if (window.confirm(t('grading.confirmReset'))) reset.mutate(undefined);
                }}
              >
                {t('grading.reset')}
              </button>
            )}
          </div>
        )}
      </Async>
      {canWrite && (
        <>
          <LabelledFileInput label={t('grading.file')} format={t('grading.format')} problem={problem} disabled={busy} onFile={(file) => void onFile(file)} />
          {pairs && (
            <div className="row">
              <span role="status">{t('grading.read', { pairs: pairs.length, unanswerable: pairs.filter((p) => p.filePath === null).length })}</span>
              <button type="button" disabled={busy} onClick={() => preview.mutate(undefined)}>
                {t('grading.preview')}
              </button>
              <button type="button" disabled={busy} onClick={() => fit.mutate(undefined)}>
                {t('grading.apply')}
              </button>
            </div>
          )}
        </>
      )}
      {preview.error && <ErrorNotice error={preview.error} />}
      {fit.error && <ErrorNotice error={fit.error} />}
      {reset.error && <ErrorNotice error={reset.error} />}
      {result && (
        <div data-testid="grading-fit-result">
          <p role="status">{t(result.applied ? 'grading.applied' : 'grading.previewed', { samples: result.samples })}</p>
          <MetricsTable caption={t('grading.onTheseQuestions')} columns={[t('grading.before'), t('grading.after')]} rows={[result.before, result.after]} />
        </div>
      )}
    </article>
  );
}

/** The grade's rates on labelled questions, one column per calibration. */
function MetricsTable({ caption, columns, rows }: { caption: string; columns: string[]; rows: Metrics[] }) {
  const { t } = useI18n();
  const lines: [string, (m: Metrics) => string][] = [
    [t('grading.questions'), (m) => `${m.lookups} (${m.lookups - m.answerable} ${t('grading.unanswerable')})`],
    [t('grading.hitAt1'), (m) => formatPercent(m.hitAt1)],
    [t('grading.rightRefused'), (m) => formatPercent(m.rightInsufficient)],
    [t('grading.wrongAnswered'), (m) => formatPercent(m.wrongNotInsufficient)],
    [t('grading.unanswerableRefused'), (m) => formatPercent(m.absentInsufficient)],
  ];
  return (
    <table>
      <caption>{caption}</caption>
      <TableHead columns={[t('grading.rate'), ...columns]} />
      <tbody>
        {lines.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {rows.map((m, i) => (
              <td key={columns[i]} className="num">
                {value(m)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
