import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (docs/webhooks.md "Verifying a signature"), like Stripe's: the HMAC-SHA256 of
 * `"<timestamp>.<body>"` keyed by the subscription's secret as UTF-8, hex-encoded, as `sha256=<hex>`.
 * `X-Arbiter-Signature` always carries the current secret's signature and only it; during a rotation's
 * overlap window `X-Arbiter-Signature-Previous` carries the previous secret's, so a receiver still holding
 * the old secret keeps verifying until it is given the new one.
 */
export const SIGNATURE_HEADER = 'x-arbiter-signature';
export const PREVIOUS_SIGNATURE_HEADER = 'x-arbiter-signature-previous';
export const TIMESTAMP_HEADER = 'x-arbiter-timestamp';

/** `sha256=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** The signing headers of one attempt; `previousSecret` only while the rotation's overlap window is open. */
export function signatureHeaders(secrets: { current: string; previous: string | null }, timestamp: number, body: string): Record<string, string> {
  const headers: Record<string, string> = {
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: signWebhook(secrets.current, timestamp, body),
  };
  if (secrets.previous) headers[PREVIOUS_SIGNATURE_HEADER] = signWebhook(secrets.previous, timestamp, body);
  return headers;
}

/**
 * A receiver's check (documented for integrators, used by the tests): the signature matches in constant time
 * and the timestamp is within `toleranceSeconds` of `nowSeconds` (replay protection).
 */
export function verifyWebhook(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  if (!headers.timestamp || !headers.signature || !/^\d{1,12}$/.test(headers.timestamp)) return false;
  const timestamp = Number(headers.timestamp);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(headers.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
