import { useI18n } from '../i18n/i18n';
import { formatDuration, formatScore } from '../lib/format';
import { readRouteTrace, type TraceStep } from '../lib/route-trace';

/** A route decision as a timeline: rule → semantic → judge → fusion. */
export function RouteTraceTimeline({ trace }: { trace: unknown }) {
  const { t } = useI18n();
  const steps = readRouteTrace(trace);
  if (steps.length === 0) return <p className="muted">{t('trace.noTrace')}</p>;
  return (
    <ol className="timeline">
      {steps.map((step) => (
        <li key={step.kind} className={`step step-${step.kind}`}>
          <Step step={step} />
        </li>
      ))}
    </ol>
  );
}

function Step({ step }: { step: TraceStep }) {
  const { t } = useI18n();
  switch (step.kind) {
    case 'rule':
      return (
        <>
          <h3>{t('trace.rule')}</h3>
          {step.matched ? (
            <p>
              <strong>{step.intent}</strong> ← {step.matchType} “{step.matchedText}” <span className="muted">{formatDuration(step.durationMs)}</span>
            </p>
          ) : (
            <p className="muted">{t('trace.noRuleMatch')}</p>
          )}
        </>
      );
    case 'semantic':
      return (
        <>
          <h3>
            {t('trace.semantic')} {step.aggregation && <span className="muted">({step.aggregation})</span>}
          </h3>
          {step.skipped && <p className="muted">{t('trace.skipped', { reason: step.skipped })}</p>}
          {step.candidates.length > 0 && (
            <ul>
              {step.candidates.map((candidate) => (
                <li key={candidate.intent}>
                  <strong>{candidate.intent}</strong> {formatScore(candidate.score)}
                  {candidate.nearestExample && <span className="muted"> ≈ “{candidate.nearestExample}”</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      );
    case 'judge':
      return (
        <>
          <h3>{t('trace.judge')}</h3>
          {!step.triggered ? (
            <p className="muted">{t('trace.judgeNotTriggered')}</p>
          ) : (
            <p>
              {t('trace.judgeTriggered', { reasons: step.triggerReasons.join(', ') || '—' })}
              {step.skipped && <span className="muted"> · {t('trace.skipped', { reason: step.skipped })}</span>}
              {step.intent && (
                <>
                  {' '}
                  → <strong>{step.intent}</strong> {formatScore(step.score)}
                </>
              )}
              {step.error && <span className="error-message"> {step.error}</span>}
            </p>
          )}
        </>
      );
    case 'fusion':
      return (
        <>
          <h3>{t('trace.fusion')}</h3>
          <p>
            <code>{step.decisionReason}</code> · {t('trace.confidence')} <strong>{formatScore(step.finalConfidence)}</strong>
            {step.rawConfidence !== null && (
              <span className="muted">
                {' '}
                ({t('trace.raw')} {formatScore(step.rawConfidence)})
              </span>
            )}
          </p>
          <p className="muted">
            {t('trace.weights')}:{' '}
            {Object.entries(step.effectiveWeights)
              .map(([path, weight]) => `${path} ${formatScore(weight)}`)
              .join(' · ')}
          </p>
        </>
      );
  }
}
