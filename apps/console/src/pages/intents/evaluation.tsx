import { useState } from 'react';
import { api, ApiError, asApiError, call } from '../../api/client';
import { LabelledFileInput } from '../../components/labelled-file-input';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { formatPercent, formatScore } from '../../lib/format';
import { parseLabelledFile } from '../../lib/labelled-file';
import { TableHead } from '../../components/table-head';

type Report = Awaited<ReturnType<typeof evaluate>>;
const evaluate = (examples: { text: string; intent: string | null }[]) =>
  call(api.POST('/admin/intent-rules/evaluate', { body: { examples, topConfusions: 10 } }));

/** Upload a labelled file (JSONL or JSON) and see P/R/F1 per intent and the confusion table. */
export function EvaluationPanel() {
  const { t } = useI18n();
  const [report, setReport] = useState<Report | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const onFile = async (file: File | null) => {
    if (!file) return;
    setProblem(null);
    setError(null);
    const parsed = parseLabelledFile(await file.text());
    if (!parsed.ok) {
      setProblem(t('intents.fileProblem', { line: parsed.line, problem: parsed.problem }));
      return;
    }
    setBusy(true);
    try {
      setReport(await evaluate(parsed.examples));
    } catch (reason) {
      setError(asApiError(reason));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="card">
      <h2>{t('intents.evaluation')}</h2>
      <LabelledFileInput
        label={t('intents.uploadLabelled')}
        format={t('intents.labelledFormat')}
        problem={problem}
        disabled={busy}
        onFile={(file) => void onFile(file)}
      />
      {error && <ErrorNotice error={error} />}
      {report && (
        <div data-testid="evaluation-report">
          <div className="tiles">
            <div className="tile">
              <div className="tile-label">{t('intents.accuracy')}</div>
              <div className="tile-value">{formatPercent(report.accuracy)}</div>
            </div>
            <div className="tile">
              <div className="tile-label">{t('intents.macroF1')}</div>
              <div className="tile-value">{formatScore(report.macroF1)}</div>
            </div>
            <div className="tile">
              <div className="tile-label">{t('intents.oosRecall')}</div>
              <div className="tile-value">{formatPercent(report.outOfScopeRecall)}</div>
            </div>
            <div className="tile">
              <div className="tile-label">{t('intents.ece')}</div>
              <div className="tile-value">{formatScore(report.reliability.ece)}</div>
            </div>
          </div>
          <table>
            <caption>{t('intents.perIntent')}</caption>
            <TableHead columns={[t('intents.intent'), 'P', 'R', 'F1', t('intents.support')]} />
            <tbody>
              {report.perIntent.map((row) => (
                <tr key={row.intent}>
                  <td>{row.intent}</td>
                  <td className="num">{formatScore(row.precision)}</td>
                  <td className="num">{formatScore(row.recall)}</td>
                  <td className="num">{formatScore(row.f1)}</td>
                  <td className="num">{row.support}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table>
            <caption>{t('intents.confusions')}</caption>
            <TableHead columns={[t('intents.expected'), t('intents.predicted'), t('gaps.count')]} />
            <tbody>
              {report.confusions.length === 0 ? (
                <tr>
                  <td colSpan={3}>{t('intents.noConfusions')}</td>
                </tr>
              ) : (
                report.confusions.map((pair) => (
                  <tr key={`${pair.expected}→${pair.predicted}`}>
                    <td>{pair.expected ?? t('intents.outOfScope')}</td>
                    <td>{pair.predicted ?? t('intents.noIntent')}</td>
                    <td className="num">{pair.count}</td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
