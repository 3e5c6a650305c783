import { assertNever, DomainException, type DomainErrorSpec } from '@arbiter/common';

export enum WebhooksErrorCode {
  InvalidUrl = 'WEBHOOK_URL_REFUSED',
  SubscriptionNotFound = 'WEBHOOK_NOT_FOUND',
  DeliveryNotFound = 'WEBHOOK_DELIVERY_NOT_FOUND',
  SubscriptionDisabled = 'WEBHOOK_DISABLED',
}

export function webhooksErrorSpec(code: WebhooksErrorCode): DomainErrorSpec {
  switch (code) {
    case WebhooksErrorCode.InvalidUrl:
      return { status: 400, message: 'Webhook URL refused' };
    case WebhooksErrorCode.SubscriptionNotFound:
      return { status: 404, message: 'Webhook not found' };
    case WebhooksErrorCode.DeliveryNotFound:
      return { status: 404, message: 'Webhook delivery not found' };
    case WebhooksErrorCode.SubscriptionDisabled:
      return { status: 409, message: 'Webhook is disabled (enable it with PATCH {"enabled": true} first)' };
    default:
      return assertNever(code, 'webhooks error code');
  }
}

export class WebhooksException extends DomainException<WebhooksErrorCode> {
  constructor(code: WebhooksErrorCode, detail?: string) {
    super(code, webhooksErrorSpec(code), detail);
  }
}
