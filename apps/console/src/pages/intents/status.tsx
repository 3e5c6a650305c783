import { api, call } from '../../api/client';
import { useApiQuery } from '../../api/queries';
import { ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/messages';
import { formatDuration } from '../../lib/format';
import { intentStatusBadge, intentStatusPollMs, type IntentTrainingState } from '../../lib/intent-status';

const STATE_LABEL: Record<IntentTrainingState, MessageKey> = {
  idle: 'intents.status.idle',
  queued: 'intents.status.queued',
  training: 'intents.status.training',
  failed: 'intents.status.failed',
};

/**
 * The rules' training status beside the rules (`GET /admin/intent/status`): the rules and classifier versions, the
 * training under way with its progress, the intents routed by their examples meanwhile, the last training's
 * duration. Asks again every second while a training waits or runs (not after an error), and after a rule is saved
 * (the rule editor invalidates it).
 */
export function IntentStatusLine() {
  const { t } = useI18n();
  const status = useApiQuery(['intent-status'], () => call(api.GET('/admin/intent/status')), {
    refetchInterval: (query) => (query.state.data !== undefined && query.state.error === null ? (intentStatusPollMs(query.state.data) ?? false) : false),
    refetchIntervalInBackground: true,
  });
  const { data } = status;
  if (data === undefined) return status.error !== null ? <ErrorNotice error={status.error} /> : null;
  const { state, progress } = data.training;
  return (
    <p className="intent-status" role="status" aria-live="polite" data-testid="intent-status">
      <span className={`badge badge-${intentStatusBadge(state)}`}>{t(STATE_LABEL[state])}</span>
      {state === 'training' && progress !== null && <progress max={1} value={progress} aria-label={t('intents.status.progress')} />}
      <span>{t('intents.status.rulesVersion', { version: data.rulesVersion })}</span>
      <span>{t('intents.status.classifierVersion', { version: data.classifierVersion ?? '—' })}</span>
      {data.interimIntents > 0 && <span className="muted">{t('intents.status.interim', { count: String(data.interimIntents) })}</span>}
      {data.lastTrainingMs !== null && <span className="muted">{t('intents.status.lastTraining', { duration: formatDuration(data.lastTrainingMs) })}</span>}
    </p>
  );
}
