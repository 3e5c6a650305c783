import { useEffect, useState, type FormEvent } from 'react';
import { api, asApiError, call, unwrap } from '../../api/client';
import { useApiMutation, useApiQuery } from '../../api/queries';
import { Async, ErrorNotice } from '../../components/states';
import { useI18n } from '../../i18n/i18n';
import { useCanWrite } from '../../lib/identity';
import type { operations } from '../../api/schema';

const NUMBER_KEYS = [
  'semanticThreshold',
  'conflictThreshold',
  'grayZoneThreshold',
  'minTriggerThreshold',
  'clarifyThreshold',
  'multiIntentThreshold',
  'semanticTopK',
  'semanticMatcherTimeoutMs',
  'llmJudgeTimeoutMs',
] as const;
const BOOLEAN_KEYS = ['llmJudgeEnabled', 'semanticMatcherEnabled'] as const;
type NumberKey = (typeof NUMBER_KEYS)[number];
type BooleanKey = (typeof BOOLEAN_KEYS)[number];
type ConfigBody = operations['IntentAdminController_putConfig']['requestBody']['content']['application/json'];

async function loadConfig() {
  // The ETag is the config's version: sent back as If-Match so a concurrent change is a 412, not a lost edit.
  const result = await api.GET('/admin/intent-config').catch((error: unknown) => Promise.reject(asApiError(error)));
  return { config: unwrap(result), etag: result.response.headers.get('etag') };
}

/** The router config with optimistic concurrency: saved with If-Match, so a concurrent change gives 412, not a lost edit. */
export function ConfigPanel() {
  const { t } = useI18n();
  const state = useApiQuery(['intent-config'], loadConfig);
  return (
    <article className="card">
      <h2>{t('intents.config')}</h2>
      <Async state={state}>{(data) => <ConfigForm initial={data.config} etag={data.etag} />}</Async>
    </article>
  );
}

function ConfigForm({ initial, etag }: { initial: Record<string, unknown>; etag: string | null }) {
  const { t } = useI18n();
  // A viewer sees the config, read-only (the API refuses its PUT).
  const canWrite = useCanWrite();
  const [draft, setDraft] = useState<Record<string, string | boolean>>(() => toDraft(initial));
  // Saved with the version read (If-Match); the config (and its new ETag) is read again after it.
  const save = useApiMutation({
    send: (body: ConfigBody) => call(api.PUT('/admin/intent-config', { body, params: { header: etag ? { 'If-Match': etag } : {} } })),
    invalidates: ['intent-config'],
  });
  const error = save.error;
  const saved = save.isSuccess;
  useEffect(() => setDraft(toDraft(initial)), [initial]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: ConfigBody = {};
    for (const key of NUMBER_KEYS) {
      const text = String(draft[key]).trim();
      // Sent as typed when not a number: the API's 400 names the key.
      body[key] = (text !== '' && !Number.isNaN(Number(text)) ? Number(text) : text) as number;
    }
    for (const key of BOOLEAN_KEYS) body[key] = draft[key] === true;
    save.mutate(body);
  };
  return (
    <form className="editor config-form" onSubmit={submit}>
      <div className="grid-3">
        {NUMBER_KEYS.map((key: NumberKey) => (
          <label key={key}>
            <code>{key}</code>
            <input
              type="text"
              inputMode="decimal"
              readOnly={!canWrite}
              value={String(draft[key] ?? '')}
              onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
            />
          </label>
        ))}
        {BOOLEAN_KEYS.map((key: BooleanKey) => (
          <label key={key} className="checkbox">
            <input
              type="checkbox"
              disabled={!canWrite}
              checked={draft[key] === true}
              onChange={(event) => setDraft({ ...draft, [key]: event.target.checked })}
            />
            <code>{key}</code>
          </label>
        ))}
      </div>
      <p className="muted">
        {t('intents.aggregation')}: <code>{String(initial.semanticAggregation ?? '—')}</code> · {t('intents.calibration')}:{' '}
        {initial.calibration ? t('intents.calibrated') : t('intents.uncalibrated')}
      </p>
      {error && <ErrorNotice error={error} />}
      {saved && (
        <p className="state" role="status">
          {t('intents.configSaved')}
        </p>
      )}
      {canWrite && <button type="submit">{t('action.save')}</button>}
    </form>
  );
}

function toDraft(config: Record<string, unknown>): Record<string, string | boolean> {
  const draft: Record<string, string | boolean> = {};
  for (const key of NUMBER_KEYS) draft[key] = String(config[key] ?? '');
  for (const key of BOOLEAN_KEYS) draft[key] = config[key] === true;
  return draft;
}
