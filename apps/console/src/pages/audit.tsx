import { useState, type FormEvent } from 'react';
import { api, ApiError, asApiError, call, downloadAuditCsv } from '../api/client';
import { useApiMutation, useApiPages, useApiQuery } from '../api/queries';
import { useUrlState } from '../lib/url-state';
import type { components } from '../api/schema';
import { Async, Empty, ErrorNotice, Loading } from '../components/states';
import { TableHead } from '../components/table-head';
import { useI18n } from '../i18n/i18n';
import { auditFileName, auditQuery, EMPTY_AUDIT_FILTER, type AuditFilter } from '../lib/audit-query';
import { offerDownload } from '../lib/download';
import { formatDateTime, isoDay } from '../lib/format';
import { useCanWrite } from '../lib/identity';

type Entry = components['schemas']['AuditEntryDto'];
type ApiKey = components['schemas']['ApiKeyDto'];

/** Entries asked for at a time; "Load more" follows the API's nextCursor. */
const PAGE_SIZE = 50;
/** The resource types written today (docs/http-edge.md "Audit log"), offered as suggestions; any snake_case name may be typed. */
const RESOURCE_TYPES = ['api_key', 'tenant', 'tenant_limits', 'audit_settings', 'intent_rule', 'intent_config', 'webhook'] as const;
const ACTIONS = ['create', 'update', 'delete', 'rotate', 'revoke', 'bulk'] as const;

/**
 * The audit log (docs/http-edge.md "Audit log"): filters, newest first, "Load more", CSV export with the same filters,
 * and the retention setting. Three calls on load: the first page, the retention, the keys (to name an actor).
 */
export function AuditPage() {
  const { t } = useI18n();
  const [filter, setFilter] = useUrlState<AuditFilter>(EMPTY_AUDIT_FILTER);
  const keys = useApiQuery(['api-keys'], () => call(api.GET('/admin/api-keys')));
  const entries = useAuditPages(filter);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<ApiError | null>(null);

  const exportCsv = async () => {
    setExporting(true);
    setExportError(null);
    try {
      offerDownload(auditFileName(filter, isoDay(new Date())), await downloadAuditCsv({ ...auditQuery(filter) }));
    } catch (reason) {
      setExportError(asApiError(reason));
    } finally {
      setExporting(false);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.audit')}</h1>
      <p className="hint">{t('audit.intro')}</p>
      {/* Keyed by the filter applied: the browser's back and forward put it back in the form. */}
      <AuditFilterForm key={JSON.stringify(filter)} value={filter} keys={keys.data ?? []} onApply={setFilter} />
      <div className="toolbar">
        <button type="button" onClick={entries.reload}>
          {t('action.refresh')}
        </button>
        <button type="button" onClick={() => void exportCsv()} disabled={exporting}>
          {t('audit.export')}
        </button>
      </div>
      {exportError && <ErrorNotice error={exportError} />}
      <AuditTable entries={entries} />
      <RetentionSetting />
    </section>
  );
}

/** The filtered log page after page; another filter starts again from its first page. */
function useAuditPages(filter: AuditFilter) {
  const { query, restart } = useApiPages(['audit', filter], (cursor) =>
    call(api.GET('/admin/audit', { params: { query: { ...auditQuery(filter), limit: PAGE_SIZE, cursor: cursor ?? undefined } } })),
  );
  const pages = query.data?.pages ?? [];
  return {
    items: pages.flatMap((page) => page.items),
    nextCursor: pages.at(-1)?.nextCursor ?? null,
    started: query.data !== undefined,
    loading: query.isFetching,
    // Hidden while asking again, as a retry clears it until its answer.
    error: query.isFetching ? null : query.error,
    loadMore: () => void query.fetchNextPage(),
    /** The first page again (Refresh, or a retry before anything was shown). */
    reload: restart,
  };
}

function AuditFilterForm({ value, keys, onApply }: { value: AuditFilter; keys: readonly ApiKey[]; onApply(next: AuditFilter): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(value);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  const field = (name: keyof AuditFilter) => ({
    value: draft[name],
    onChange: (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value }),
  });
  return (
    <form className="filters" onSubmit={submit} aria-label={t('audit.filters')}>
      <label>
        {t('filter.from')}
        <input type="date" {...field('from')} />
      </label>
      <label>
        {t('filter.to')}
        <input type="date" {...field('to')} />
      </label>
      <label>
        {t('audit.resourceType')}
        <input type="text" list="audit-resource-types" placeholder={t('filter.all')} {...field('resourceType')} />
      </label>
      <label>
        {t('audit.action')}
        <input type="text" list="audit-actions" placeholder={t('filter.all')} {...field('action')} />
      </label>
      <label>
        {t('audit.actor')}
        <select {...field('actorKeyId')}>
          <option value="">{t('filter.all')}</option>
          {keys.map((key) => (
            <option key={key.id} value={key.id}>
              {key.name} ({t(`role.${key.role}` as const)})
            </option>
          ))}
        </select>
      </label>
      <datalist id="audit-resource-types">
        {RESOURCE_TYPES.map((type) => (
          <option key={type} value={type} />
        ))}
      </datalist>
      <datalist id="audit-actions">
        {ACTIONS.map((action) => (
          <option key={action} value={action} />
        ))}
      </datalist>
      <button type="submit">{t('action.apply')}</button>
    </form>
  );
}

function AuditTable({ entries }: { entries: ReturnType<typeof useAuditPages> }) {
  const { t } = useI18n();
  if (!entries.started) return entries.error ? <ErrorNotice error={entries.error} onRetry={entries.reload} /> : <Loading />;
  if (entries.items.length === 0) return <Empty>{t('audit.none')}</Empty>;
  return (
    <>
      <table aria-label={t('nav.audit')}>
        <TableHead columns={[t('audit.when'), t('audit.actor'), t('audit.action'), t('audit.resource'), t('audit.summary'), t('state.requestId')]} />
        <tbody>
          {entries.items.map((entry) => (
            <tr key={entry.id} data-audit-id={entry.id}>
              <td>{formatDateTime(entry.occurredAt)}</td>
              <td>
                <ActorLabel actor={entry.actor} />
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>
                <code>{entry.resourceType}</code>
                {entry.label && <div>{entry.label}</div>}
                {entry.resourceId && <div className="hint">{entry.resourceId}</div>}
              </td>
              <td>
                <code className="summary">{Object.keys(entry.summary).length === 0 ? '—' : JSON.stringify(entry.summary)}</code>
              </td>
              <td>{entry.requestId ? <code>{entry.requestId}</code> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.error && <ErrorNotice error={entries.error} onRetry={entries.loadMore} />}
      {entries.nextCursor && (
        <p>
          <button type="button" disabled={entries.loading} onClick={entries.loadMore}>
            {entries.loading ? t('state.loading') : t('audit.loadMore')}
          </button>
        </p>
      )}
    </>
  );
}

function ActorLabel({ actor }: { actor: Entry['actor'] }) {
  const { t } = useI18n();
  switch (actor.kind) {
    case 'api_key':
      return <>{actor.name ?? actor.keyId ?? '—'}</>;
    case 'platform_admin':
      return <>{t('audit.platformAdmin')}</>;
    case 'system':
      return <>{t('audit.system')}</>;
  }
}

/** How long the log is kept: shown to everyone, changed by operators (`PUT /admin/audit/settings`). */
function RetentionSetting() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const state = useApiQuery(['audit-settings'], () => call(api.GET('/admin/audit/settings')));
  return (
    <article className="card">
      <h2>{t('audit.retention')}</h2>
      <Async state={state}>
        {(settings) =>
          canWrite ? (
            <RetentionForm days={settings.retentionDays} />
          ) : (
            <p data-testid="retention-days">{t('audit.retentionDays', { days: settings.retentionDays })}</p>
          )
        }
      </Async>
    </article>
  );
}

function RetentionForm({ days }: { days: number }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(String(days));
  const save = useApiMutation({
    send: (retentionDays: number) => call(api.PUT('/admin/audit/settings', { body: { retentionDays } })),
    invalidates: ['audit-settings'],
  });
  const error = save.error;
  const saved = save.isSuccess;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Not a whole number → NaN, sent as null: the API's 400 names retentionDays.
    save.mutate(Number(draft.trim()));
  };
  return (
    <form className="row" onSubmit={submit} aria-label={t('audit.retention')}>
      <label>
        {t('audit.retentionLabel')}
        <input type="text" inputMode="numeric" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </label>
      <button type="submit">{t('action.save')}</button>
      {error && <ErrorNotice error={error} />}
      {saved && (
        <p className="state" role="status">
          {t('audit.retentionSaved')}
        </p>
      )}
    </form>
  );
}
