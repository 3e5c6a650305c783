import { useState } from 'react';
import { api, call } from '../api/client';
import { useApiMutation, useApiQuery } from '../api/queries';
import type { components } from '../api/schema';
import { Async, ErrorNotice } from '../components/states';
import { TableHead } from '../components/table-head';
import { useI18n } from '../i18n/i18n';
import { formatDateTime } from '../lib/format';
import { useCanWrite } from '../lib/identity';

type Webhook = components['schemas']['WebhookDto'];
type Delivery = components['schemas']['WebhookDeliveryDto'];

/**
 * The tenant's webhooks and the delivery log of the selected one, with redelivery (docs/webhooks.md).
 * Two calls on load: the list, and the first webhook's deliveries.
 */
export function WebhooksPage() {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const [selected, setSelected] = useState<string | null>(null);
  const list = useApiQuery(['webhooks'], () => call(api.GET('/admin/webhooks')));
  const items = list.data?.items ?? [];
  const current = items.find((w) => w.id === selected) ?? items[0] ?? null;
  const enabling = useApiMutation({
    send: (webhook: Webhook) => call(api.PATCH('/admin/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { enabled: true } })),
    invalidates: ['webhooks'],
  });
  const actionError = enabling.error;

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{t('nav.webhooks')}</h1>
      <p className="hint">{t('webhooks.intro')}</p>
      <div className="filters">
        <button type="button" onClick={() => void list.refetch()}>
          {t('action.refresh')}
        </button>
      </div>
      {actionError && <ErrorNotice error={actionError} />}
      <Async state={list} isEmpty={(data) => data.items.length === 0} empty={t('webhooks.none')}>
        {(data) => (
          <table aria-label={t('nav.webhooks')}>
            <TableHead
              columns={[t('webhooks.url'), t('webhooks.events'), t('webhooks.state'), t('webhooks.failures'), t('webhooks.created'), t('webhooks.actions')]}
            />
            <tbody>
              {data.items.map((webhook) => (
                <tr key={webhook.id} aria-selected={current?.id === webhook.id} className={current?.id === webhook.id ? 'selected' : undefined}>
                  <td>
                    <code>{webhook.url}</code>
                    {webhook.description && <div className="hint">{webhook.description}</div>}
                  </td>
                  <td>
                    {webhook.events.map((event) => (
                      <code key={event} className="tag">
                        {event}
                      </code>
                    ))}
                  </td>
                  <td>
                    <span className={`badge badge-${webhook.enabled ? 'succeeded' : 'failed'}`}>
                      {webhook.enabled ? t('webhooks.enabled') : t('webhooks.disabled')}
                    </span>
                    {webhook.disabledReason && <div className="error-message">{webhook.disabledReason}</div>}
                  </td>
                  <td>{webhook.consecutiveFailures}</td>
                  <td>{formatDateTime(webhook.createdAt)}</td>
                  <td>
                    <button type="button" onClick={() => setSelected(webhook.id)} aria-pressed={current?.id === webhook.id}>
                      {t('webhooks.showDeliveries')}
                    </button>{' '}
                    {canWrite && !webhook.enabled && (
                      <button type="button" onClick={() => enabling.mutate(webhook)}>
                        {t('webhooks.enable')}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Async>
      {current && <Deliveries key={current.id} webhook={current} />}
    </section>
  );
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const state = useApiQuery(['webhook-deliveries', webhook.id], () =>
    call(api.GET('/admin/webhooks/{id}/deliveries', { params: { path: { id: webhook.id }, query: { limit: 50 } } })),
  );
  const redelivery = useApiMutation({
    send: (delivery: Delivery) =>
      call(api.POST('/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver', { params: { path: { id: webhook.id, deliveryId: delivery.id } } })),
    invalidates: ['webhook-deliveries'],
  });
  const notice = redelivery.isSuccess ? t('webhooks.redelivered', { event: redelivery.variables.eventType }) : null;
  const actionError = redelivery.error;

  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t('webhooks.deliveriesOf', { url: webhook.url })}</h2>
      <div className="filters">
        <button type="button" onClick={() => void state.refetch()}>
          {t('action.refresh')}
        </button>
      </div>
      {notice && (
        <p className="state" role="status">
          {notice}
        </p>
      )}
      {actionError && <ErrorNotice error={actionError} />}
      <Async state={state} isEmpty={(data) => data.items.length === 0} empty={t('webhooks.noDeliveries')}>
        {(data) => (
          <table aria-label={t('webhooks.deliveries')}>
            <TableHead
              columns={[
                t('webhooks.event'),
                t('webhooks.status'),
                t('webhooks.attempts'),
                t('webhooks.response'),
                t('webhooks.created'),
                t('webhooks.error'),
                ...(canWrite ? [t('webhooks.actions')] : []),
              ]}
            />
            <tbody>
              {data.items.map((delivery) => (
                <tr key={delivery.id} data-delivery-id={delivery.id}>
                  <td>
                    <code>{delivery.eventType}</code>
                    {delivery.redeliveryOf && <div className="hint">{t('webhooks.redelivery')}</div>}
                  </td>
                  <td>
                    <DeliveryStatus status={delivery.status} />
                    {delivery.status === 'pending' && delivery.nextAttemptAt && (
                      <div className="hint">{t('webhooks.nextAttempt', { at: formatDateTime(delivery.nextAttemptAt) })}</div>
                    )}
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>
                    {delivery.responseStatus ?? '—'}
                    {delivery.responseMs !== null && <span className="hint"> ({delivery.responseMs} ms)</span>}
                  </td>
                  <td>{formatDateTime(delivery.createdAt)}</td>
                  <td className="error-message">{delivery.error ?? ''}</td>
                  {canWrite && (
                    <td>
                      <button
                        type="button"
                        onClick={() => redelivery.mutate(delivery)}
                        disabled={!webhook.enabled}
                        title={webhook.enabled ? undefined : t('webhooks.enableFirst')}
                      >
                        {t('webhooks.redeliver')}
                      </button>
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

function DeliveryStatus({ status }: { status: Delivery['status'] }) {
  const { t } = useI18n();
  const label = status === 'pending' ? t('webhooks.status.pending') : status === 'succeeded' ? t('webhooks.status.succeeded') : t('webhooks.status.failed');
  return <span className={`badge badge-${status === 'pending' ? 'queued' : status}`}>{label}</span>;
}
