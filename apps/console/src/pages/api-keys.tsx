import { useState, type FormEvent } from 'react';
import { api, call } from '../api/client';
import { useApiMutation, useApiQuery } from '../api/queries';
import type { components } from '../api/schema';
import { Async, ErrorNotice } from '../components/states';
import { TableHead } from '../components/table-head';
import { useI18n } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useCaller, useCanWrite } from '../lib/identity';

type ApiKey = components['schemas']['ApiKeyDto'];
type Role = ApiKey['role'];
type CreateKeyBody = components['schemas']['CreateApiKeyDto'];
const ROLES: readonly Role[] = ['operator', 'viewer', 'client'];
/** The grace periods offered on rotation (seconds; the API takes 0–604800, docs/http-edge.md "Keys"). */
const GRACE_PERIODS = [0, 3600, 86_400, 604_800] as const;
const DEFAULT_GRACE = 86_400;

/** A secret just issued: shown once, here, and never again (the API stores its hash only). */
interface Issued {
  name: string;
  key: string;
  rotated: boolean;
}

/**
 * The tenant's API keys (docs/http-edge.md "Keys"): list; create, rotate and revoke for operators. One call on
 * load (`GET /admin/api-keys`). A secret is shown once, with a copy button, after a create or a rotation.
 */
export function ApiKeysPage() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const caller = useCaller();
  const list = useApiQuery(['api-keys'], () => call(api.GET('/admin/api-keys')));
  const [issued, setIssued] = useState<Issued | null>(null);
  const [rotating, setRotating] = useState<string | null>(null);
  // A revocation or a rotation: one at a time, its error shown above the list; the list is asked again after it.
  const action = useApiMutation({
    send: (request: { kind: 'revoke'; key: ApiKey } | { kind: 'rotate'; key: ApiKey; gracePeriodSeconds: number }) =>
      request.kind === 'revoke'
        ? call(api.DELETE('/admin/api-keys/{id}', { params: { path: { id: request.key.id } } })).then(() => null)
        : call(api.POST('/admin/api-keys/{id}/rotate', { params: { path: { id: request.key.id } }, body: { gracePeriodSeconds: request.gracePeriodSeconds } })),
    invalidates: ['api-keys'],
    onSuccess: (rotated) => {
      if (!rotated) return;
      setRotating(null);
      setIssued({ name: rotated.name, key: rotated.key, rotated: true });
    },
  });
  const actionError = action.error;

  const revoke = (key: ApiKey) => {
    const own = key.id === caller?.id;
    if (!window.confirm(t(own ? 'keys.confirmRevokeOwn' : 'keys.confirmRevoke', { name: key.name }))) return;
    action.mutate({ kind: 'revoke', key });
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.keys')}</h1>
      <p className="hint">{t(canWrite ? 'keys.intro' : 'keys.introViewer')}</p>
      {issued && <SecretOnce issued={issued} onDone={() => setIssued(null)} />}
      {canWrite && <CreateKeyForm onCreated={setIssued} />}
      {actionError && <ErrorNotice error={actionError} />}
      <div className="filters">
        <button type="button" onClick={() => void list.refetch()}>
          {t('action.refresh')}
        </button>
      </div>
      <Async state={list} isEmpty={(data) => data.length === 0} empty={t('keys.none')}>
        {(keys) => (
          <table aria-label={t('nav.keys')}>
            <TableHead
              columns={[
                t('keys.name'),
                t('keys.role'),
                t('keys.prefix'),
                t('keys.status'),
                t('keys.created'),
                t('keys.lastUsed'),
                t('keys.expires'),
                t('keys.origins'),
                ...(canWrite ? [t('keys.actions')] : []),
              ]}
            />
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td>
                    <strong>{key.name}</strong>
                    {key.id === caller?.id && <div className="hint">{t('keys.yours')}</div>}
                  </td>
                  <td>{t(`role.${key.role}` as const)}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    <span className={`badge badge-key-${key.status}`}>{t(`keys.status.${key.status}` as const)}</span>
                    {key.revokedAt && <div className="hint">{formatDateTime(key.revokedAt)}</div>}
                    {key.previousSecretValidUntil && (
                      <div className="hint">{t('keys.previousValidUntil', { at: formatDateTime(key.previousSecretValidUntil) })}</div>
                    )}
                  </td>
                  <td>{formatDateTime(key.createdAt)}</td>
                  <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : t('keys.never')}</td>
                  <td>{key.expiresAt ? formatDateTime(key.expiresAt) : t('keys.noExpiry')}</td>
                  <td>
                    {key.allowedOrigins.length === 0
                      ? t('keys.anyOrigin')
                      : key.allowedOrigins.map((origin) => (
                          <code key={origin} className="tag">
                            {origin}
                          </code>
                        ))}
                  </td>
                  {canWrite && (
                    <td>
                      {key.status !== 'revoked' &&
                        (rotating === key.id ? (
                          <RotateForm
                            keyName={key.name}
                            busy={action.isPending}
                            onRotate={(gracePeriodSeconds) => action.mutate({ kind: 'rotate', key, gracePeriodSeconds })}
                            onCancel={() => setRotating(null)}
                          />
                        ) : (
                          <div className="actions">
                            <button type="button" onClick={() => setRotating(key.id)} aria-label={t('keys.rotateNamed', { name: key.name })}>
                              {t('keys.rotate')}
                            </button>
                            <button type="button" className="danger" onClick={() => revoke(key)} aria-label={t('keys.revokeNamed', { name: key.name })}>
                              {t('keys.revoke')}
                            </button>
                          </div>
                        ))}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
    </section>
  );
}

/** The secret of a key just created or rotated, with a copy button; "Done" forgets it for good. */
function SecretOnce({ issued, onDone }: { issued: Issued; onDone(): void }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState<boolean | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(issued.key);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a denied permission): the text stays on screen to select by hand.
      setCopied(false);
    }
  };
  return (
    <div className="card secret-once" role="region" aria-label={t('keys.secretTitle')}>
      <h2>{t(issued.rotated ? 'keys.rotatedTitle' : 'keys.createdTitle', { name: issued.name })}</h2>
      <p>{t('keys.secretOnce')}</p>
      <p>
        <code className="secret" data-testid="issued-secret">
          {issued.key}
        </code>
      </p>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          {t('keys.copy')}
        </button>
        <button type="button" onClick={onDone}>
          {t('keys.done')}
        </button>
      </div>
      {copied !== null && (
        <p role="status" className={copied ? 'state' : 'state state-error'}>
          {t(copied ? 'keys.copied' : 'keys.copyFailed')}
        </p>
      )}
    </div>
  );
}

function RotateForm({ keyName, busy, onRotate, onCancel }: { keyName: string; busy: boolean; onRotate(grace: number): void; onCancel(): void }) {
  const { t } = useI18n();
  const [grace, setGrace] = useState<number>(DEFAULT_GRACE);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onRotate(grace);
  };
  return (
    <form className="row" onSubmit={submit} aria-label={t('keys.rotateNamed', { name: keyName })}>
      <label>
        {t('keys.grace')}
        <select value={grace} onChange={(event) => setGrace(Number(event.target.value))}>
          {GRACE_PERIODS.map((seconds) => (
            <option key={seconds} value={seconds}>
              {t(`keys.grace.${seconds}` as const)}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        {t('keys.rotateNow')}
      </button>
      <button type="button" onClick={onCancel}>
        {t('action.cancel')}
      </button>
    </form>
  );
}

/**
 * Name, role, expiry and allowed origins, sent as typed (the API's 400 names the field; the form is kept). The
 * expiry is the operator's local time, sent as an ISO instant; origins one per line.
 */
function CreateKeyForm({ onCreated }: { onCreated(issued: Issued): void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [expiresAt, setExpiresAt] = useState('');
  const [origins, setOrigins] = useState('');
  const create = useApiMutation({
    send: (body: CreateKeyBody) => call(api.POST('/admin/api-keys', { body })),
    invalidates: ['api-keys'],
    onSuccess: (created) => {
      onCreated({ name: created.name, key: created.key, rotated: false });
      setName('');
      setExpiresAt('');
      setOrigins('');
    },
  });
  const error = create.error;
  const busy = create.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expiry = expiresAt ? new Date(expiresAt) : null;
    const allowedOrigins = origins
      .split(/[\s,]+/)
      .map((origin) => origin.trim())
      .filter(Boolean);
    create.mutate({
      name,
      role,
      // An unparsable date goes as typed: the API's 400 names expiresAt.
      ...(expiry ? { expiresAt: Number.isNaN(expiry.getTime()) ? expiresAt : expiry.toISOString() } : {}),
      ...(allowedOrigins.length > 0 ? { allowedOrigins } : {}),
    });
  };
  return (
    <form className="editor card" onSubmit={submit} aria-label={t('keys.create')}>
      <h2>{t('keys.create')}</h2>
      <div className="grid-2">
        <label>
          {t('keys.name')}
          <input type="text" value={name} onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          {t('keys.role')}
          <select value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {t(`role.${value}` as const)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('keys.expiresOptional')}
          <input type="datetime-local" value={expiresAt} onChange={(event) => setExpiresAt(event.target.value)} />
        </label>
        <label>
          {t('keys.originsOptional')}
          <textarea rows={2} value={origins} placeholder="https://support.example.com" onChange={(event) => setOrigins(event.target.value)} />
        </label>
      </div>
      <p className="hint">{t(`keys.roleHint.${role}` as const)}</p>
      {error && <ErrorNotice error={error} />}
      <button type="submit" disabled={busy}>
        {t('keys.createSubmit')}
      </button>
    </form>
  );
}
