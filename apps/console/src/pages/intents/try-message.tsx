import { useState, type FormEvent } from 'react';
import { api, ApiError, asApiError, call } from '../../api/client';
import { RouteTraceTimeline } from '../../components/route-trace';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { formatScore } from '../../lib/format';

type RouteResult = Awaited<ReturnType<typeof route>>;
const route = (message: string) => call(api.POST('/ai/intent/route', { body: { message } }));

/** Routes one message with the live rules and config and shows the decision with its trace. */
export function TryMessage() {
  const { t } = useI18n();
  const [message, setMessage] = useState('');
  const [result, setResult] = useState<RouteResult | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResult(await route(message));
    } catch (reason) {
      setResult(null);
      setError(asApiError(reason));
    } finally {
      setBusy(false);
    }
  };
  return (
    <article className="card">
      <h2>{t('intents.try')}</h2>
      <form className="row" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          <span className="visually-hidden">{t('intents.tryMessage')}</span>
          <input type="text" value={message} placeholder={t('intents.tryPlaceholder')} onChange={(event) => setMessage(event.target.value)} />
        </label>
        <button type="submit" disabled={busy}>
          {t('intents.route')}
        </button>
      </form>
      {error && <ErrorNotice error={error} />}
      {result && (
        <div className="route-result" data-testid="route-result">
          <p>
            <strong>{result.finalIntent ?? t('intents.noIntent')}</strong> · <code>{result.decisionReason}</code> · {t('trace.confidence')}{' '}
            {formatScore(result.finalConfidence)}
            {result.needClarify && <span className="badge badge-queued">{t('intents.clarify')}</span>}
          </p>
          {result.candidates.length > 0 && (
            <p className="muted">
              {t('intents.candidates')}: {result.candidates.map((candidate) => `${candidate.intent} ${formatScore(candidate.confidence)}`).join(' · ')}
            </p>
          )}
          <RouteTraceTimeline trace={result.routeTrace} />
        </div>
      )}
    </article>
  );
}
